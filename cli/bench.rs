//! `paseo bench`: what the embedded host costs per plugin, measured the way the Node anchor in
//! `shared/bench/node-host/host.mjs` measures a forked-child host (same payloads, same
//! percentiles, same "fire all, await all" notifications), so the two print comparable JSON.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use paseo_plugin_runtime::host::manifest::Manifest;
use paseo_plugin_runtime::{HostOptions, OpenContext, PluginHost};
use serde_json::{json, Value};

#[derive(Clone)]
struct Options {
    plugin: PathBuf,
    plugins: usize,
    iterations: usize,
    events: usize,
    hook: String,
    /// Also time calls of this agent tool (attached by the plugin in `agent.open.before`).
    tool: Option<String>,
    tool_input: serde_json::Value,
    bytecode_cache: Option<PathBuf>,
    snapshot_cache: Option<PathBuf>,
    standby: bool,
    spin: std::time::Duration,
    json: bool,
}

/// The options from the command line, with their defaults.
fn options(a: &crate::args::BenchArgs) -> Options {
    Options {
        plugin: a.plugin.clone(),
        plugins: a.plugins,
        iterations: a.iterations,
        events: a.events,
        hook: a.hook.clone(),
        tool: a.tool.clone(),
        tool_input: a.tool_input.clone().unwrap_or_else(|| json!({})),
        bytecode_cache: a.bytecode_cache.clone(),
        snapshot_cache: a.snapshot_cache.clone(),
        standby: !a.no_standby,
        spin: a
            .spin_us
            .map(std::time::Duration::from_micros)
            .unwrap_or(paseo_plugin_runtime::engine::SPIN),
        json: a.json,
    }
}

/// This process's resident set, as the Node anchor reads its children's.
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// host.mjs's percentile: the sorted sample at floor(len × p).
fn pct(xs: &[f64], p: f64) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() as f64 * p) as usize).min(s.len() - 1)]
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// "cold" when the cache folder is missing or empty before the run, "warm" otherwise.
fn cache_state(dir: Option<&Path>) -> &'static str {
    match dir {
        None => "off",
        Some(d) if std::fs::read_dir(d).is_ok_and(|mut e| e.next().is_some()) => "warm",
        Some(_) => "cold",
    }
}

