//! What each plugin may touch, as the owner decides it: the policy in config.json
//! (`plugins.<id>.permissions`) that the host reads at every load (`policy_lookup`), the
//! workspaces `$WORKSPACES` stands for, and `paseo plugin permissions|allow|deny`, which show
//! and change a policy and apply it at once (a reload), and `paseo plugin audit`, which writes
//! one from what the plugin did.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};

use paseo_plugin_runtime::host::PolicyLookup;
use paseo_plugin_runtime::permissions::Policy;
use serde_json::{json, Value};

use super::quotas::{Quotas, Spend};
use super::store::PluginConfig;
use super::Daemon;

/// The daemon, once it exists, for the host's lookups made before it did.
pub(super) type Later = Arc<OnceLock<Weak<Daemon>>>;

/// The host asks this for a plugin's policy at each load and reload.
pub(super) fn policy_lookup(daemon: Later) -> PolicyLookup {
    Arc::new(move |id: &str| {
        let daemon = daemon.get()?.upgrade()?;
        let config = daemon.config.lock().unwrap();
        let written = match config.plugins.get(id) {
            Some(entry) => entry.permissions.clone(),
            // Being installed with --sandbox.
            None => daemon.pending_policies.lock().unwrap().get(id).cloned(),
        }?;
        Some(parse(written))
    })
}

/// `$WORKSPACES`: the directories of the workspaces not archived, asked at each check.
pub(super) fn workspace_dirs(daemon: Later) -> Arc<dyn Fn() -> Vec<PathBuf> + Send + Sync> {
    Arc::new(move || {
        let Some(daemon) = daemon.get().and_then(Weak::upgrade) else {
            return Vec::new();
        };
        daemon
            .workspaces()
            .into_iter()
            .filter(|w| w.archived_at.is_none())
            .map(|w| PathBuf::from(w.cwd))
            .collect()
    })
}

fn parse(written: Value) -> Result<Policy, String> {
    serde_json::from_value(written).map_err(|e| format!("permissions: {e}"))
}

impl Daemon {
    /// `paseo plugin permissions ID`: the policy, or `null` for the owner's rights, and the
    /// quotas in force.
    pub fn plugin_policy(&self, id: &str) -> Result<Value, String> {
        let plugin = self.configured(id)?;
        let policy = plugin.permissions.map(parse).transpose()?;
        let quotas = self.quotas_of(id)?;
        Ok(json!({ "id": id, "permissions": policy, "quotas": quotas }))
    }

    /// Plugin `id`'s quotas: its own (`plugins.<id>.quotas`) over the defaults.
    pub fn quotas_of(&self, id: &str) -> Result<Quotas, String> {
        let written = self.configured(id)?.quotas;
        written
            .map(|q| serde_json::from_value(q).map_err(|e| format!("plugins.{id}.quotas: {e}")))
            .transpose()
            .map(Option::unwrap_or_default)
    }

    /// Counts an SDK write of plugin `id` for `agent` against its quotas; a refusal is logged
    /// under the plugin and returned.
    pub(super) fn charge(
        &self,
        id: &str,
        agent: &str,
        spend: Spend,
        bytes: u64,
    ) -> Result<(), String> {
        // A quota that does not parse is refused with the defaults, and said.
        let quotas = self.quotas_of(id).unwrap_or_else(|e| {
            self.host.log(id, &format!("{e}; the default quotas apply"));
            Quotas::default()
        });
        self.quota_meter
            .charge(&quotas, id, agent, spend, bytes)
            .inspect_err(|e| self.host.log(id, e))
    }

    /// `paseo plugin quotas ID [--timeline-rows N] …`: sets the quotas given, keeps the rest.
    pub fn plugin_set_quotas(&self, id: &str, changes: &Value) -> Result<Value, String> {
        let mut quotas = serde_json::to_value(self.quotas_of(id)?).unwrap_or_default();
        if let (Some(q), Some(changes)) = (quotas.as_object_mut(), changes.as_object()) {
            for (key, value) in changes {
                q.insert(key.clone(), value.clone());
            }
        }
        let checked: Quotas = serde_json::from_value(quotas).map_err(|e| format!("quotas: {e}"))?;
        self.save_entry(id, |entry| entry.quotas = Some(json!(checked)))?;
        Ok(json!({ "id": id, "quotas": checked }))
    }

