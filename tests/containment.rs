//! Containment, proven through the public API: a runaway handler, a heap bomb, ops asked for
//! more than the plugin's heap can take, a spinning timer, a plugin stopped or dying with calls
//! pending, and reloads under a steady load of notifications and waiting hooks. Fixtures:
//! tests/fixtures/containment-*.
mod common;

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use paseo_plugin_runtime::{HostOptions, Limits, OpenContext, PluginHost, PluginStatus};
use serde_json::{json, Value};

const MIB: usize = 1024 * 1024;

fn limits(hook_ms: u64) -> Limits {
    Limits {
        hook_timeout: Duration::from_millis(hook_ms),
        ..Limits::default()
    }
}

fn host_with(limits: Limits) -> PluginHost {
    PluginHost::new(HostOptions {
        limits,
        ..HostOptions::default()
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// `agent.create.before`, the hook of the bystander plugin `containment-other`.
async fn create(host: &PluginHost) -> Result<Value, String> {
    let request = json!({ "config": { "provider": "codex", "cwd": "/projects/shop" }, "initialPrompt": "hi" });
    host.run_hook("agent.create.before", request, &OpenContext::default())
        .await
        .map_err(|e| e.to_string())
}

fn open_with(labels: Value, env: Value) -> Value {
    let mut request = open_request();
    request["labels"] = labels;
    request["env"] = env;
    request
}

static SERIAL: Mutex<()> = Mutex::new(());

/// Cargo runs the tests of this file as threads of one process. The tests that measure latency,
/// peak memory or threads run themselves again alone in a child process (one such child at a
/// time), so that what they measure is their own. Returns true in the child, which does the work.
fn alone(test: &str) -> bool {
    if std::env::var("CONTAINMENT_CHILD").as_deref() == Ok(test) {
        return true;
    }
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            test,
            "--exact",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CONTAINMENT_CHILD", test)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    print!("{text}");
    assert!(
        out.status.success(),
        "{test} failed in its own process:\n{text}"
    );
    assert!(
        text.contains("1 passed"),
        "{test} did not run in its own process:\n{text}"
    );
    false
}

#[test]
fn runaway_loop_is_stopped_near_its_deadline_and_neighbours_keep_answering() {
    if !alone("runaway_loop_is_stopped_near_its_deadline_and_neighbours_keep_answering") {
        return;
    }
    const DEADLINE: Duration = Duration::from_millis(200);
    // The target is "deadline + 10 ms"; `paseo bench` measures that. Asserted here is
    // what a loaded 2-core CI machine running a debug build reliably meets.
    const TOLERANCE: Duration = Duration::from_millis(250);
    runtime().block_on(async {
        let host = Arc::new(host_with(limits(DEADLINE.as_millis() as u64)));
        load_all(&host, &["containment-loop", "containment-other"]).await;
        assert_eq!(open(&host, open_request()).await.unwrap()["env"]["CALLS"], "1");
        assert_eq!(create(&host).await.unwrap()["config"]["title"], "other 1");
        for round in 1..=3 {
            let looping = {
                let host = host.clone();
                tokio::spawn(async move {
                    let started = Instant::now();
                    let result = open(&host, open_with(json!({ "mode": "loop" }), json!({}))).await;
                    (result, started.elapsed(), Instant::now())
                })
            };
            // The other plugin's hook, while the first one spins (runs on another thread).
            tokio::time::sleep(Duration::from_millis(30)).await;
            let started = Instant::now();
            let other = create(&host).await.unwrap();
            let (other_latency, other_done) = (started.elapsed(), Instant::now());
            let (result, stopped_after, loop_done) = looping.await.unwrap();

            assert_eq!(
                result.unwrap_err(),
                "Plugin containment-loop agent.open.before failed: Plugin RPC timed out: containment-loop.hook"
            );
            assert!(stopped_after >= DEADLINE, "stopped before its deadline: {stopped_after:?}");
            assert!(stopped_after < DEADLINE + TOLERANCE, "stopped only after {stopped_after:?}");
            assert_eq!(other["config"]["title"], format!("other {}", round + 1));
            // The bystander was not held up by the loop: it finished before the loop was
            // stopped. (How fast it answered is a figure, printed below, not a pass mark.)
            assert!(other_done < loop_done, "bystander took {other_latency:?}");
            // The same isolate answers the next call.
            assert_eq!(open(&host, open_request()).await.unwrap()["env"]["CALLS"], (2 * round + 1).to_string());
            println!("round {round}: loop stopped after {stopped_after:?}; bystander answered in {other_latency:?}");
        }
        assert_eq!(host.plugin("containment-loop").unwrap().status, PluginStatus::Running);
        assert!(log_lines(&host, "containment-loop")
            .contains(&"[paseo] Plugin code ran past its deadline and was terminated".to_string()));
        host.shutdown().await;
    });
}

/// A field of /proc/self/status, in KiB.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Runs one heap bomb (`kind`: the fixture's `labels.kind`) in a plugin capped at 32 MiB, next to
/// two plugins with the default cap, and returns how much the process's resident peak grew.
///
/// Peak memory is observed from outside: the caller runs alone in its process, so the growth of
/// the resident high-water mark (VmHWM) over the resident size just before the bomb bounds what
/// the bomb made resident, allocator slack included. Runs give the same figure within 1 MiB.
fn heap_bomb(kind: &str) -> usize {
    const REASON: &str =
        "Plugin containment-heap exceeded its heap limit of 32 MiB and was stopped";
    runtime().block_on(async {
        // The cap is per plugin: only the bomb gets 32 MiB, the others keep the 128 MiB default.
        let host = host_with(limits(10_000));
        load_all(&host, &["containment-echo", "containment-other"]).await;
        let heap_limits = Limits {
            heap_bytes: 32 * MIB,
            ..limits(10_000)
        };
        host.load_with(&fixture("containment-heap"), None, Some(heap_limits))
            .await
            .unwrap();

        let rss_before = status_kib("VmRSS");
        let err = open(
            &host,
            open_with(json!({ "kind": kind }), json!({ "MARKER": "m" })),
        )
        .await
        .unwrap_err();
        let growth = (status_kib("VmHWM").saturating_sub(rss_before) * 1024) as usize;
        println!(
            "heap bomb ({kind}): resident peak grew by {} KiB; cap {} KiB",
            growth / 1024,
            32 * 1024
        );
        assert_eq!(
            err,
            format!("Plugin containment-heap agent.open.before failed: {REASON}")
        );

        let info = host.plugin("containment-heap").unwrap();
        assert_eq!(
            (info.status, info.error.as_deref()),
            (PluginStatus::Failed, Some(REASON))
        );
        assert!(log_lines(&host, "containment-heap").contains(&format!("[paseo] {REASON}")));
        // The process carries on; the failed plugin is skipped and the others answer.
        let out = open(&host, open_with(json!({}), json!({ "MARKER": "after" })))
            .await
            .unwrap();
        assert_eq!(out["env"]["RESULT"], "after");
        assert_eq!(create(&host).await.unwrap()["config"]["title"], "other 1");
        for id in ["containment-echo", "containment-other"] {
            assert_eq!(host.plugin(id).unwrap().status, PluginStatus::Running);
        }
        host.shutdown().await;
        growth
    })
}

/// A heap bomb's resident growth must stay within 1.25 x the plugin's 32 MiB cap.
fn assert_within_a_quarter_over_the_cap(growth: usize) {
    assert!(
        growth <= 32 * MIB * 5 / 4,
        "resident peak grew by {} KiB, past 1.25 x the 32 MiB cap",
        growth / 1024
    );
}

#[test]
fn heap_bomb_is_capped_per_plugin_marked_failed_and_harms_no_one() {
    if !alone("heap_bomb_is_capped_per_plugin_marked_failed_and_harms_no_one") {
        return;
    }
    assert_within_a_quarter_over_the_cap(heap_bomb("objects"));
}

// Arrays filled natively (`new Array(10000).fill(…)`) used to grow ~80 MiB past a 32 MiB cap:
// allocations kept succeeding while the requested termination waited inside the native `fill`,
// and the near-heap-limit callback raised the limit on every call. The callback in
// runtime/src/engine/mod.rs (`Actor::boot`) now raises it once only.
#[test]
fn heap_bomb_of_natively_filled_arrays_stays_within_a_quarter_over_the_cap() {
    if !alone("heap_bomb_of_natively_filled_arrays_stays_within_a_quarter_over_the_cap") {
        return;
    }
    assert_within_a_quarter_over_the_cap(heap_bomb("arrays"));
}

const STOPPED: &str =
    "Plugin containment-echo agent.open.before failed: Plugin stopped: containment-echo";

/// Starts three calls that stay pending inside the plugin (a one-minute handler), then stops it
/// the way `how` says; every call must fail promptly with `Plugin stopped: <id>`.
async fn pending_calls_fail_when(how: &str) -> Arc<PluginHost> {
    let host = Arc::new(host_with(limits(30_000)));
    load_all(&host, &["containment-echo"]).await;
    let calls: Vec<_> = (0..3)
        .map(|n| {
            let host = host.clone();
            tokio::spawn(async move {
                open(
                    &host,
                    open_with(
                        json!({ "mode": "slow" }),
                        json!({ "MARKER": n.to_string() }),
                    ),
                )
                .await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(150)).await;
    let started = Instant::now();
    match how {
        "stop" => host.stop("containment-echo").await.unwrap(),
        "reload" => host.reload("containment-echo").await.unwrap(),
        _ => host.shutdown().await,
    }
    for call in calls {
        let outcome = tokio::time::timeout(Duration::from_secs(5), call).await;
        let outcome = outcome
            .unwrap_or_else(|_| panic!("a call pending across {how} hung"))
            .unwrap();
        assert_eq!(outcome.unwrap_err(), STOPPED, "after {how}");
    }
    // Stopping does not wait for the calls (each would hang for ever): it takes milliseconds,
    // and 3 s is a margin for a loaded CI machine, not a measurement.
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{how} took {:?}",
        started.elapsed()
    );
    assert!(
        log_lines(&host, "containment-echo").contains(&"cleanup ran after turn -1".to_string()),
        "after {how}"
    );
    host
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_pending_when_a_plugin_is_stopped_reloaded_or_shut_down_fail_instead_of_hanging() {
    let host = pending_calls_fail_when("stop").await;
    assert_eq!(
        host.plugin("containment-echo").unwrap().status,
        PluginStatus::Disabled
    );

    let host = pending_calls_fail_when("reload").await;
    let out = open(&host, open_with(json!({}), json!({ "MARKER": "fresh" })))
        .await
        .unwrap();
    assert_eq!(
        (&out["env"]["RESULT"], &out["env"]["OPENS"]),
        (&json!("fresh"), &json!("1"))
    );
    host.shutdown().await;

    pending_calls_fail_when("shutdown").await;
}

// A panic on the plugin's thread has no trigger reachable through the public API (the engine
// catches it and records `Plugin <id> crashed: <panic>`); the isolate dying under the heap cap
// with calls pending inside it is the case tested here.
#[tokio::test(flavor = "multi_thread")]
async fn calls_pending_in_a_plugin_whose_isolate_dies_fail_with_the_reason() {
    const REASON: &str =
        "Plugin containment-heap exceeded its heap limit of 32 MiB and was stopped";
    let host = Arc::new(host_with(Limits {
        heap_bytes: 32 * MIB,
        ..limits(30_000)
    }));
    load_all(&host, &["containment-heap", "containment-other"]).await;
    // All three wait 200 ms inside the plugin; the first to wake bombs, the other two are pending.
    let calls: Vec<_> = (0..3)
        .map(|_| {
            let host = host.clone();
            tokio::spawn(async move {
                open(
                    &host,
                    open_with(json!({ "delay": "200", "kind": "objects" }), json!({})),
                )
                .await
            })
        })
        .collect();
    for call in calls {
        let outcome = tokio::time::timeout(Duration::from_secs(20), call)
            .await
            .expect("a pending call hung")
            .unwrap();
        assert_eq!(
            outcome.unwrap_err(),
            format!("Plugin containment-heap agent.open.before failed: {REASON}")
        );
    }
    let info = host.plugin("containment-heap").unwrap();
    assert_eq!(
        (info.status, info.error.as_deref()),
        (PluginStatus::Failed, Some(REASON))
    );
    // The dead plugin is skipped from now on; its neighbour never noticed.
    assert_eq!(open(&host, open_request()).await.unwrap(), open_request());
    assert_eq!(create(&host).await.unwrap()["config"]["title"], "other 1");
    host.shutdown().await;
}

// "plugin:reloader" is also what /proc shows for its watchdog ("plugin:reloader:watchdog").
const RELOADER_THREAD: &str = "plugin:reloader";

fn reloader_threads() -> usize {
    threads().iter().filter(|n| *n == RELOADER_THREAD).count()
}

/// Threads of a tokio runtime (this test runs alone in its process, so only its own).
fn runtime_workers() -> usize {
    threads()
        .iter()
        .filter(|n| n.starts_with("tokio-rt"))
        .count()
}

#[derive(Debug, Default)]
struct Tally {
    /// The plugin answered with this call's own marker.
    echoed: u32,
    /// The chain ran without the plugin and returned the request as given (a reload must not
    /// let that happen: calls made meanwhile wait for the new isolate).
    skipped: u32,
    /// The call reached an isolate that stopped before answering (a reload must not let that
    /// happen either: calls already running finish in the old isolate).
    stopped: u32,
}

#[test]
fn reload_under_load_loses_nothing_misroutes_nothing_and_leaks_no_threads() {
    if !alone("reload_under_load_loses_nothing_misroutes_nothing_and_leaks_no_threads") {
        return;
    }
    // Warm up first (a plugin loaded and stopped on a runtime since dropped), so that threads the
    // engine creates once per process are not counted as leaks; then count with no runtime alive.
    let warm_up = runtime();
    warm_up.block_on(async {
        let host = host_with(Limits::default());
        host.load_with(&fixture("containment-echo"), Some("reloader"), None)
            .await
            .unwrap();
        host.shutdown().await;
    });
    warm_up.shutdown_timeout(Duration::from_secs(5));
    // The warm-up runtime's workers, told to end, leave /proc a moment later: a count taken
    // while one lingers would call its exit a change (CI saw exactly that once).
    assert!(settle(|| reloader_threads() == 0 && runtime_workers() == 0));
    let before = threads();

    let rt = runtime();
    rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), reload_storm())
            .await
            .expect("deadlock: the storm did not finish in 60 s")
    });
    // Joins the runtime's workers and its blocking pool (where stopped isolates are joined).
    rt.shutdown_timeout(Duration::from_secs(5));
    assert!(
        settle(|| threads() == before),
        "threads before: {before:?}\nthreads after: {:?}",
        threads()
    );
    println!(
        "threads: {} before the runtime started, the same after it stopped",
        before.len()
    );
}

async fn reload_storm() {
    // Every log line, past the 500-entry tail.
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let listener = {
        let log = log.clone();
        Arc::new(move |_: &str, entry: &paseo_plugin_runtime::LogEntry| {
            log.lock().unwrap().push(entry.message.clone())
        })
    };
    let host = Arc::new(PluginHost::new(HostOptions {
        limits: limits(5_000),
        log_listener: Some(listener),
        ..HostOptions::default()
    }));
    host.load_with(&fixture("containment-echo"), Some("reloader"), None)
        .await
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));

    // About 1,000 notifications a second, paced against the clock; the turn ID numbers them.
    let notifier = {
        let (host, stop) = (host.clone(), stop.clone());
        tokio::spawn(async move {
            let started = Instant::now();
            let mut sent = 0u64;
            let mut tick = tokio::time::interval(Duration::from_millis(5));
            while !stop.load(Ordering::SeqCst) {
                tick.tick().await;
                let due = started.elapsed().as_millis() as u64;
                while sent < due {
                    let event = json!({ "agent": agent(), "turnId": sent.to_string(), "outcome": { "kind": "completed" }, "timeline": [] });
                    host.notify_json("agent.turn.after", event);
                    sent += 1;
                }
            }
            (sent, started.elapsed())
        })
    };
    // Waiting hooks from four callers, each request marked; answers overtake each other (DELAY).
    let callers: Vec<_> = (0..4)
        .map(|caller| {
            let (host, stop) = (host.clone(), stop.clone());
            tokio::spawn(async move {
                let mut tally = Tally::default();
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    n += 1;
                    let marker = format!("caller{caller}-{n}");
                    let request = open_with(json!({}), json!({ "MARKER": marker, "DELAY": (n % 3).to_string() }));
                    match open(&host, request).await {
                        Ok(out) => {
                            assert_eq!(out["env"]["MARKER"], marker, "misrouted: {out}");
                            if let Some(result) = out["env"].get("RESULT") {
                                assert_eq!(result, &json!(marker), "misrouted: {out}");
                                tally.echoed += 1;
                                continue;
                            }
                            tally.skipped += 1;
                        }
                        Err(e) => {
                            assert_eq!(e, "Plugin reloader agent.open.before failed: Plugin stopped: reloader");
                            tally.stopped += 1;
                        }
                    }
                    // Without the plugin the chain returns at once; don't spin on it.
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                tally
            })
        })
        .collect();

    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        host.reload("reloader").await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.store(true, Ordering::SeqCst);
    let (sent, took) = notifier.await.unwrap();
    let mut total = Tally::default();
    for caller in callers {
        let t = caller.await.unwrap();
        (total.echoed, total.skipped, total.stopped) = (
            total.echoed + t.echoed,
            total.skipped + t.skipped,
            total.stopped + t.stopped,
        );
    }
    let rate = sent as f64 / took.as_secs_f64();
    println!(
        "reload storm: {sent} notifications in {took:?} ({rate:.0}/s); waiting hooks: {total:?}"
    );
    // The notifier paces itself at one a millisecond, so its rate is its own pacer's: printed
    // above as a figure, not asserted. What is asserted is that nothing was lost.
    assert!(total.echoed > 100, "{total:?}");
    assert_eq!(
        (total.skipped, total.stopped),
        (0, 0),
        "waiting-hook results lost during reloads: {total:?}"
    );

    // Ten reloads left one isolate: its actor thread and its watchdog.
    assert!(
        settle(|| reloader_threads() == 2),
        "plugin threads: {:?}",
        threads()
    );
    let out = open(&host, open_with(json!({}), json!({ "MARKER": "last" })))
        .await
        .unwrap();
    assert_eq!(out["env"]["RESULT"], "last");
    assert_eq!(
        host.plugin("reloader").unwrap().status,
        PluginStatus::Running
    );

    // Shutdown drains the notifications still queued. Each isolate saw them in emission order,
    // and each new isolate took up where the previous one stopped: notifications emitted during
    // a reload are held for the new isolate, none is lost and none fails.
    host.shutdown().await;
    let mut lines: BTreeMap<String, usize> = BTreeMap::new();
    let mut next_turn = 0u64;
    for line in log.lock().unwrap().drain(..) {
        if let Some(first) = line.strip_prefix("first turn ") {
            assert_eq!(
                first.parse::<u64>().unwrap(),
                next_turn,
                "a reload lost or replayed notifications"
            );
        } else if let Some(last) = line.strip_prefix("cleanup ran after turn ") {
            next_turn = last.parse::<i64>().unwrap() as u64 + 1;
            *lines.entry("cleanup ran".into()).or_default() += 1;
        } else {
            *lines.entry(line).or_default() += 1;
        }
    }
    assert_eq!(
        next_turn,
        sent,
        "the last isolate stopped after turn {}, of {sent} sent",
        next_turn as i64 - 1
    );
    let expected: BTreeMap<String, usize> = [
        ("[paseo] Loading plugin", 11),
        ("[paseo] Plugin ready", 11),
        ("[paseo] Stopping plugin", 11),
        ("cleanup ran", 11),
        ("[paseo] Plugin stopped", 11),
    ]
    .into_iter()
    .map(|(l, n)| (l.to_string(), n))
    .collect();
    assert_eq!(lines, expected);
    assert!(
        settle(|| reloader_threads() == 0),
        "plugin threads after shutdown: {:?}",
        threads()
    );
}

