//! Booting an isolate before its plugin is known, and binding it to one: the `Standby` handle,
//! the isolate's thread from spawn to end (`thread_main`, `actor_main`), and the actor's boot
//! (the engine, the host's bootstrap, preloaded host packages) and bind.

use std::future::Future;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use deno_core::ModuleSpecifier;
use tokio::sync::mpsc;

use super::actor::{Actor, Exit};
use super::config::{Binding, EngineConfig, Limits};
use super::isolate::Isolate;
use super::protocol::{ActorState, CallError, Ledger, Message};
use super::shared::PluginShared;
use super::stats::{own_cpu_time, PluginStats};
use super::watchdog::{self, Watchdog};
use super::{modules, snapshot};
use crate::logs::{LogTail, Stream};

/// An isolate booted (or booting) on its own thread with the engine and the host's JS, but no
/// plugin yet. Binding it to a plugin skips the engine's start-up, which is most of a plugin's
/// cold start; the host keeps one ready for the next load or reload.
pub struct Standby {
    tx: mpsc::UnboundedSender<Message>,
    thread: std::thread::JoinHandle<()>,
    heap_bytes: usize,
    preload: Vec<ModuleSpecifier>,
    ready: tokio::sync::watch::Receiver<bool>,
    spin: Duration,
}

impl Standby {
    pub fn spawn(engine: EngineConfig) -> Standby {
        let (tx, rx) = mpsc::unbounded_channel();
        let (ready_tx, ready) = tokio::sync::watch::channel(false);
        let heap_bytes = engine.heap_bytes;
        let preload = engine.preload.clone();
        let spin = engine.spin;
        let thread = std::thread::Builder::new()
            .name("plugin:standby".into())
            .spawn(move || thread_main(engine, rx, ready_tx))
            .expect("spawn plugin thread");
        Standby {
            tx,
            thread,
            heap_bytes,
            preload,
            ready,
            spin,
        }
    }

    /// The heap cap it was created with; only plugins with the same cap can use it.
    pub fn heap_bytes(&self) -> usize {
        self.heap_bytes
    }

    /// The host-package modules it evaluates while booting (`EngineConfig::preload`).
    pub fn preload(&self) -> &[ModuleSpecifier] {
        &self.preload
    }

    /// Resolves once the engine and the host's JS are up (or failed to start); it does not
    /// borrow the standby, so a host can wait without holding its lock.
    pub fn ready_signal(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut ready = self.ready.clone();
        async move {
            let _ = ready.wait_for(|r| *r).await;
        }
    }

    /// Hands the isolate to a plugin. Calls made on the returned handle queue behind the boot
    /// if it is still in progress.
    pub fn bind(self, binding: Binding) -> Isolate {
        let shared = binding.shared.clone();
        let _ = self.tx.send(Message::Bind(Box::new(binding)));
        Isolate {
            tx: self.tx,
            next_token: Default::default(),
            shared,
            thread: Some(self.thread),
            spin: self.spin,
        }
    }

    /// Ends an unused standby and waits for its thread (dropping it ends the thread too, without
    /// waiting): the channel closes before any binding arrives.
    pub fn join(self) {
        let Standby { tx, thread, .. } = self;
        drop(tx);
        let _ = thread.join();
    }
}

/// The body of an isolate's thread: a current-thread runtime driving the actor; a panic marks
/// the plugin (once bound) failed with the reason.
fn thread_main(
    engine: EngineConfig,
    rx: mpsc::UnboundedReceiver<Message>,
    ready: tokio::sync::watch::Sender<bool>,
) {
    let bound: Arc<Mutex<Option<Arc<PluginShared>>>> = Arc::default();
    let ours = bound.clone();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("plugin thread runtime")
            .block_on(actor_main(engine, rx, ready, ours))
    }));
    let shared = bound.lock().unwrap().clone();
    if let (Err(panic), Some(shared)) = (result, shared) {
        let reason = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        let reason = format!("Plugin {} crashed: {reason}", shared.id);
        shared
            .logs
            .write(Stream::Stderr, &format!("[paseo] {reason}"));
        shared.end_streams(&reason);
        shared.fatal.lock().unwrap().get_or_insert(reason);
    }
}

