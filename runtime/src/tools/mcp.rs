//! Plugin tools over MCP. Filled in by its own change.