/// `agent.open.before` of `containment-buffers` with these labels; returns what it put in `env`.
async fn buffers(host: &PluginHost, labels: Value) -> Value {
    let out = open(host, open_with(labels.clone(), json!({})))
        .await
        .unwrap_or_else(|e| panic!("{labels}: {e}"));
    out["env"].clone()
}

/// Splits `<prefix><number><suffix>` into the number, checking prefix and suffix.
fn number_between(text: &str, prefix: &str, suffix: &str) -> u64 {
    let rest = text
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{text:?} does not start with {prefix:?}"));
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    assert_eq!(&rest[digits.len()..], suffix, "in {text:?}");
    digits.parse().unwrap()
}

/// A host with `containment-buffers` capped at 32 MiB, next to the bystander `containment-other`.
async fn buffers_host() -> PluginHost {
    let host = host_with(limits(20_000));
    load_all(&host, &["containment-other"]).await;
    host.load_with(
        &fixture("containment-buffers"),
        None,
        Some(Limits {
            heap_bytes: 32 * MIB,
            ..limits(20_000)
        }),
    )
    .await
    .unwrap();
    host
}

/// The plugin, its neighbour and the host are all still fine, and the plugin answered `calls` calls.
async fn buffers_plugin_carries_on(host: &PluginHost, calls: usize) {
    assert_eq!(
        buffers(host, json!({ "kind": "ok" })).await["CALLS"],
        (calls + 1).to_string()
    );
    assert_eq!(
        host.plugin("containment-buffers").unwrap().status,
        PluginStatus::Running
    );
    assert_eq!(create(host).await.unwrap()["config"]["title"], "other 1");
}

