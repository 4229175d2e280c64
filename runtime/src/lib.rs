//! The Paseo plugin engine: runs each plugin's unchanged `index.server.ts` in its own
//! JavaScript isolate and dispatches Paseo's hooks to it.
//!
//! - [`engine`]: isolates (one thread each), the module loader, transpiling, limits.
//! - [`hooks`]: the hook catalogue (data), validation, dispatch rules.
//! - [`host`]: plugin lifecycle (`PluginHost`), manifests, logs.
//! - [`node`]: the Rust side of the `node:` builtins.
//! - [`tools`]: agent tools attached in `agent.open.before`, called by agents (and over MCP).
//! - [`sdk`]: the daemon trait behind `context.paseo`, and an in-memory daemon.

pub mod engine;
pub mod hooks;
pub mod host;
pub mod node;
pub mod sdk;
pub mod tools;

pub use engine::{Limits, Registrations};
pub use hooks::HookError;
pub use host::logs::{LogEntry, Stream};
pub use host::{HostOptions, OpenContext, PluginHost, PluginInfo, PluginStatus, PASEO_VERSION};
pub use sdk::{memory::MemoryDaemon, Caller, PaseoDaemon, SdkError};
pub use tools::{ToolError, ToolInfo, ToolResult};