pub async fn run(args: &crate::args::BenchArgs) -> Result<ExitCode, String> {
    let o = options(args);
    let spec = paseo_plugin_runtime::hooks::catalogue()
        .get(&o.hook)
        .ok_or(format!("unknown hook: {}", o.hook))?;
    if !spec.returns_request {
        return Err(format!(
            "bench --hook needs a waiting request hook, {} is not one",
            o.hook
        ));
    }
    let manifest = Manifest::read(
        &o.plugin
            .canonicalize()
            .map_err(|_| format!("Plugin directory not found: {}", o.plugin.display()))?,
    )
    .map_err(|e| e.to_string())?;
    let bytecode_cache = cache_state(o.bytecode_cache.as_deref());
    // The bench decides the cache, not the caller's environment (the engine reads it once).
    std::env::remove_var("V82JSC_BC_CACHE_DIR");
    std::env::remove_var("V82JSC_NO_BC_CACHE");
    let policy = args.allow.policy()?;
    let host = Arc::new(PluginHost::new(HostOptions {
        bytecode_cache_dir: o.bytecode_cache.clone(),
        snapshot_cache_dir: o.snapshot_cache.clone(),
        standby: o.standby,
        spin: o.spin,
        permissions: policy.map(|policy| {
            let lookup: paseo_plugin_runtime::host::PolicyLookup =
                Arc::new(move |_id: &str| Some(Ok(policy.clone())));
            lookup
        }),
        ..HostOptions::default()
    }));
    // Measured from a task on the runtime's workers, where a daemon dispatches hooks, not from
    // the thread blocked in `block_on` (a parked main thread adds ~50 µs to each round trip here).
    let outcome = {
        let (host, id) = (host.clone(), manifest.id.clone());
        let o = o.clone();
        tokio::spawn(async move { measure(&host, &o, &id).await })
            .await
            .map_err(|e| e.to_string())?
    };
    host.shutdown().await;
    let mut result = outcome?;
    let fields = result.as_object_mut().unwrap();
    fields.insert("host".into(), json!("paseo-embedded"));
    fields.insert(
        "engine".into(),
        json!(paseo_plugin_runtime::engine::backend::NAME),
    );
    fields.insert("plugins".into(), json!(o.plugins));
    fields.insert("bytecode_cache".into(), json!(bytecode_cache));
    fields.insert("standby".into(), json!(o.standby));
    // Whether the isolates booted from a startup snapshot made by this run or read from the
    // cache (V8), or evaluated the host's JS each (QuickJS, PASEO_NO_SNAPSHOT).
    use paseo_plugin_runtime::engine::snapshot;
    fields.insert(
        "snapshot".into(),
        json!(match snapshot::origin() {
            Some(snapshot::Origin::Made) => "made",
            Some(snapshot::Origin::Read) => "read",
            None => "none",
        }),
    );
    fields.insert("spin_us".into(), json!(o.spin.as_micros() as u64));
    // What the process keeps of V8's code caches of host-provided packages (zod), counted once
    // in rss_kb_process, not per plugin; 0 on QuickJS.
    let caches = paseo_plugin_runtime::engine::code_cache::stats();
    fields.insert("code_cache_modules".into(), json!(caches.modules));
    fields.insert("code_cache_kb".into(), json!(caches.bytes.div_ceil(1024)));
    if o.json {
        println!("{result}");
    } else {
        for (k, v) in fields.iter() {
            println!("{k:<26} {v}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn measure(host: &Arc<PluginHost>, o: &Options, manifest_id: &str) -> Result<Value, String> {
    // Cold start and memory: N sequential loads, as host.mjs starts its children one by one.
    // With a standby, the host boots one isolate ahead when it starts; the loads begin once it
    // is ready (as the daemon's first install would) and each load waits for the previous
    // load's refill, so N > 1 still pays for N - 1 engine start-ups.
    let ids: Vec<String> = (1..=o.plugins)
        .map(|i| format!("{manifest_id}-{i}"))
        .collect();
    host.standby_ready().await;
    let rss_before = rss_kb();
    let t0 = Instant::now();
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            host.standby_ready().await;
        }
        host.load_with(&o.plugin, Some(id), None)
            .await
            .map_err(|e| e.to_string())?;
    }
    let cold_ms = t0.elapsed().as_secs_f64() * 1000.0 / o.plugins as f64;
    // The memory after N plugins: the standby booted after the last load is the same one the
    // `before` figure already held.
    host.standby_ready().await;
    let rss_after = rss_kb();
    let heap_kb = host.heap_size(&ids[0]).await.unwrap_or(0) / 1024;
    let first = &ids[0];
    let request = json!({ "agentId": "agent-123", "workspaceId": "workspace-456", "provider": "codex", "cwd": "/projects/shop",
        "title": "Workspace notes", "labels": { "notes/enabled": "true", "tools": "on" }, "tools": [], "mcpServers": {}, "reason": "resume",
        "purpose": "interactive", "env": { "COMPANY_ENV": "development" } });
    let open = OpenContext::default();

    // The chain: one request through all N copies in plugin-ID order, as a daemon with N
    // plugins on this hook runs it (scripts/node-chain.mjs does the same with N children).
    // At most 200,000 plugin calls, so N = 50 stays a few seconds.
    let chain_runs = o.iterations.min(200_000 / o.plugins.max(1)).max(50);
    let mut chain = Vec::with_capacity(chain_runs);
    for i in 0..(200 + chain_runs) {
        let s = Instant::now();
        host.run_hook(&o.hook, request.clone(), &open)
            .await
            .map_err(|e| e.to_string())?;
        if i >= 200 {
            chain.push(s.elapsed().as_secs_f64() * 1e6);
        }
    }
    // host.mjs talks to its first child only; run_hook reaches every subscriber, so the other
    // copies leave before the single-plugin latency runs.
    for id in &ids[1..] {
        host.stop(id).await.map_err(|e| e.to_string())?;
    }

    for _ in 0..200 {
        host.run_hook(&o.hook, request.clone(), &open)
            .await
            .map_err(|e| e.to_string())?;
    }
    let mut lat = Vec::with_capacity(o.iterations);
    for _ in 0..o.iterations {
        let s = Instant::now();
        host.run_hook(&o.hook, request.clone(), &open)
            .await
            .map_err(|e| e.to_string())?;
        lat.push(s.elapsed().as_secs_f64() * 1e6);
    }

    let floor = thread_floor(o.iterations, o.spin).await;

    // Agent tool round trips: validation in Rust, zod parse and execute in the plugin, result.
    let mut tool_lat = Vec::new();
    if let Some(tool) = &o.tool {
        for i in 0..(200 + o.iterations) {
            let s = Instant::now();
            let result = host
                .call_tool(
                    "agent-123",
                    tool,
                    o.tool_input.clone(),
                    std::future::pending(),
                )
                .await
                .map_err(|e| e.to_string())?;
            if result.is_error {
                return Err(format!(
                    "tool {tool} failed: {}",
                    result.text.unwrap_or_default()
                ));
            }
            if i >= 200 {
                tool_lat.push(s.elapsed().as_secs_f64() * 1e6);
            }
        }
    }

    // Notifications: fire all, then await all. First as the daemon fires them (`notify`:
    // queued from one task, nobody waits for each, done once the host has none in flight),
    // then as separate awaited calls (`run_hook` in K spawned tasks), which costs each a task
    // and a wake-up. Node's anchor sends K IPC messages and awaits K replies.
    let agent = json!({ "id": "agent-123", "workspaceId": "workspace-456", "parentAgentId": null, "provider": "codex",
        "cwd": "/projects/shop", "title": null });
    let listens = host
        .plugin(first)
        .is_some_and(|p| p.registrations.has_hook("agent.turn.before"));
    let event = |i: usize| json!({ "agent": agent, "turnId": format!("t{i}") });
    let te = Instant::now();
    for i in 0..o.events {
        host.notify_json("agent.turn.before", event(i));
    }
    host.notifications_settled().await;
    let events_per_s = o.events as f64 / te.elapsed().as_secs_f64();

    let te = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..o.events {
        let (host, event) = (host.clone(), event(i));
        tasks.spawn(async move {
            host.run_hook("agent.turn.before", event, &OpenContext::default())
                .await
                .map(|_| ())
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
    }
    let run_hook_events_per_s = o.events as f64 / te.elapsed().as_secs_f64();
    // A notification that failed is in the plugin's log: a measurement that includes failures
    // is not one.
    let failures = host
        .logs(first)
        .iter()
        .filter(|l| {
            l.message
                .contains("Lifecycle hook agent.turn.before failed")
        })
        .count();
    if failures > 0 {
        return Err(format!("{failures} notifications failed in {first}"));
    }

    // An author's edit-and-retry: each reload finds the standby its previous one left booting.
    let mut reloads = Vec::new();
    for _ in 0..10 {
        host.standby_ready().await;
        let s = Instant::now();
        host.reload(first).await.map_err(|e| e.to_string())?;
        reloads.push(s.elapsed().as_secs_f64() * 1000.0);
    }

    Ok(json!({
        "cold_start_ms_per_plugin": round(cold_ms, 2),
        "rss_kb_per_plugin": (rss_after.saturating_sub(rss_before) as f64 / o.plugins as f64).round() as u64,
        "rss_kb_process": rss_after,
        // The first plugin's JS heap, part of its rss_kb_per_plugin.
        "js_heap_kb_per_plugin": heap_kb,
        // One request through all N plugins (N = 1: the same as before_rtt_us_*).
        "chain_rtt_us_p50": round(pct(&chain, 0.5), 1),
        "chain_rtt_us_p99": round(pct(&chain, 0.99), 1),
        "chain_us_per_plugin_p50": round(pct(&chain, 0.5) / o.plugins as f64, 1),
        "before_rtt_us_p50": round(pct(&lat, 0.5), 1),
        "before_rtt_us_p99": round(pct(&lat, 0.99), 1),
        // The tail in more detail (host.mjs prints p50 and p99 only).
        "before_rtt_us_p90": round(pct(&lat, 0.9), 1),
        "before_rtt_us_p999": round(pct(&lat, 0.999), 1),
        "before_rtt_us_max": round(pct(&lat, 1.0), 1),
        // The same number of round trips to a thread that waits as an isolate's does, with no
        // JS and no JSON: what this machine's thread hand-offs alone cost, measured beside.
        "floor_rtt_us_p50": round(pct(&floor, 0.5), 1),
        "floor_rtt_us_p99": round(pct(&floor, 0.99), 1),
        "events_per_s": events_per_s.round() as u64,
        "run_hook_events_per_s": run_hook_events_per_s.round() as u64,
        // false: the plugin has no agent.turn.before handler, so the host skips it without
        // entering JS (the Node anchor still makes the IPC round trip to its child).
        "events_reach_plugin": listens,
        "reload_ms": round(pct(&reloads, 0.5), 2),
        "tool_rtt_us_p50": (!tool_lat.is_empty()).then(|| round(pct(&tool_lat, 0.5), 1)),
        "tool_rtt_us_p99": (!tool_lat.is_empty()).then(|| round(pct(&tool_lat, 0.99), 1)),
    }))
}

/// `iterations` round trips (after 200 unmeasured) from this task to a thread that looks for
/// its next message for `spin` and then sleeps, as an isolate's thread does, and answers at
/// once; the caller looks for the answer for `spin` too, as `Isolate::call` does. The floor
/// under `before_rtt_us_*` on this machine at this moment, in µs.
async fn thread_floor(iterations: usize, spin: std::time::Duration) -> Vec<f64> {
    use paseo_plugin_runtime::engine::spin_until;
    use tokio::sync::{mpsc, oneshot};
    let (tx, mut rx) = mpsc::unbounded_channel::<oneshot::Sender<()>>();
    let thread = std::thread::spawn(move || loop {
        spin_until(spin, || !rx.is_empty() || rx.is_closed());
        match rx.blocking_recv() {
            Some(reply) => {
                let _ = reply.send(());
            }
            None => return,
        }
    });
    let mut lat = Vec::with_capacity(iterations);
    for i in 0..200 + iterations {
        let s = Instant::now();
        let (reply, mut answer) = oneshot::channel();
        if tx.send(reply).is_err() {
            break;
        }
        let early = spin_until(spin, || {
            !matches!(answer.try_recv(), Err(oneshot::error::TryRecvError::Empty))
        });
        if !early {
            let _ = answer.await;
        }
        if i >= 200 {
            lat.push(s.elapsed().as_secs_f64() * 1e6);
        }
    }
    drop(tx);
    let _ = tokio::task::spawn_blocking(move || thread.join()).await;
    lat
}