// `fs.readFileSync` of a 200 MB file used to abort the whole process: the engine could not copy
// the buffer into the plugin's heap and deno_core unwrapped the missing ArrayBuffer inside the
// op. /dev/zero (size 0) was read whole first and grew the process to 4 GiB. Reads are now
// bounded by the room in the plugin's heap while reading, and fail as Node's
// ERR_FS_FILE_TOO_LARGE does, naming the plugin's limit.
#[test]
fn reads_past_the_heap_room_fail_as_file_too_large_in_the_plugin_while_reading() {
    if !alone("reads_past_the_heap_room_fail_as_file_too_large_in_the_plugin_while_reading") {
        return;
    }
    const SUFFIX: &str = " bytes plugin containment-buffers may still allocate (heap cap 32 MiB)";
    let dir = tempfile::tempdir().unwrap();
    // Sparse: 200 MB that cost no disk.
    let (big, medium) = (dir.path().join("big"), dir.path().join("medium"));
    std::fs::File::create(&big)
        .unwrap()
        .set_len(200_000_000)
        .unwrap();
    std::fs::File::create(&medium)
        .unwrap()
        .set_len(5_000_000)
        .unwrap();
    runtime().block_on(async {
        let host = buffers_host().await;
        let path = big.to_str().unwrap();
        for (kind, share) in [
            ("read", "the "),
            ("read-promise", "the "),
            ("read-text", "a third of the "),
        ] {
            let env = buffers(&host, json!({ "kind": kind, "path": path })).await;
            assert_eq!(
                (&env["OUTCOME"], &env["NAME"], &env["CODE"]),
                (
                    &json!("error"),
                    &json!("RangeError"),
                    &json!("ERR_FS_FILE_TOO_LARGE")
                ),
                "{kind}: {env}"
            );
            let prefix = format!("File size (200000000) is greater than {share}");
            let room = number_between(env["MESSAGE"].as_str().unwrap(), &prefix, SUFFIX);
            assert!(room > 0 && room < 32 * MIB as u64, "{kind}: {env}");
        }

        // A device reports size 0: reading stops one byte past the room.
        let rss_before = status_kib("VmRSS");
        let env = buffers(&host, json!({ "kind": "read", "path": "/dev/zero" })).await;
        let growth = status_kib("VmHWM").saturating_sub(rss_before) * 1024;
        println!(
            "readFileSync(/dev/zero): resident peak grew by {} KiB",
            growth / 1024
        );
        assert_eq!(
            (&env["NAME"], &env["CODE"]),
            (&json!("RangeError"), &json!("ERR_FS_FILE_TOO_LARGE")),
            "{env}"
        );
        let message = env["MESSAGE"].as_str().unwrap();
        let (read, room) = message
            .strip_prefix("File size (at least ")
            .unwrap()
            .split_once(") is greater than the ")
            .unwrap();
        let room = number_between(room, "", SUFFIX);
        assert_eq!(read.parse::<u64>().unwrap(), room + 1, "{message}");
        // The bytes read (at most the 32 MiB cap, in a growing buffer) and nothing more.
        assert!(
            growth < 4 * 32 * MIB as u64,
            "resident peak grew by {} KiB",
            growth / 1024
        );

        // What fits is read as before, past the size read without measuring too.
        let env = buffers(
            &host,
            json!({ "kind": "read", "path": medium.to_str().unwrap() }),
        )
        .await;
        assert_eq!(
            (&env["OUTCOME"], &env["LENGTH"]),
            (&json!("ok"), &json!("5000000")),
            "{env}"
        );
        buffers_plugin_carries_on(&host, 5).await;
        host.shutdown().await;
    });
}