/// Names the calling thread (as /proc shows it: at most 15 bytes).
pub(crate) fn name_current_thread(name: &str) {
    #[cfg(target_os = "linux")]
    {
        let mut end = name.len().min(15);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        if let Ok(name) = std::ffi::CString::new(&name[..end]) {
            // SAFETY: a NUL-terminated name of at most 15 bytes, for the calling thread.
            unsafe { libc::pthread_setname_np(libc::pthread_self(), name.as_ptr()) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = name;
}

async fn actor_main(
    engine: EngineConfig,
    mut rx: mpsc::UnboundedReceiver<Message>,
    ready: tokio::sync::watch::Sender<bool>,
    bound: Arc<Mutex<Option<Arc<PluginShared>>>>,
) {
    let booted = Actor::boot(engine, bound.clone()).await;
    let _ = ready.send(true);
    // A standby waits here for its plugin; an unused one ends when the host drops it.
    let binding = loop {
        match rx.recv().await {
            Some(Message::Bind(binding)) => break binding,
            Some(_) => continue,
            None => return,
        }
    };
    let shared = binding.shared.clone();
    *bound.lock().unwrap() = Some(shared.clone());
    name_current_thread(&format!("plugin:{}", shared.id));
    let exit = match booted {
        Ok(mut actor) => {
            actor.bind(*binding);
            let exit = actor.run(&mut rx).await;
            // Record the reason before anyone waiting hears about it.
            if let Exit::Fatal(reason) = &exit {
                shared.fatal.lock().unwrap().get_or_insert(reason.clone());
            }
            actor.fail_pending(&exit);
            exit
        }
        Err(e) => Exit::Fatal(format!(
            "Plugin {} could not start its engine: {e}",
            shared.id
        )),
    };
    if let Exit::Fatal(reason) = &exit {
        shared.fatal.lock().unwrap().get_or_insert(reason.clone());
    }
    let reason = match exit {
        Exit::Fatal(r) => r,
        Exit::Closed => format!("Plugin stopped: {}", shared.id),
    };
    shared.end_streams(&reason);
    rx.close();
    // The host stops reading this thread's clock once the channel is closed (`Isolate::
    // cpu_time`); from now on its CPU time is counted with the plugin's ended threads.
    PluginStats::add(
        &shared.stats.cpu_ended_ns,
        u64::try_from(own_cpu_time().as_nanos()).unwrap_or(u64::MAX),
    );
    while let Ok(message) = rx.try_recv() {
        if let Message::Call(call) = message {
            call.reply.send(Err(CallError::Stopped(reason.clone())));
        }
    }
}

impl Actor {
    /// Starts the engine and runs the host's bootstrap, for no plugin yet (see `bind`). Errors
    /// are the engine's own text; the caller names the plugin.
    async fn boot(
        engine: EngineConfig,
        bound: Arc<Mutex<Option<Arc<PluginShared>>>>,
    ) -> Result<Actor, String> {
        let started = Instant::now();
        // Stands in for the plugin until `bind`; nothing a plugin owns is reachable before.
        let shared = Arc::new(PluginShared::new(
            "(standby)",
            PathBuf::new(),
            Arc::new(LogTail::new("(standby)", None)),
        ));
        let loader = Rc::new(modules::PluginModuleLoader::new(
            PathBuf::new(),
            engine.host_js_dir.clone(),
        ));
        let heap = engine.heap_bytes;
        // From the startup snapshot, when there is one: the bootstrap is evaluated already.
        let (mut js, restored) = snapshot::runtime(&engine, loader.clone(), heap)?;
        let runtime_ms = started.elapsed().as_secs_f64() * 1e3;
        let handle = js.v8_isolate().thread_safe_handle();
        let heap_exceeded = Arc::new(AtomicBool::new(false));
        {
            let flag = heap_exceeded.clone();
            let handle = handle.clone();
            js.add_near_heap_limit_callback(move |current, _initial| {
                // Room to unwind the terminated script is granted once; a script still
                // allocating afterwards (native loops check termination late) gets no more.
                let first = !flag.swap(true, Ordering::SeqCst);
                handle.terminate_execution();
                if first {
                    current + current / 8
                } else {
                    current
                }
            });
        }
        // The plugin the isolate serves once bound (nothing can wedge a standby's JS).
        let on_wedged = Box::new(move || {
            if let Some(shared) = bound.lock().unwrap().clone() {
                shared.wedged(&format!(
                    "Plugin {} stopped answering: its isolate stayed in native code {} s past a deadline, where it cannot be interrupted, and was abandoned",
                    shared.id,
                    watchdog::WEDGED_AFTER.as_secs()
                ));
            }
        });
        let watchdog = Rc::new(Watchdog::start("plugin:standby", handle.clone(), on_wedged));
        let state = js.op_state();
        state.borrow_mut().put(shared.clone());
        state.borrow_mut().put(ActorState::new(
            heap,
            Limits::default().turn_timeout,
            watchdog.clone(),
        ));
        state.borrow_mut().put(handle);
        state.borrow_mut().put(loader.clone());
        let mut actor = Actor {
            js,
            watchdog,
            heap_exceeded,
            state,
            limits: Limits {
                heap_bytes: heap,
                ..Limits::default()
            },
            next_id: 0,
            shared,
            timer: Box::pin(tokio::time::sleep(Duration::from_secs(3600))),
            pump: None,
            spin: engine.spin,
            turn_budget: false,
            inspector: engine.inspector,
            paused_seen: Duration::ZERO,
        };
        let setup_ms = started.elapsed().as_secs_f64() * 1e3;
        actor.bootstrap(restored).await?;
        let start_ms = started.elapsed().as_secs_f64() * 1e3;
        actor.pump = Some(actor.host_function("pump")?);
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1e3,
            runtime_ms,
            setup_ms,
            start_ms,
            snapshot = restored,
            "isolate booted"
        );
        if !engine.preload.is_empty() {
            // Best effort: a package that fails here fails the same way when the plugin imports it.
            loader.set_preload(engine.preload);
            let _ = actor
                .evaluate(&ModuleSpecifier::parse("paseo:internal/preload").unwrap())
                .await;
        }
        Ok(actor)
    }

    /// Gives the booted isolate its plugin: identity, folder, limits, storage and thread names.
    fn bind(&mut self, binding: Binding) {
        let Binding { shared, limits } = binding;
        self.watchdog
            .rename(&format!("plugin:{}:watchdog", shared.id));
        let mut state = self.state.borrow_mut();
        let loader = state.borrow::<Rc<modules::PluginModuleLoader>>();
        loader.bind(shared.dir.clone(), shared.host_packages.clone());
        if let Some(port) = shared.debug.as_ref().filter(|_| self.inspector) {
            loader.set_debugging(Some(port.brk));
            port.attach(Some(self.js.inspector().get_session_sender()));
            self.watchdog.watch_pauses(port.clone());
            self.paused_seen = port.clock.paused_total();
        }
        state.put(shared.clone());
        let actor_state = state.borrow_mut::<ActorState>();
        actor_state.turn_timeout = limits.turn_timeout;
        actor_state.ledger = Ledger {
            stats: shared.stats.clone(),
            recorder: shared.recorder.clone(),
        };
        drop(state);
        self.limits = Limits {
            heap_bytes: self.limits.heap_bytes,
            ..limits
        };
        self.shared = shared;
    }

    /// Installs the globals and the host module before any plugin code runs. A runtime booted
    /// from the startup snapshot (`restored`) has them already and only makes what is per
    /// isolate.
    async fn bootstrap(&mut self, restored: bool) -> Result<(), String> {
        if restored {
            return snapshot::start(&mut self.js);
        }
        self.evaluate(&snapshot::bootstrap_url()).await
    }

    /// Loads and evaluates one module (and its imports) while booting, before any plugin is
    /// bound, under the load timeout.
    async fn evaluate(&mut self, url: &ModuleSpecifier) -> Result<(), String> {
        let deadline = Instant::now() + self.limits.load_timeout;
        self.watchdog.arm(deadline);
        let result = async {
            let id = self.js.load_side_es_module(url).await?;
            let eval = self.js.mod_evaluate(id);
            self.js.run_event_loop(Default::default()).await?;
            eval.await
        }
        .await;
        self.watchdog.disarm();
        result.map_err(|e| e.to_string())
    }

    /// A function of the JS host object, kept to be called without compiling anything.
    fn host_function(
        &mut self,
        name: &str,
    ) -> Result<deno_core::v8::Global<deno_core::v8::Function>, String> {
        use deno_core::v8;
        let value = self
            .js
            .execute_script(
                "paseo:host",
                format!("globalThis[Symbol.for('paseo.host')].{name}"),
            )
            .map_err(|e| e.to_string())?;
        let js = &mut self.js;
        deno_core::scope!(scope, js);
        let local = v8::Local::new(scope, value);
        let function = v8::Local::<v8::Function>::try_from(local)
            .map_err(|_| format!("host.{name} is not a function"))?;
        Ok(v8::Global::new(scope, function))
    }
}
