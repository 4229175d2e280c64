//! Each plugin's permissions, compiled at every load and reload from the policy the embedder
//! gives (`HostOptions::permissions`) against the plugin's own places: `$PLUGIN` its folder,
//! `$DATA` its settings and data folder, `$TMP`, `$WORKSPACES` the daemon's workspaces (asked at
//! each check, so a workspace created later is covered), `~` the owner's home.

use std::path::Path;
use std::sync::Arc;

use super::{HostError, PluginHost};
use crate::permissions::{audit, Permissions, Places, Policy};

impl PluginHost {
    /// The plugin's compiled permissions (`None`: no policy, its owner's rights), or why its
    /// policy cannot be used, naming the plugin and the entry.
    pub(super) fn plugin_permissions(
        &self,
        id: &str,
        directory: &Path,
        data: Option<&Path>,
    ) -> Result<Option<Arc<Permissions>>, String> {
        let Some(policy) = self
            .options
            .permissions
            .as_ref()
            .and_then(|lookup| lookup(id))
        else {
            return Ok(None);
        };
        let policy =
            policy.map_err(|e| format!("Plugin {id} has a policy that cannot be used: {e}"))?;
        Permissions::new(policy, self.places(directory, data))
            .map(|p| Some(Arc::new(p)))
            .map_err(|e| format!("Plugin {id} has a policy that cannot be used: {e}"))
    }

    fn places(&self, directory: &Path, data: Option<&Path>) -> Places {
        Places {
            plugin: directory.to_path_buf(),
            data: data.map(Path::to_path_buf),
            tmp: std::env::temp_dir(),
            workspaces: self.options.workspaces.clone(),
            home: std::env::var_os("HOME").map(Into::into),
        }
    }

    /// The policy that covers what plugin `id` did while audited (`"audit": true` in its
    /// policy), from the audit its data folder holds, and how many distinct accesses that is.
    pub fn audit_policy(&self, id: &str) -> Result<(Policy, usize), HostError> {
        let plugin = self
            .plugin(id)
            .ok_or_else(|| HostError::NotConfigured(id.to_string()))?;
        let data = self
            .options
            .settings_dir
            .as_ref()
            .map(|d| d.join(id))
            .ok_or_else(|| {
                HostError::NotAvailable(format!(
                    "{id} (this host keeps no data folders, where audits are kept)"
                ))
            })?;
        let entries = audit::read_entries(&data.join(audit::FILE));
        let places = self.places(&plugin.directory, Some(&data));
        Ok((audit::policy_from(&entries, &places), entries.len()))
    }

    /// Forgets plugin `id`'s audit (its policy was applied, or a new audit starts afresh).
    pub fn forget_audit(&self, id: &str) {
        if let Some(d) = &self.options.settings_dir {
            let _ = std::fs::remove_file(d.join(id).join(audit::FILE));
        }
    }
}