// `execSync` with 300 MB of output aborted the process the same way (the output went to the
// plugin as one buffer). Output past maxBuffer kills the child and fails with Node's ENOBUFS;
// a maxBuffer the heap cannot take is clamped to what it can, and says so.
#[test]
fn child_output_past_max_buffer_or_the_heap_room_fails_and_kills_the_child() {
    if !alone("child_output_past_max_buffer_or_the_heap_room_fails_and_kills_the_child") {
        return;
    }
    const CLAMPED: &str = " bytes, a quarter of the ";
    const SUFFIX: &str = " bytes plugin containment-buffers may still allocate (heap cap 32 MiB))";
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("finished");
    // The shell writes the marker only if it outlives its output.
    let command = format!(
        "head -c 5000000 /dev/zero; echo finished > {}",
        marker.display()
    );
    runtime().block_on(async {
        let host = buffers_host().await;
        let env = buffers(&host, json!({ "kind": "exec-sync", "command": command })).await;
        assert_eq!(
            (&env["CODE"], &env["MESSAGE"], &env["SIGNAL"]),
            (
                &json!("ENOBUFS"),
                &json!("spawnSync /bin/sh ENOBUFS"),
                &json!("SIGTERM")
            ),
            "{env}"
        );
        // Node keeps the chunk that went over the default 1 MiB.
        let kept: usize = env["LENGTH"].as_str().unwrap().parse().unwrap();
        assert!(kept > 1024 * 1024 && kept < 2 * 1024 * 1024, "{env}");
        assert!(!marker.exists(), "the child ran on past maxBuffer");

        let env = buffers(&host, json!({ "kind": "exec-async", "command": command })).await;
        assert_eq!(
            (&env["NAME"], &env["CODE"], &env["MESSAGE"]),
            (
                &json!("RangeError"),
                &json!("ERR_CHILD_PROCESS_STDIO_MAXBUFFER"),
                &json!("stdout maxBuffer length exceeded")
            ),
            "{env}"
        );
        assert!(!marker.exists(), "the child ran on past maxBuffer");

        // 40 MB would fit no 32 MiB heap: the limit is the heap's, whatever maxBuffer says.
        let flood = "head -c 40000000 /dev/zero";
        let env = buffers(
            &host,
            json!({ "kind": "exec-sync", "command": flood, "maxBuffer": "Infinity" }),
        )
        .await;
        assert_eq!(
            (&env["CODE"], &env["SIGNAL"]),
            (&json!("ENOBUFS"), &json!("SIGTERM")),
            "{env}"
        );
        let message = env["MESSAGE"].as_str().unwrap();
        let (clamp, room) = message
            .strip_prefix("spawnSync /bin/sh ENOBUFS (maxBuffer was clamped to ")
            .unwrap()
            .split_once(CLAMPED)
            .unwrap();
        assert_eq!(
            clamp.parse::<u64>().unwrap(),
            number_between(room, "", SUFFIX) / 4,
            "{message}"
        );

        let env = buffers(
            &host,
            json!({ "kind": "exec-async", "command": flood, "maxBuffer": "1e12" }),
        )
        .await;
        assert_eq!(
            (&env["NAME"], &env["CODE"]),
            (
                &json!("RangeError"),
                &json!("ERR_CHILD_PROCESS_STDIO_MAXBUFFER")
            ),
            "{env}"
        );
        let message = env["MESSAGE"].as_str().unwrap();
        let (clamp, room) = message
            .strip_prefix("stdout maxBuffer length exceeded (maxBuffer was clamped to ")
            .unwrap()
            .split_once(CLAMPED)
            .unwrap();
        assert_eq!(
            clamp.parse::<u64>().unwrap(),
            number_between(room, "", SUFFIX) / 4,
            "{message}"
        );

        // A timeout past what a Duration holds panicked inside the op (and aborted); Node takes
        // any integer, so it means no timeout.
        let env = buffers(&host, json!({ "kind": "spawn-timeout" })).await;
        assert_eq!(
            (&env["OUTCOME"], &env["STATUS"]),
            (&json!("ok"), &json!("3")),
            "{env}"
        );
        buffers_plugin_carries_on(&host, 5).await;
        host.shutdown().await;
    });
}

