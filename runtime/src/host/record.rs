//! Hook traffic recorded and replayed: the recorder each plugin's isolate writes to while
//! `HostOptions::record_dir` is set (`engine::recorder`), and `replay_hook`, which gives a plugin
//! a recorded call's input as it is, for `paseo hook replay` to compare the answers.

use std::sync::Arc;

use super::{HostError, PluginHost};
use serde_json::Value;

use crate::engine::recorder::{self, Recorder};
use crate::engine::CallKind;
use crate::hooks;

impl PluginHost {
    /// The plugin's recorder while hook calls are recorded: one per plugin ID for the host's
    /// life, so that reloads append to the same file under the same cap.
    pub(super) fn plugin_recorder(&self, id: &str) -> Option<Arc<Recorder>> {
        let dir = self.options.record_dir.as_ref()?;
        self.recorders
            .lock()
            .unwrap()
            .entry(id.to_string())
            .or_insert_with(|| Recorder::open(dir, id, self.log_tail(id)).map(Arc::new))
            .clone()
    }

    /// Calls plugin `id`'s handlers of `hook` with `input` exactly as a recording holds it
    /// (`{"request": …}` for request hooks, the event otherwise), without the checks and the
    /// chain around a live call, and returns the answer in the recording's form
    /// (`recorder::redacted` output, or `recorder::error_text`), for `paseo hook replay` to
    /// compare with the recorded one. `run_hook` is the live path.
    pub async fn replay_hook(
        &self,
        id: &str,
        hook: &str,
        input: &Value,
    ) -> Result<Result<Value, String>, HostError> {
        let spec = hooks::catalogue()
            .get(hook)
            .ok_or_else(|| HostError::UnknownHook(hook.to_string()))?;
        let (isolate, limits) = self
            .running(id)
            .ok_or_else(|| HostError::NotAvailable(id.to_string()))?;
        let call = CallKind::Hook {
            hook: spec.name.as_str(),
            input: Arc::from(input.to_string()),
        };
        let outcome = isolate.call(call, limits.hook_timeout).await;
        Ok(outcome
            .map(|output| recorder::redacted(&output))
            .map_err(|e| recorder::error_text(&e)))
    }
}
