//! What ops may hand a plugin, and what happens when an op panics.
//!
//! A buffer an op returns is copied into the plugin's heap (v8x's QuickJS backend copies owned
//! backing stores), where it counts against the heap cap. When that copy cannot be allocated,
//! deno_core's conversion unwraps the missing `ArrayBuffer` (`v8::ArrayBuffer::with_backing_store`)
//! inside the op's `extern "C"` callback, where a panic cannot unwind: the whole process aborts.
//! A string or `#[serde]` value that cannot be allocated does the same one step later: deno_core
//! builds the JS error for it with `v8::String::new(..).unwrap()` (`error.rs`, `to_v8_error`).
//! So ops that can return a large value measure the heap first (`heap_room`, `check`) and fail
//! with a JS error instead. Values up to `SMALL` skip the measurement (it walks the heap): when
//! an allocation fails, the near-heap-limit callback (engine/mod.rs) stops the plugin and raises
//! the limit once by an eighth of the cap, which holds them for any cap a plugin boots in.

use deno_core::{v8, OpState};
use deno_error::JsErrorBox;

use std::sync::Arc;

use super::{ActorState, PluginShared};

/// Values up to this size are returned without measuring the heap (see the module comment): an
/// eighth of a 2 MiB cap, less than any plugin boots in.
pub(crate) const SMALL: usize = 256 * 1024;

/// The largest buffer an op returns even under a bigger heap cap: Node's `kIoMaxLength` (2 GiB),
/// above which its `readFile` fails with `ERR_FS_FILE_TOO_LARGE` too.
pub(crate) const IO_MAX: usize = 2 * 1024 * 1024 * 1024;

/// How much more the plugin's heap may take now, and the words to say so in an error.
pub(crate) struct HeapRoom {
    /// Bytes left under the heap cap (at most `IO_MAX`).
    pub bytes: usize,
    cap: usize,
    plugin: String,
}

impl HeapRoom {
    /// `the 1234 bytes plugin <id> may still allocate (heap cap 32 MiB)`, for a share `1/parts`
    /// of the room (`a quarter of …` and so on), as error messages name the limit.
    pub fn describe(&self, parts: usize) -> String {
        let share = match parts {
            1 => String::new(),
            2 => "half of ".into(),
            3 => "a third of ".into(),
            4 => "a quarter of ".into(),
            n => format!("1/{n} of "),
        };
        format!(
            "{share}the {} bytes plugin {} may still allocate (heap cap {} MiB)",
            self.bytes,
            self.plugin,
            self.cap / (1024 * 1024)
        )
    }
}

/// Measures the room left in the calling plugin's heap.
pub(crate) fn heap_room(scope: &mut v8::PinScope, state: &OpState) -> HeapRoom {
    let st = state.borrow::<ActorState>();
    let used = scope.get_heap_statistics().total_heap_size();
    HeapRoom {
        bytes: st.heap_bytes.saturating_sub(used).min(IO_MAX),
        cap: st.heap_bytes,
        plugin: state.borrow::<Arc<PluginShared>>().id.clone(),
    }
}

/// Fails unless the plugin's heap has room for a value of `len` bytes; `what` names the value in
/// the error (`The result of hook x is 123 bytes, more than the …`).
pub(crate) fn check(
    scope: &mut v8::PinScope,
    state: &OpState,
    len: usize,
    what: impl FnOnce() -> String,
) -> Result<(), JsErrorBox> {
    if len <= SMALL {
        return Ok(());
    }
    let room = heap_room(scope, state);
    if len <= room.bytes {
        return Ok(());
    }
    Err(JsErrorBox::range_error(format!(
        "{} is {len} bytes, more than {}",
        what(),
        room.describe(1)
    )))
}

/// Runs an op's body, turning a panic into a failure of the plugin: the op throws, the isolate
/// is terminated, and the actor stops the plugin with the reason once JS has unwound (a panic
/// must not reach the op's `extern "C"` callback, where it would abort the process).
pub(crate) fn contain<T>(
    state: &mut OpState,
    op: &str,
    body: impl FnOnce(&mut OpState) -> Result<T, JsErrorBox>,
) -> Result<T, JsErrorBox> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&mut *state))) {
        Ok(result) => result,
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            let id = &state.borrow::<Arc<PluginShared>>().id;
            let reason = format!("Plugin {id} crashed in {op}: {text}");
            let st = state.borrow_mut::<ActorState>();
            st.crashed.get_or_insert(reason.clone());
            if let Some(handle) = state.try_borrow::<v8::IsolateHandle>() {
                handle.terminate_execution();
            }
            Err(JsErrorBox::generic(reason))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;
    use std::sync::Arc;

    use super::*;
    use crate::engine::watchdog::Watchdog;
    use crate::engine::{ActorState, PluginShared};
    use crate::logs::LogTail;

    // No op panics through the public API any more (the last one, spawnSync's timeout past what
    // a Duration holds, is fixed); this is the guard for the next one.
    #[test]
    fn a_panic_inside_an_op_body_fails_the_op_marks_the_plugin_crashed_and_terminates_it() {
        let mut js = deno_core::JsRuntime::new(Default::default());
        let handle = js.v8_isolate().thread_safe_handle();
        let shared = Arc::new(PluginShared::new(
            "panicky",
            Default::default(),
            Arc::new(LogTail::new("panicky", None)),
        ));
        let mut state = OpState::new(None);
        let watchdog = Rc::new(Watchdog::start("panicky", handle.clone(), Box::new(|| {})));
        state.put(shared);
        state.put(ActorState::new(
            1 << 20,
            std::time::Duration::from_secs(1),
            watchdog,
        ));
        state.put(handle);

        assert_eq!(contain(&mut state, "op_fine", |_| Ok(7)).unwrap(), 7);
        assert!(state.borrow::<ActorState>().crashed.is_none());

        let err = contain(&mut state, "op_broken", |_| -> Result<(), JsErrorBox> {
            panic!("index out of bounds")
        })
        .unwrap_err();
        const REASON: &str = "Plugin panicky crashed in op_broken: index out of bounds";
        assert_eq!(err.to_string(), REASON);
        assert_eq!(
            state.borrow::<ActorState>().crashed.as_deref(),
            Some(REASON)
        );
        // V8 reports a termination only while JS runs (here none does): the next script ends.
        #[cfg(not(feature = "v8"))]
        assert!(js.v8_isolate().is_execution_terminating());
        #[cfg(feature = "v8")]
        assert!(js.execute_script("next", "1 + 1").is_err());
    }
}