/// A host whose plugin `containment-timer` has a 100 ms turn budget and a 5 s hook deadline.
async fn timer_host() -> Arc<PluginHost> {
    let host = Arc::new(host_with(Limits {
        turn_timeout: Duration::from_millis(100),
        ..limits(5_000)
    }));
    load_all(&host, &["containment-timer", "containment-other"]).await;
    host
}

async fn timer_call(host: &PluginHost, mode: &str) -> Value {
    open(host, open_with(json!({ "mode": mode }), json!({})))
        .await
        .unwrap_or_else(|e| panic!("{mode}: {e}"))["env"]
        .clone()
}

fn count_lines(host: &PluginHost, line: &str) -> usize {
    log_lines(host, "containment-timer")
        .iter()
        .filter(|l| *l == line)
        .count()
}

// A `setInterval` callback that looped forever was cut only at the hook timeout (30 s), and
// every hook call meanwhile waited for it. Timer callbacks, and event-loop turns with no call
// pending, now get the turn budget; a call's own code keeps its deadline after an `await`.
#[test]
fn a_spinning_timer_is_cut_at_the_turn_budget_and_the_next_hook_call_is_answered() {
    const TIMER: &str = "[paseo] Timer callback exceeded the 100 ms turn budget and was terminated";
    const TURN: &str =
        "[paseo] An event-loop turn exceeded the 100 ms turn budget and was terminated";
    runtime().block_on(async {
        let host = timer_host().await;
        assert_eq!(timer_call(&host, "interval").await["FIRES"], "0");
        // Once the callback spins, a call waits behind it and is answered once it is cut.
        assert!(settle(
            || log_lines(&host, "containment-timer").contains(&"interval fired 1".to_string())
        ));
        let env = timer_call(&host, "none").await;
        assert_eq!(env["MODE"], "none");
        assert_eq!(
            count_lines(&host, TIMER),
            1,
            "{:?}",
            log_lines(&host, "containment-timer")
        );
        // The terminated interval is not run again.
        assert_eq!(timer_call(&host, "none").await["FIRES"], "1");

        // Spinning after an `await`, outside the timer callback and outside any call.
        timer_call(&host, "after-await").await;
        assert!(
            settle(|| count_lines(&host, TURN) == 1),
            "{:?}",
            log_lines(&host, "containment-timer")
        );
        assert_eq!(timer_call(&host, "none").await["MODE"], "none");

        // 300 ms of work after an `await` inside a hook is the hook's, under its 5 s deadline.
        assert_eq!(timer_call(&host, "busy").await["MODE"], "busy");
        assert_eq!(
            count_lines(
                &host,
                "[paseo] Plugin code ran past its deadline and was terminated"
            ),
            0
        );
        assert_eq!(
            (count_lines(&host, TIMER), count_lines(&host, TURN)),
            (1, 1)
        );
        assert_eq!(
            host.plugin("containment-timer").unwrap().status,
            PluginStatus::Running
        );
        assert_eq!(create(&host).await.unwrap()["config"]["title"], "other 1");
        host.shutdown().await;
    });
}

