//! The Paseo plugin engine: runs each plugin's unchanged `index.server.ts` in its own
//! JavaScript isolate and dispatches Paseo's hooks to it.
//!
//! The layers, each using only the ones above it:
//! - [`logs`], [`private_files`]: plugins' log tails; files for the owner's eyes only (leaves).
//! - [`hooks`]: the hook catalogue and the typed payloads, validation: pure data.
//!   [`permissions`]: what each plugin may touch, and audits of what it did.
//! - [`engine`]: isolates (one thread each), the module loader, transpiling, limits. It runs
//!   the capabilities it is handed and names none of them.
//! - [`node`], [`sdk`]: capabilities (ops, their state, their JS): the `node:` builtins, and
//!   `context.paseo` with settings and secrets.
//! - [`tools`]: the agent tools attached in `agent.open.before`, and their MCP endpoint.
//! - [`providers`]: what plugins provide (agent providers, forge providers, usage sources):
//!   the provider protocol as data and the daemon's end of a connection.
//! - [`host`]: what a daemon embeds (`PluginHost`): standby isolates, plugin lifecycle, and
//!   dispatch of hooks, RPC, tools and events into plugins.

pub mod engine;
pub mod hooks;
pub mod host;
pub mod logs;
pub mod node;
pub mod permissions;
pub mod private_files;
pub mod providers;
pub mod sdk;
pub mod tools;

pub use engine::{CallStats, Limits, PluginStats, Registrations};
pub use hooks::types::OpenContext;
pub use hooks::HookError;
pub use host::{
    DebugTarget, HostError, HostOptions, InspectOptions, NotificationStats, PluginHost, PluginInfo,
    PluginStatsReport, PluginStatus, PASEO_VERSION,
};
pub use logs::{LogEntry, Stream};
pub use providers::{ProvideError, ProviderConnection, ProviderEvent, ProviderHandle};
pub use sdk::{memory::MemoryDaemon, Caller, PaseoDaemon, SdkError};
pub use tools::{ToolError, ToolInfo, ToolResult};
