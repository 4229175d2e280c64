//! Debuggers attached to plugins (`HostOptions::inspect`): one `DebugPort` per inspected plugin
//! for the host's life, so that a reload hands the debugger's next session to the new isolate;
//! the targets a debugger can attach to, and a session with one. The WebSocket side (Chrome
//! DevTools Protocol over HTTP, `/json/list`) is the embedder's: `paseo daemon --inspect`.

use std::sync::Arc;

use super::{HostError, PluginHost, PluginStatus};
use crate::engine::debugger::{DebugPort, DebugSession};

/// Which plugins a debugger may attach to.
#[derive(Clone, Debug, Default)]
pub struct InspectOptions {
    /// The plugin IDs inspected; `None`: every plugin.
    pub plugins: Option<Vec<String>>,
    /// `--inspect-brk`: each inspected plugin's code waits for a debugger, then stops at the
    /// first line of its entry.
    pub brk: bool,
}

/// A plugin a debugger can attach to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugTarget {
    pub id: String,
    /// Its entry module's URL (`file:///…/index.server.ts`).
    pub url: String,
    pub status: PluginStatus,
}

impl PluginHost {
    /// The plugin's debug port, if it is inspected.
    pub(super) fn debug_port(&self, id: &str) -> Option<Arc<DebugPort>> {
        let inspect = self.options.inspect.as_ref()?;
        if inspect
            .plugins
            .as_ref()
            .is_some_and(|ids| !ids.iter().any(|p| p == id))
        {
            return None;
        }
        Some(
            self.debug_ports
                .lock()
                .unwrap()
                .entry(id.to_string())
                .or_insert_with(|| Arc::new(DebugPort::new(inspect.brk)))
                .clone(),
        )
    }

    /// The inspected plugins the host has, in ID order.
    pub fn debug_targets(&self) -> Vec<DebugTarget> {
        let ports = self.debug_ports.lock().unwrap();
        self.plugins()
            .into_iter()
            .filter(|p| ports.contains_key(&p.id))
            .map(|p| {
                let entry = super::manifest::find_server_entry(&p.directory)
                    .ok()
                    .flatten()
                    .and_then(|e| deno_core::ModuleSpecifier::from_file_path(e).ok());
                DebugTarget {
                    url: entry.map(|u| u.to_string()).unwrap_or_default(),
                    id: p.id,
                    status: p.status,
                }
            })
            .collect()
    }

    /// A debugger session with the isolate plugin `id` runs now.
    pub fn debug_connect(&self, id: &str) -> Result<DebugSession, HostError> {
        let port = self.debug_ports.lock().unwrap().get(id).cloned();
        let port = port.ok_or_else(|| HostError::NotInspected(id.to_string()))?;
        port.connect()
            .ok_or_else(|| HostError::NotAvailable(id.to_string()))
    }
}