// A directory listing is converted into the plugin's heap in one piece too; one it has no room
// for fails instead of exhausting the heap (which stops the plugin).
#[test]
fn a_directory_listing_past_the_heap_room_fails_in_the_plugin() {
    // Symlinks with long names in memory (where there is /dev/shm): 25,000 cost 0.2 s.
    let shm = std::path::Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .unwrap();
    for n in 0..25_000 {
        std::os::unix::fs::symlink("x", dir.path().join(format!("{n:06}-{}", "x".repeat(240))))
            .unwrap();
    }
    runtime().block_on(async {
        let host = host_with(limits(20_000));
        load_all(&host, &["containment-other"]).await;
        host.load_with(
            &fixture("containment-buffers"),
            None,
            Some(Limits {
                heap_bytes: 8 * MIB,
                ..limits(20_000)
            }),
        )
        .await
        .unwrap();
        let env = buffers(
            &host,
            json!({ "kind": "readdir", "path": dir.path().to_str().unwrap() }),
        )
        .await;
        assert_eq!(
            (&env["NAME"], &env["CODE"]),
            (&json!("RangeError"), &json!("ERR_FS_DIR_TOO_LARGE")),
            "{env}"
        );
        let message = env["MESSAGE"].as_str().unwrap();
        let prefix = format!("The listing of '{}' (more than ", dir.path().display());
        let (entries, room) = message
            .strip_prefix(&prefix)
            .unwrap()
            .split_once(" entries) is greater than the ")
            .unwrap();
        assert!(entries.parse::<u64>().unwrap() < 25_000, "{message}");
        number_between(
            room,
            "",
            " bytes plugin containment-buffers may still allocate (heap cap 8 MiB)",
        );
        buffers_plugin_carries_on(&host, 1).await;
        host.shutdown().await;
    });
}