    /// `paseo plugin allow|deny ID …`: adds (or removes) grants, saves the policy and reloads
    /// the plugin under it. Allowing on a plugin with full access gives it a policy of just
    /// those grants; there is nothing to deny on one (full access is no list to take from).
    pub async fn plugin_change_policy(
        &self,
        id: &str,
        change: Policy,
        allow: bool,
    ) -> Result<Value, String> {
        let plugin = self.configured(id)?;
        let mut policy = match plugin.permissions.clone().map(parse).transpose()? {
            Some(policy) => policy,
            None if allow => Policy::default(),
            None => {
                return Err(format!(
                    "Plugin {id} has full access: there is no grant to take back. Give it a \
                     policy first (paseo plugin allow {id} --read '$PLUGIN' …)"
                ))
            }
        };
        if allow {
            policy.allow(&change);
        } else {
            policy.deny(&change);
        }
        self.save_policy(id, &policy)?;
        // Applied at once, when the plugin runs.
        let reloaded = plugin.is_enabled() && self.plugins_enabled();
        if reloaded {
            self.reload_or_load(id, &plugin.path).await?;
        }
        Ok(json!({ "id": id, "permissions": policy, "reloaded": reloaded }))
    }

    /// `paseo plugin audit ID [--apply]`. Not audited yet: starts the audit (full access, every
    /// access recorded; the grants it had are kept for later) and reloads. Audited: the policy
    /// that covers what it did so far; with `apply`, that policy replaces the audit, and the
    /// plugin reloads under it.
    pub async fn plugin_audit(&self, id: &str, apply: bool) -> Result<Value, String> {
        let plugin = self.configured(id)?;
        let mut policy = plugin.permissions.clone().map(parse).transpose()?;
        let auditing = policy.as_ref().is_some_and(|p| p.audit);
        let (next, answer) = if !auditing {
            if apply {
                return Err(format!(
                    "Plugin {id} is not audited: `paseo plugin audit {id}` starts an audit"
                ));
            }
            self.host.forget_audit(id);
            let mut next = policy.take().unwrap_or_default();
            next.audit = true;
            (next, json!({ "id": id, "auditing": true, "started": true }))
        } else {
            let (covering, seen) = self.host.audit_policy(id).map_err(|e| e.to_string())?;
            if !apply {
                return Ok(json!({ "id": id, "auditing": true, "seen": seen, "policy": covering }));
            }
            self.host.forget_audit(id);
            let answer = json!({ "id": id, "auditing": false, "applied": true, "seen": seen, "policy": covering });
            (covering, answer)
        };
        self.save_policy(id, &next)?;
        if plugin.is_enabled() && self.plugins_enabled() {
            self.reload_or_load(id, &plugin.path).await?;
        }
        Ok(answer)
    }

    /// Writes plugin `id`'s policy to config.json (as it was on failure).
    fn save_policy(&self, id: &str, policy: &Policy) -> Result<(), String> {
        self.save_entry(id, |entry| entry.permissions = Some(json!(policy)))
    }

    /// Changes plugin `id`'s entry in config.json and saves it; on a failed save the entry is
    /// as it was.
    fn save_entry(&self, id: &str, change: impl FnOnce(&mut PluginConfig)) -> Result<(), String> {
        let mut config = self.config.lock().unwrap();
        let entry = config
            .plugins
            .get_mut(id)
            .ok_or_else(|| format!("Plugin is not configured: {id}"))?;
        let before = entry.clone();
        change(entry);
        if let Err(e) = self.store.save_config(&config) {
            config.plugins.insert(id.to_string(), before);
            return Err(e);
        }
        Ok(())
    }
}
