//! Ops of the host extension: the invocation protocol (input, settle), logs, registrations and
//! hook validation. Named `op_host_*` / `op_hook_*`.

use deno_core::{op2, v8, OpState};
use deno_error::JsErrorBox;
use serde::{Deserialize, Serialize};

use super::modules::PluginModuleLoader;
use std::sync::Arc;

use super::{ActorState, CallError, PluginShared};
use crate::hooks::catalogue::catalogue;
use crate::hooks::validate;
use crate::logs::Stream;

/// What a plugin registered, as it reports it after every change.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Registrations {
    pub hooks: Vec<HookRegistration>,
    pub rpc: Vec<String>,
    pub settings: Vec<String>,
    /// What the plugin provides (`registerProvider`, `addForgeServerProvider`,
    /// `registerUsageSource`), as its JS validated them.
    #[serde(default)]
    pub providers: Vec<Provided>,
    #[serde(default, rename = "forgeProviders")]
    pub forge_providers: Vec<Provided>,
    #[serde(default, rename = "usageSources")]
    pub usage_sources: Vec<Provided>,
}

/// One thing a plugin provides: its id and what the daemon shows of it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Provided {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Plugin-folder-relative path of an SVG icon, as registered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// What else the registration declares (e.g. a forge provider's hosts, a provider's
    /// optional methods), as JSON.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub details: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct HookRegistration {
    /// The hook (new name).
    pub hook: String,
    /// `addHook`, `on` or `before`.
    pub via: String,
    /// The name as registered (old or new).
    #[serde(rename = "as")]
    pub registered_as: String,
}

impl Registrations {
    pub fn has_hook(&self, hook: &str) -> bool {
        self.hooks.iter().any(|h| h.hook == hook)
    }
}

#[op2]
#[string]
fn op_hook_catalogue() -> String {
    catalogue().js_table().to_string()
}

/// The kinds of invocation the engine sends host.js (`InvocationKind`), by name.
#[op2]
#[serde]
fn op_host_invocation_kinds() -> Vec<&'static str> {
    super::InvocationKind::ALL
        .iter()
        .map(|k| k.name())
        .collect()
}

#[op2]
#[string]
fn op_host_plugin_info(state: &mut OpState) -> String {
    // `server.dataDirectory`: the plugin's own folder next to its settings, when the host keeps one.
    let shared = state.borrow::<Arc<PluginShared>>();
    let data = shared.storage_dir.as_ref().map(|d| d.join("data"));
    let data = data.filter(|d| crate::private_files::create_private_dir_all(d).is_ok());
    // `debugged`: a debugger may attach (`engine::debugger`); the console then reaches it too.
    let debugged = shared.debug.is_some();
    // `restricted`: the owner gave it a policy (`crate::permissions`); its environment is taken
    // again through it.
    let restricted = shared.permissions.is_some();
    serde_json::json!({
        "id": shared.id,
        "directory": shared.dir,
        "dataDirectory": data,
        "debugged": debugged,
        "restricted": restricted,
    })
    .to_string()
}

/// The commands the actor queued for the JS host, as one JSON array (see `HostCommand`). An
/// input the plugin's heap has no room for (as this string and then parsed) fails its call
/// instead of the string (engine/budget.rs).
#[op2]
#[string]
fn op_host_commands(scope: &mut v8::PinScope, state: &mut OpState) -> String {
    use super::HostCommand;
    let mut commands = std::mem::take(&mut state.borrow_mut::<ActorState>().commands);
    let input_len = |c: &HostCommand| match c {
        HostCommand::Invoke { input, .. } => input.as_ref().map_or(0, |s| s.len()),
        HostCommand::Abort { .. } => 0,
    };
    let size: usize = commands.iter().map(input_len).sum();
    if 2 * size > super::budget::SMALL {
        let room = super::budget::heap_room(scope, state);
        let mut left = room.bytes;
        let st = state.borrow_mut::<ActorState>();
        commands.retain(|c| {
            let len = input_len(c);
            if 2 * len <= left {
                left -= 2 * len;
                return true;
            }
            if let HostCommand::Invoke { id, kind, name, .. } = c {
                if let Some(pending) = st.pending.remove(id) {
                    st.stop_settled |= pending.stop;
                    let what = if name.is_empty() {
                        kind.name().to_string()
                    } else {
                        format!("{} {name}", kind.name())
                    };
                    let error = format!(
                        "The input of {what} is {len} bytes, more than {}",
                        room.describe(2)
                    );
                    pending.settle(&st.ledger, Err(CallError::Failed(error)));
                }
            }
            false
        });
    }
    let mut out = String::with_capacity(64 + commands.iter().map(input_len).sum::<usize>());
    out.push('[');
    for (i, command) in commands.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        command.write_json(&mut out);
    }
    out.push(']');
    out
}