// The host's input to a call is handed to the plugin as one string too (then parsed): an input
// its heap has no room for fails that call, and the plugin answers the next one.
#[test]
fn a_call_input_past_the_heap_room_fails_that_call_and_the_plugin_carries_on() {
    runtime().block_on(async {
        let host = buffers_host().await;
        // About 24 of the 32 MiB, next to the ~3.5 MiB the plugin itself uses.
        assert_eq!(buffers(&host, json!({ "kind": "hold", "size": "24000000" })).await["LENGTH"], "24000000");
        // In pieces within the host's limit for one env value (128 Ki characters).
        // V8 keeps the held Buffer's bytes outside its JS heap, so it has more room left there.
        let pieces = if cfg!(feature = "v8") { 400 } else { 50 };
        let env: serde_json::Map<String, Value> = (0..pieces).map(|n| (format!("BLOB{n}"), json!("x".repeat(100_000)))).collect();
        let huge = open_with(json!({ "kind": "ok" }), Value::Object(env));
        let err = open(&host, huge).await.unwrap_err();
        let prefix = "Plugin containment-buffers agent.open.before failed: The input of hook agent.open.before is ";
        let (len, room) = err
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_once(" bytes, more than half of the "))
            .unwrap_or_else(|| panic!("{err}"));
        assert!(len.parse::<u64>().unwrap() > 5_000_000, "{err}");
        number_between(room, "", " bytes plugin containment-buffers may still allocate (heap cap 32 MiB)");
        buffers_plugin_carries_on(&host, 1).await;
        host.shutdown().await;
    });
}

