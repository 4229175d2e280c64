//! Each plugin's permissions, compiled at every load and reload from the policy the embedder
//! gives (`HostOptions::permissions`) against the plugin's own places: `$PLUGIN` its folder,
//! `$DATA` its settings and data folder, `$TMP`, `$WORKSPACES` the daemon's workspaces (asked at
//! each check, so a workspace created later is covered), `~` the owner's home.

use std::path::Path;
use std::sync::Arc;

use super::PluginHost;
use crate::permissions::{Permissions, Places};

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
        let places = Places {
            plugin: directory.to_path_buf(),
            data: data.map(Path::to_path_buf),
            tmp: std::env::temp_dir(),
            workspaces: self.options.workspaces.clone(),
            home: std::env::var_os("HOME").map(Into::into),
        };
        Permissions::new(policy, places)
            .map(|p| Some(Arc::new(p)))
            .map_err(|e| format!("Plugin {id} has a policy that cannot be used: {e}"))
    }
}