/// Completes invocation `id`. Late settlements (after a deadline) are dropped.
#[op2(fast)]
fn op_host_settle<'s>(
    scope: &mut v8::PinScope<'s, '_>,
    state: &mut OpState,
    #[smi] id: u32,
    ok: bool,
    payload: v8::Local<'s, v8::String>,
) {
    let st = state.borrow_mut::<ActorState>();
    if let Some(pending) = st.pending.remove(&id) {
        st.stop_settled |= pending.stop;
        let payload = utf8_of(scope, payload);
        let outcome = if ok {
            Ok(payload)
        } else {
            Err(CallError::Failed(payload))
        };
        pending.settle(&st.ledger, outcome);
    }
}

/// A JS string as UTF-8, in the two passes over the engine's own UTF-8 that v8x's
/// `utf8_length` and `write_utf8_v2` make. deno_core's `#[string]` goes through `length()` and
/// a `ValueView`, each of which converts the whole string to UTF-16 under QuickJS: half the
/// cost of settling a hook call with a few hundred bytes of JSON.
fn utf8_of(scope: &mut v8::PinScope, s: v8::Local<v8::String>) -> String {
    let mut bytes = vec![0u8; s.utf8_length(scope)];
    let written = s.write_utf8_v2(scope, &mut bytes, v8::WriteFlags::kReplaceInvalidUtf8, None);
    bytes.truncate(written);
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A timer callback starts (`enter`) or returns. While it runs, the entry's deadline is the
/// earlier of its own and the turn budget (`Limits::turn_timeout`); a callback terminated there
/// never returns, which leaves `ActorState::timer` set for the actor to report.
#[op2(fast)]
fn op_host_timer(state: &mut OpState, enter: bool) {
    let st = state.borrow_mut::<ActorState>();
    if enter {
        let outer = st.watchdog.armed();
        let budget = std::time::Instant::now() + st.turn_timeout;
        if outer.is_none_or(|d| budget < d) {
            st.watchdog.retarget(budget);
        }
        st.timer = Some(outer);
    } else if let Some(Some(outer)) = st.timer.take() {
        st.watchdog.retarget(outer);
    }
}

/// `[bytes, text]`: `1/parts` of the room left in the plugin's heap, and the words naming it in
/// an error (js/node/child_process.js clamps an async `maxBuffer` to it).
#[op2]
#[serde]
fn op_host_heap_room(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[smi] parts: u32,
) -> (f64, String) {
    let parts = parts.max(1) as usize;
    let room = super::budget::heap_room(scope, state);
    ((room.bytes / parts) as f64, room.describe(parts))
}

/// `v8.getHeapStatistics()` and `process.memoryUsage()`: the isolate's own numbers, with the
/// plugin's heap cap as `heap_size_limit` (what it may grow to). In the order js/node/v8.js
/// names them.
#[op2]
#[serde]
fn op_host_heap_statistics(scope: &mut v8::PinScope, state: &mut OpState) -> Vec<f64> {
    let stats = scope.get_heap_statistics();
    let cap = state.borrow::<ActorState>().heap_bytes;
    [
        stats.total_heap_size(),
        stats.total_heap_size_executable(),
        stats.total_physical_size(),
        cap.saturating_sub(stats.used_heap_size()),
        stats.used_heap_size(),
        cap,
        stats.malloced_memory(),
        stats.peak_malloced_memory(),
        stats.number_of_native_contexts(),
        stats.number_of_detached_contexts(),
        stats.total_global_handles_size(),
        stats.used_global_handles_size(),
        stats.external_memory(),
    ]
    .map(|n| n as f64)
    .to_vec()
}

/// `process.exit(code)` / `process.abort()`: the plugin ends as a Paseo plugin's child process
/// that exits does. It fails with `Plugin process exited: <id>` (its calls, sessions and
/// registrations end with it); the daemon and the other plugins carry on. No more of its JS
/// runs: the isolate is terminated at once.
#[op2(fast)]
fn op_host_exit(state: &mut OpState, code: i32) {
    let shared = state.borrow::<Arc<PluginShared>>().clone();
    shared.logs.write(
        Stream::Stderr,
        &format!("[paseo] Plugin process exited with code {code}"),
    );
    let st = state.borrow_mut::<ActorState>();
    st.crashed
        .get_or_insert_with(|| format!("Plugin process exited: {}", shared.id));
    if let Some(handle) = state.try_borrow::<v8::IsolateHandle>() {
        handle.terminate_execution();
    }
}

#[op2(fast)]
fn op_host_log(state: &mut OpState, #[smi] stream: u32, #[string] message: &str) {
    let stream = if stream == 0 {
        Stream::Stdout
    } else {
        Stream::Stderr
    };
    state
        .borrow::<Arc<PluginShared>>()
        .logs
        .write(stream, message);
}

#[op2(fast)]
fn op_host_registrations(state: &mut OpState, #[string] json: &str) {
    if let Ok(regs) = serde_json::from_str::<Registrations>(json) {
        *state
            .borrow::<Arc<PluginShared>>()
            .registrations
            .lock()
            .unwrap() = regs;
    }
}

/// Writes one event to an open stream out of the plugin (a provider connection's events);
/// returns whether the stream is still open. An event over the message limit closes the
/// stream instead: its reader sees the end and says why.
#[op2(fast)]
fn op_host_stream(state: &mut OpState, #[string] stream: &str, #[string] event: &str) -> bool {
    let shared = state.borrow::<Arc<PluginShared>>();
    let mut streams = shared.streams.lock().unwrap();
    let Some(tx) = streams.get(stream) else {
        return false;
    };
    if event.len() > crate::hooks::MAX_MESSAGE_BYTES {
        tx.fail(&format!(
            "an event of {} bytes is over the limit of {} bytes (4 MiB)",
            event.len(),
            crate::hooks::MAX_MESSAGE_BYTES
        ));
        streams.remove(stream);
        return false;
    }
    if tx.send(event.to_string()).is_err() {
        streams.remove(stream);
        return false;
    }
    true
}

/// Validates what one handler returned; returns the request the next handler sees.
#[op2]
#[string]
fn op_hook_check(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] hook: &str,
    #[string] previous: &str,
    #[string] output: &str,
) -> Result<String, JsErrorBox> {
    let spec = catalogue()
        .get(hook)
        .ok_or_else(|| JsErrorBox::generic(format!("Unknown hook: {hook}")))?;
    let previous: serde_json::Value =
        serde_json::from_str(previous).map_err(|e| JsErrorBox::generic(e.to_string()))?;
    let output: serde_json::Value =
        serde_json::from_str(output).map_err(|e| JsErrorBox::generic(e.to_string()))?;
    let checked = validate::check_result(spec, &previous, output)
        .map(|v| v.to_string())
        .map_err(JsErrorBox::generic)?;
    super::budget::check(scope, state, checked.len(), || {
        format!("The checked result of hook {hook}")
    })?;
    Ok(checked)
}