// `Limits::stop_timeout` bounds the plugin's cleanup, in both directions: a longer one lets a
// slow cleanup finish (the default 2 s would cut this one off), a shorter one cuts it off.
#[test]
fn the_stop_timeout_of_a_plugin_bounds_its_cleanup() {
    runtime().block_on(async {
        let host = host_with(Limits::default());
        for (id, stop_ms, finished) in [("patient", 5_000, true), ("hasty", 200, false)] {
            let limits = Limits {
                stop_timeout: Duration::from_millis(stop_ms),
                ..Limits::default()
            };
            host.load_with(&fixture("stop-timeout"), Some(id), Some(limits))
                .await
                .unwrap();
            host.stop(id).await.unwrap();
            let lines = log_lines(&host, id);
            assert!(lines.iter().any(|l| l == "cleanup started"), "{lines:?}");
            assert_eq!(
                lines.iter().any(|l| l == "cleanup finished"),
                finished,
                "{id}: {lines:?}"
            );
            assert_eq!(lines.last().unwrap(), "[paseo] Plugin stopped");
        }
        host.shutdown().await;
    });
}

/// An isolate stuck in native code past its deadline (a blocking op here; ICU on V8) cannot be
/// terminated: the host answers its callers, marks the plugin failed and stops waiting for it.
#[tokio::test(flavor = "multi_thread")]
async fn a_plugin_stuck_in_native_code_fails_without_holding_up_the_host() {
    // A second for loading (zod, node:child_process and the streams it is built on), busy
    // machines included; the call's deadline is the same second.
    let host = host_with(limits(1000));
    host.load(&fixture("containment-wedge")).await.unwrap();
    host.load(&fixture("containment-echo")).await.unwrap();
    let started = std::time::Instant::now();
    let err = host
        .call_rpc("containment-wedge", "block", json!({}))
        .await
        .unwrap_err()
        .to_string();
    let waited = started.elapsed();
    assert_eq!(
        err,
        "Plugin containment-wedge stopped answering: its isolate stayed in native code 2 s past a deadline, where it cannot be interrupted, and was abandoned"
    );
    assert!(
        waited < std::time::Duration::from_secs(10),
        "waited {waited:?}"
    );
    let info = host.plugin("containment-wedge").unwrap();
    assert_eq!(info.status, paseo_plugin_runtime::PluginStatus::Failed);
    // Calls fail at once now; stopping it does not wait for its thread; the neighbour answers.
    let err = host
        .call_rpc("containment-wedge", "ping", json!({}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("stopped answering"), "{err}");
    let stopping = std::time::Instant::now();
    host.stop("containment-wedge").await.unwrap();
    assert!(
        stopping.elapsed() < std::time::Duration::from_secs(5),
        "stop took {:?}",
        stopping.elapsed()
    );
    assert!(create(&host).await.is_ok());
    assert!(log_lines(&host, "containment-wedge")
        .iter()
        .any(|l| l.contains("stopped answering")));
}
