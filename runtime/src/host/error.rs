//! The error of the host's API. `Display` gives the text Paseo's Node host uses where it has
//! one, so the daemon and the CLI show it as it is.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    #[error("Plugin directory not found: {}", .0.display())]
    DirectoryNotFound(PathBuf),
    /// The manifest breaks a rule, or an ID given for the plugin does; the text names it.
    #[error("{0}")]
    Manifest(String),
    #[error("Plugin ID \"{0}\" is already configured; choose another ID with --id")]
    AlreadyConfigured(String),
    #[error("Plugin is not configured: {0}")]
    NotConfigured(String),
    /// Not running: never loaded, stopped, disabled or failed.
    #[error("Plugin is not available: {0}")]
    NotAvailable(String),
    /// The plugin did not load (requirements, entry, its code); the plugin is listed `failed`
    /// with this message.
    #[error("{message}")]
    Load { plugin: String, message: String },
    /// A debugger asked for a plugin the host does not inspect (`debug_connect`).
    #[error("Plugin {0} is not inspected; start the daemon with --inspect-plugin {0}")]
    NotInspected(String),
    /// A hook the catalogue does not name (`replay_hook`).
    #[error("Unknown hook: {0}")]
    UnknownHook(String),
    #[error("Plugin {plugin} does not contribute RPC {method}")]
    UnknownRpc { plugin: String, method: String },
    /// An RPC call failed: the plugin's error, its timeout, or a result over the limit.
    #[error("{message}")]
    Rpc {
        plugin: String,
        method: String,
        message: String,
    },
}
