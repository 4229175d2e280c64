//! Agent providers: the built-in ones (`scripted`, which reaches its plugin tools as an MCP
//! client, `mcp_client`) and those plugins provide (`plugin`). A turn runs its provider's steps
//! (`turns`); the types they share with the daemon are in `model`.

mod mcp_client;
pub(super) mod plugin;
pub(super) mod scripted;
