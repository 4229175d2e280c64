mod common;

use common::*;
use serde_json::{json, Value};

/// Runs the fixture's hook (cwd = a fresh temp dir) and returns what it measured.
async fn results() -> (Value, Vec<String>, String) {
    let dir = tempfile::tempdir().unwrap();
    let host = host();
    load_all(&host, &["node-child-process"]).await;
    let mut request = open_request();
    request["cwd"] = json!(dir.path());
    let out = open(&host, request).await.unwrap();
    let r = serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap();
    (
        r,
        log_lines(&host, "node-child-process"),
        format!("{}\n", dir.path().display()),
    )
}

fn run(
    stdout: &str,
    stderr: &str,
    events: &str,
    exit_code: Value,
    signal: Value,
    killed: bool,
) -> Value {
    json!({ "stdout": stdout, "stderr": stderr, "events": events, "exitCode": exit_code, "signalCode": signal, "killed": killed })
}

#[tokio::test(flavor = "multi_thread")]
async fn child_process_behaves_like_node() {
    let (r, logs, cwd) = results().await;
    let check = |key: &str, expected: Value| assert_eq!(r[key], expected, "{key}");

    // spawn: output, events, exit codes, shell, cwd, pipelines.
    check("pidType", json!("number"));
    check(
        "echo",
        run(
            "hello world\n",
            "",
            "spawn,exit:0:null,close:0:null,ended",
            json!(0),
            json!(null),
            false,
        ),
    );
    check("shell", json!("ABC\n"));
    check("pipeline", json!("a\nb\nc\n"));
    check(
        "exit3",
        run(
            "",
            "oops\n",
            "spawn,exit:3:null,close:3:null,ended",
            json!(3),
            json!(null),
            false,
        ),
    );
    check("cwd", json!(cwd));
    check("piped", json!("3"));
    check("iterated", json!("iterated"));
    check("ignore", json!("spawn,exit:0:null,close:0:null:null"));

    // A missing command: 'error' with Node's fields, then 'close' with -2 and no 'exit'.
    check(
        "enoentRun",
        run(
            "",
            "",
            "error:spawn no-such-command-xyz ENOENT,close:-2:null,ended",
            json!(-2),
            json!(null),
            false,
        ),
    );
    check(
        "enoent",
        json!({
            "message": "spawn no-such-command-xyz ENOENT", "code": "ENOENT", "errno": -2,
            "syscall": "spawn no-such-command-xyz", "path": "no-such-command-xyz", "spawnargs": ["a", "b"], "pid": "none"
        }),
    );

    // stdin → stdout through cat, with setEncoding.
    let mut cat = run(
        "one two three",
        "",
        "spawn,exit:0:null,close:0:null,ended",
        json!(0),
        json!(null),
        false,
    );
    cat["chunkType"] = json!("string");
    check("cat", cat);

    // kill, timeout + killSignal, AbortSignal.
    check("killReturned", json!(true));
    check(
        "kill",
        run(
            "",
            "",
            "spawn,exit:null:SIGTERM,close:null:SIGTERM,ended",
            json!(null),
            json!("SIGTERM"),
            true,
        ),
    );
    check("killAfterExit", json!(false));
    check(
        "sigkill",
        json!("spawn,exit:null:SIGKILL,close:null:SIGKILL,ended"),
    );
    check(
        "badSignal",
        json!({ "message": "Unknown signal: SIGNOPE", "code": "ERR_UNKNOWN_SIGNAL" }),
    );
    check(
        "spawnTimeout",
        json!("spawn,exit:null:SIGKILL,close:null:SIGKILL,ended"),
    );
    check(
        "abort",
        json!({
            "events": "spawn,error:The operation was aborted,exit:null:SIGTERM,close:null:SIGTERM,ended",
            "name": "AbortError", "code": "ABORT_ERR", "message": "The operation was aborted"
        }),
    );

    // stdio 'inherit' goes to the plugin's log (a plugin has no terminal).
    check("inheritStdout", json!("null"));
    for line in ["to-log", "err-log", "logged-stderr"] {
        assert!(
            logs.iter().any(|l| l == line),
            "{line} missing from {logs:?}"
        );
    }

    // exec / execFile with callbacks.
    check(
        "exec",
        json!({ "err": null, "stdout": "out\n", "stderr": "err\n" }),
    );
    check(
        "execFail",
        json!({
            "message": "Command failed: echo bad >&2; exit 2\nbad\n", "code": 2, "killed": false, "signal": null,
            "cmd": "echo bad >&2; exit 2", "stdout": "", "stderr": "bad\n"
        }),
    );
    check("execEnv", json!("hi\n"));
    check("execBuffer", json!("true:raw"));
    check(
        "execFileMissing",
        json!({
            "message": "spawn no-such-command-xyz ENOENT", "code": "ENOENT", "cmd": "no-such-command-xyz -v",
            "path": "no-such-command-xyz", "stdout": "", "stderr": ""
        }),
    );
    check(
        "maxBuffer",
        json!({
            "message": "stdout maxBuffer length exceeded", "code": "ERR_CHILD_PROCESS_STDIO_MAXBUFFER", "name": "RangeError", "length": 100
        }),
    );
    check(
        "execTimeout",
        json!({ "message": "Command failed: sleep 10\n", "code": null, "killed": true, "signal": "SIGTERM", "cmd": "sleep 10" }),
    );

    // util.promisify uses the custom forms: { stdout, stderr } or the error carrying them.
    check("promisified", json!({ "stdout": "abc", "stderr": "" }));
    check("promisifiedFile", json!({ "stdout": "a-b", "stderr": "" }));
    check("promisifiedChild", json!("number"));
    check(
        "promisifiedReject",
        json!({
            "message": "Command failed: printf partial; echo nope >&2; exit 5\nnope\n", "code": 5, "stdout": "partial", "stderr": "nope\n"
        }),
    );

    // Sync forms.
    check("execSync", json!("true:sync\n"));
    check("execSyncUtf8", json!(cwd));
    check("execSyncInput", json!("HELLO"));
    check(
        "execSyncFail",
        json!({
            "message": "Command failed: echo to-stdout; echo logged-stderr >&2; exit 4\nlogged-stderr\n",
            "status": 4, "signal": null, "stdout": "buffer:to-stdout\n", "stderr": "buffer:logged-stderr\n"
        }),
    );
    check(
        "execSyncTimeout",
        json!({
            "message": "spawnSync /bin/sh ETIMEDOUT", "code": "ETIMEDOUT", "status": null, "signal": "SIGTERM", "errno": -110
        }),
    );
    check("execFileSync", json!("x"));
    check(
        "execFileSyncFail",
        json!({ "message": "Command failed: sh -c exit 9", "status": 9 }),
    );
    check(
        "execFileSyncMissing",
        json!({
            "message": "spawnSync no-such-command-xyz ENOENT", "code": "ENOENT", "errno": -2, "syscall": "spawnSync no-such-command-xyz",
            "path": "no-such-command-xyz", "spawnargs": ["q"], "status": null, "pid": 0, "stdout": null
        }),
    );
    check(
        "spawnSync",
        json!({
            "status": 7, "signal": null, "stdout": "a\n", "stderr": "b\n", "output": [null, "a\n", "b\n"],
            "pidPositive": true, "keys": "status,signal,output,pid,stdout,stderr"
        }),
    );
    check(
        "spawnSyncMissing",
        json!({
            "status": null, "signal": null, "output": null, "pid": 0, "stdout": null, "stderr": null,
            "error": { "message": "spawnSync no-such-command-xyz ENOENT", "code": "ENOENT" },
            "keys": "error,status,signal,output,pid,stdout,stderr"
        }),
    );
    check(
        "spawnSyncTimeout",
        json!({
            "status": null, "signal": "SIGKILL", "error": { "message": "spawnSync sleep ETIMEDOUT", "code": "ETIMEDOUT" }
        }),
    );
    check(
        "spawnSyncOverflow",
        json!({ "message": "spawnSync sh ENOBUFS", "code": "ENOBUFS", "over": true, "start": "y\ny\n" }),
    );

    check("lowLevel", json!("low level\necho low level"));
    check(
        "ipc",
        json!({ "message": "node:child_process stdio 'ipc' is not supported by the Paseo plugin host yet" }),
    );
    check(
        "fork",
        json!({ "message": "node:child_process.fork is not supported by the Paseo plugin host yet" }),
    );
    check("defaultExport", json!("function"));
}

fn alive(pid: &str) -> bool {
    // A zombie waiting to be reaped counts as gone.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s.split(") ").nth(1).unwrap_or("").starts_with('Z'))
}

#[tokio::test(flavor = "multi_thread")]
async fn children_end_with_their_plugin_unless_detached() {
    let host = host();
    load_all(&host, &["node-child-process"]).await;
    let mut request = open_request();
    request["labels"] = json!({ "cp": "linger" });
    let out = open(&host, request).await.unwrap();
    let pids: Vec<String> = out["env"]["PIDS"]
        .as_str()
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    assert!(alive(&pids[0]) && alive(&pids[1]));
    host.stop("node-child-process").await.unwrap();
    for _ in 0..100 {
        if !alive(&pids[0]) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(!alive(&pids[0]), "the attached child outlived its plugin");
    assert!(alive(&pids[1]), "the detached child was killed");
    std::process::Command::new("kill")
        .arg(&pids[1])
        .status()
        .unwrap();
}
