//! Hooks as data: the catalogue, the typed payloads, validation in Rust and the generated
//! TypeScript. Nothing here runs plugin code (that is `host::dispatch`).

pub mod catalogue;
pub mod types;
pub mod typescript;
pub mod validate;

pub use catalogue::catalogue;

/// The most JSON one message between a plugin and the daemon may carry: what Paseo's Node host
/// allows one IPC message (4 MiB). It bounds a waiting hook's result and an RPC result when they
/// reach the host, and the arguments of one SDK call when they reach the daemon.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// Why a hook dispatch failed. `Display` gives the documented text,
/// `Plugin <id> <hook> failed: <message>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookError {
    #[error("Plugin {plugin} {hook} failed: {message}")]
    Plugin {
        plugin: String,
        hook: String,
        message: String,
    },
    /// The daemon passed a payload the catalogue's schema rejects.
    #[error("{message}")]
    InvalidInput { hook: String, message: String },
    #[error("Unknown hook: {0}")]
    UnknownHook(String),
}

impl HookError {
    pub fn plugin(plugin: &str, hook: &str, message: impl Into<String>) -> Self {
        HookError::Plugin {
            plugin: plugin.into(),
            hook: hook.into(),
            message: message.into(),
        }
    }
}
