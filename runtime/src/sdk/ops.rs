//! The SDK capability: ops of `context.paseo` (one generic call into the daemon trait,
//! subscription bookkeeping) and of settings and secrets (storage.rs), and the state they keep.
//! Who the plugin is comes from the engine's `PluginShared`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use deno_core::{op2, OpState};
use deno_error::JsErrorBox;
use serde_json::Value;

use super::{dispatch, Caller, PaseoDaemon};
use crate::engine::PluginShared;

/// The daemon a plugin talks to.
struct SdkState {
    daemon: Arc<dyn PaseoDaemon>,
    /// The daemon's runtime, so daemon code runs there rather than on the plugin's thread.
    runtime: Option<tokio::runtime::Handle>,
}

/// The most JSON one SDK call may send the daemon (`hooks::MAX_MESSAGE_BYTES`). The daemon's
/// own limits (64 KiB of timeline data, titles) apply on top.
pub const MAX_CALL_BYTES: usize = crate::hooks::MAX_MESSAGE_BYTES;

#[op2]
#[string]
pub async fn op_sdk_call(
    state: Rc<RefCell<OpState>>,
    #[string] method: String,
    #[string] args: String,
) -> Result<String, JsErrorBox> {
    let (daemon, caller, runtime) = {
        let state = state.borrow();
        let sdk = state.borrow::<SdkState>();
        let caller = Caller {
            plugin_id: state.borrow::<Arc<PluginShared>>().id.clone(),
        };
        (sdk.daemon.clone(), caller, sdk.runtime.clone())
    };
    if args.len() > MAX_CALL_BYTES {
        return Err(JsErrorBox::range_error(format!(
            "paseo.{method}: the arguments are {} bytes of JSON; the limit is {MAX_CALL_BYTES} bytes (4 MiB)",
            args.len()
        )));
    }
    let args: Value = serde_json::from_str(&args)
        .map_err(|e| JsErrorBox::generic(format!("paseo.{method}: arguments are not JSON: {e}")))?;
    let call = async move { dispatch(&*daemon, &caller, &method, args).await };
    let result = match runtime {
        Some(rt) => rt
            .spawn(call)
            .await
            .map_err(|e| JsErrorBox::generic(format!("daemon call failed: {e}")))?,
        None => call.await,
    };
    result
        .map(|v| v.to_string())
        .map_err(|e| JsErrorBox::generic(e.to_string()))
}

/// Starts (`on`) or ends delivery of daemon events on `topic` to this plugin.
#[op2(fast)]
pub fn op_sdk_subscribe(state: &mut OpState, #[string] topic: &str, on: bool) {
    let mut topics = state.borrow::<Arc<PluginShared>>().topics.lock().unwrap();
    if on {
        topics.insert(topic.to_string());
    } else {
        topics.remove(topic);
    }
}

deno_core::extension!(
    paseo_sdk,
    ops = [
        op_sdk_call,
        op_sdk_subscribe,
        super::storage::op_settings_read,
        super::storage::op_settings_write,
        super::storage::op_settings_delete,
        super::storage::op_secrets_get,
        super::storage::op_secrets_keys,
        super::storage::op_secrets_set,
        super::storage::op_secrets_delete,
    ],
    options = {
        daemon: Arc<dyn PaseoDaemon>,
        runtime: Option<tokio::runtime::Handle>,
    },
    state = |state, options| {
        state.put(SdkState {
            daemon: options.daemon,
            runtime: options.runtime,
        });
    },
);