#[derive(Serialize)]
struct CjsResolution {
    kind: &'static str,
    url: String,
    path: Option<String>,
}

/// Resolves a `require()` specifier from a CommonJS file.
#[op2]
#[serde]
fn op_cjs_resolve(
    state: &mut OpState,
    #[string] specifier: &str,
    #[string] filename: &str,
) -> Result<CjsResolution, JsErrorBox> {
    let loader = state.borrow::<std::rc::Rc<PluginModuleLoader>>().clone();
    let referrer = deno_core::ModuleSpecifier::from_file_path(filename)
        .map(|u| u.to_string())
        .unwrap_or_else(|_| filename.to_string());
    let url = loader
        .resolve_specifier(specifier, &referrer, false)
        .map_err(JsErrorBox::generic)?;
    Ok(match url.scheme() {
        "node" => CjsResolution {
            kind: "builtin",
            url: url.to_string(),
            path: None,
        },
        "file" => {
            let path = url
                .to_file_path()
                .map_err(|_| JsErrorBox::generic(format!("Not a file URL: {url}")))?;
            let kind = if path.extension().is_some_and(|e| e == "json") {
                "json"
            } else if loader.is_commonjs(&path) {
                "commonjs"
            } else {
                "esm"
            };
            CjsResolution {
                kind,
                url: url.to_string(),
                path: Some(path.to_string_lossy().into_owned()),
            }
        }
        _ => CjsResolution {
            kind: "host",
            url: url.to_string(),
            path: None,
        },
    })
}

#[op2]
#[string]
fn op_cjs_source(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    #[string] filename: &str,
) -> Result<String, JsErrorBox> {
    let loader = state.borrow::<std::rc::Rc<PluginModuleLoader>>().clone();
    let source = loader
        .cjs_source(std::path::Path::new(filename))
        .map_err(JsErrorBox::generic)?;
    super::budget::check(scope, state, source.len(), || {
        format!("The source of {filename}")
    })?;
    Ok(source)
}

deno_core::extension!(
    paseo_host,
    ops = [
        op_hook_catalogue,
        op_host_invocation_kinds,
        op_host_plugin_info,
        op_host_commands,
        op_host_settle,
        op_host_timer,
        op_host_heap_room,
        op_host_heap_statistics,
        op_host_log,
        op_host_exit,
        op_host_registrations,
        op_host_stream,
        op_hook_check,
        op_cjs_resolve,
        op_cjs_source,
    ],
);
