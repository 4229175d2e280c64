//! `@getpaseo/plugin/server/forge-toolkit` and `@getpaseo/plugin/server/usage` through a real
//! plugin (tests/fixtures/forge-toolkit-user): git in a repository it makes, the CLI runner's
//! classification of real failures of `sh`, the HTTP client against a node:http server inside
//! the plugin, remote parsing, paging guards and the usage helpers, each with Paseo's values
//! and error texts.

mod common;

use common::*;
use serde_json::{json, Value};
use tokio::sync::OnceCell;

/// The fixture runs every case once; each test reads its part.
async fn result() -> &'static Value {
    static RESULT: OnceCell<Value> = OnceCell::const_new();
    RESULT
        .get_or_init(|| plugin_result("forge-toolkit-user"))
        .await
}

/// A case's value, failing with the fixture's report when the case itself threw.
async fn case(name: &str) -> &'static Value {
    let value = &result().await[name];
    assert!(
        value.get("crashed").is_none(),
        "{name}: {}",
        value["crashed"]
    );
    value
}

/// A ForgeCommandError from the fixture's CLI error class (brand Acme, binary sh, cwd /repo).
fn cli_error(exit: Value, stderr: &str, args: Value) -> Value {
    json!({ "class": "ForgeCommandError", "message": "Acme CLI command failed: sh", "kind": "command-error",
        "exitCode": exit, "stderr": stderr, "args": args, "cwd": "/repo", "brand": "Acme", "binary": "sh" })
}

/// A ForgeCommandError from the HTTP client (the binary is the API's host; cwd is the request's).
fn request_error(brand: &str, host: &str, exit: Value, stderr: &str, args: Value) -> Value {
    json!({ "class": "ForgeCommandError", "message": format!("{brand} request failed: {host}"), "kind": "command-error",
        "exitCode": exit, "stderr": stderr, "args": args, "cwd": "<cwd>", "brand": brand, "binary": host })
}

fn auth_error(message: &str, stderr: &str) -> Value {
    json!({ "class": "ForgeAuthenticationError", "message": message, "kind": "auth-failure", "stderr": stderr })
}

#[tokio::test(flavor = "multi_thread")]
async fn both_modules_export_paseos_values() {
    let r = result().await;
    assert_eq!(
        r["exports"]["toolkit"],
        json!([
            "buildUrl",
            "createCachedCliPathResolver",
            "createExternalProcessEnv",
            "createForgeCliRunner",
            "createForgeHttpClient",
            "createForgePageGuard",
            "defaultResolveRemoteUrl",
            "execCommand",
            "findExecutable",
            "parseCliJsonOutput",
            "parseGitRemoteLocation",
            "quoteWindowsArgument",
            "quoteWindowsCommand",
            "redactCommandArgs",
            "resolveTokenFromEnv",
            "runGitCommand",
            "shouldUseWindowsShell",
        ])
    );
    assert_eq!(
        r["exports"]["usage"],
        json!([
            "UsageScopeSchema",
            "balanceToneFromRemaining",
            "hashAccountKey",
            "toneFromUsedPct",
            "unavailable",
            "usedPctOf",
            "windowFromReportedDuration",
            "windowFromUsedPct",
        ])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn processes_run_without_paseos_controls_and_fail_as_node_does() {
    let p = case("process").await;
    // Expected values from Paseo's SDK (packages/plugin/src/server/forge-toolkit), not Node:
    // the overlay wins, `undefined` removes, and Paseo's runtime controls never reach a child.
    assert_eq!(
        p["env"],
        json!({ "PATH": "/bin", "CUSTOM": "overlay", "ADDED": "yes" })
    );
    // Expected values from Paseo's SDK: not Windows, so no cmd.exe, quoting is the identity, a
    // requested shell is passed through.
    assert_eq!(
        p["windows"],
        json!({ "bare": false, "script": false, "requested": true, "requestedString": "/bin/bash",
            "argument": "Ship & \"test\" | %X%", "command": "C:\\tools\\a b.cmd" })
    );
    // Expected values from Paseo's SDK's findExecutable (a PATH walk).
    assert_eq!(
        p["findExecutable"],
        json!({ "git": true, "padded": true, "missing": null, "blank": null })
    );
    // Expected values from Paseo's SDK: the overlay reaches the child, PASEO_NODE_ENV does not.
    assert_eq!(
        p["exec"],
        json!({ "stdout": "bar unset\n", "stderr": "err\n" })
    );
    assert_eq!(p["execCwd"], json!(true));

    // The failures are Node's: execCommand is execFile, promisified, with these options (on
    // Linux); Node runs the fixture's four failing commands so and must report the same.
    let dir = tempfile::tempdir().unwrap();
    let node = under_node(&format!(
        "const {{ execFile }} = await import('node:child_process'), {{ promisify }} = await import('node:util');\n\
         const run = (file, args, options = {{}}) => promisify(execFile)(file, args, {{ cwd: {:?}, encoding: 'utf8',\n\
           maxBuffer: 10 * 1024 * 1024, windowsHide: true, shell: false, windowsVerbatimArguments: false, ...options }})\n\
           .then(() => ({{ code: 'no error' }}), (e) => e);\n\
         const pick = (e, ...keys) => Object.fromEntries(keys.map((k) => [k, e[k]]));\n\
         console.log(JSON.stringify({{\n\
           execFailure: pick(await run('sh', ['-c', 'echo nope >&2; exit 4']), 'code', 'killed', 'signal', 'stdout', 'stderr', 'message'),\n\
           execTimeout: pick(await run('sleep', ['5'], {{ timeout: 100 }}), 'code', 'killed', 'signal'),\n\
           execMaxBuffer: pick(await run('sh', ['-c', 'head -c 5000 /dev/zero'], {{ maxBuffer: 1000 }}), 'code', 'message'),\n\
           execMissing: pick(await run('no-such-forge-cli-xyz', ['a']), 'code', 'message'),\n\
         }}));",
        dir.path().display().to_string(),
    ));
    let ours = json!({
        "execFailure": p["execFailure"], "execTimeout": p["execTimeout"],
        "execMaxBuffer": p["execMaxBuffer"], "execMissing": p["execMissing"],
    });
    assert_same_as_node(&ours, &node);
}

#[tokio::test(flavor = "multi_thread")]
async fn git_runs_in_a_local_repository() {
    let g = case("git").await;
    let quiet = json!({ "stdout": "", "stderr": "" });
    assert_eq!(g["steps"], json!([quiet, quiet]));
    assert_eq!(
        g["log"],
        json!({ "stdout": "first commit|Forge Test|forge@example.com\n", "stderr": "" })
    );
    assert_eq!(g["branch"], json!("trunk\n"));
    assert_eq!(g["status"], json!(""));
    // defaultResolveRemoteUrl: null with no origin and outside a repository, the URL once set.
    assert_eq!(g["remoteBefore"], Value::Null);
    assert_eq!(g["remote"], json!("git@GitHub.com:Acme/App.git"));
    assert_eq!(g["remoteNoRepo"], Value::Null);
    assert_eq!(
        g["remoteParsed"],
        json!({ "transport": "scp", "host": "github.com", "path": "Acme/App" })
    );
    assert_eq!(
        g["failure"],
        json!({ "code": 128, "killed": false, "stdout": "", "stderr": "fatal: Needed a single revision\n" })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_runner_classifies_failures() {
    let c = case("cli").await;
    // The runner's overlay, then the call's over it.
    assert_eq!(
        c["run"],
        json!({ "stdout": "base call yes\n", "stderr": "" })
    );
    assert_eq!(
        c["missing"],
        json!({ "class": "ForgeCliMissingError", "message": "Acme CLI (sh) is not installed", "kind": "missing-cli" })
    );
    assert_eq!(
        c["auth"],
        auth_error(
            "Acme CLI is not signed in",
            "error: Not logged in to acme.test\n"
        )
    );
    let sh = |script: &str| json!(["-c", script]);
    assert_eq!(
        c["noStderr"],
        cli_error(json!(3), "sh command failed without stderr", sh("exit 3"))
    );
    assert_eq!(
        c["stderr"],
        cli_error(json!(2), "boom\n", sh("echo boom >&2; exit 2"))
    );
    let terminated = |ms: u32| {
        format!("sh was terminated before completing (timed out after {ms}ms or exceeded the output limit)")
    };
    assert_eq!(
        c["timeout"],
        cli_error(Value::Null, &terminated(200), sh("sleep 5"))
    );
    assert_eq!(
        c["timeoutContext"],
        cli_error(Value::Null, &terminated(1234), sh("sleep 5"))
    );
    assert_eq!(
        c["timeoutWithStderr"],
        cli_error(Value::Null, "partial\n", sh("echo partial >&2; sleep 5"))
    );
    // Values that did not come from `run`.
    assert_eq!(c["alreadyClassified"], json!(true));
    assert_eq!(c["commandErrorKept"], json!(true));
    assert_eq!(
        c["commandErrorAuth"],
        auth_error("Acme CLI is not signed in", "authentication required")
    );
    let list = json!(["pr", "list"]);
    assert_eq!(
        c["string"],
        cli_error(
            Value::Null,
            "sh command failed without stderr",
            list.clone()
        )
    );
    assert_eq!(
        c["authInMessage"],
        auth_error("Acme CLI is not signed in", "")
    );
    assert_eq!(
        c["bufferStderr"],
        cli_error(json!(9), "from a buffer", list.clone())
    );
    assert_eq!(
        c["codeString"],
        cli_error(
            Value::Null,
            "sh command failed without stderr",
            list.clone()
        )
    );
    assert_eq!(
        c["killedByCaller"],
        cli_error(Value::Null, &terminated(200), list)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cli_paths_json_output_and_redaction() {
    // A null answer and a failure are looked up again; a path is kept; callers share a lookup.
    assert_eq!(
        *case("cachedResolver").await,
        json!({ "first": null, "shared": true, "second": "/usr/bin/acme", "third": "/usr/bin/acme", "calls": 2,
            "failed": { "class": "Error", "message": "lookup failed" }, "retried": "/bin/flaky", "failCalls": 2 })
    );
    let j = case("json").await;
    assert_eq!(j["ok"], json!({ "value": { "number": 7, "title": "Fix" } }));
    let view = json!(["pr", "view"]);
    assert_eq!(
        j["invalid"],
        cli_error(
            Value::Null,
            "acme pr view did not return valid JSON (8 bytes)",
            view.clone()
        )
    );
    let zod = "[\n  {\n    \"expected\": \"number\",\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"number\"\n    ],\n    \"message\": \"Invalid input: expected number, received string\"\n  }\n]";
    assert_eq!(
        j["mismatch"],
        cli_error(
            Value::Null,
            &format!("acme pr view JSON did not match the expected schema: {zod}"),
            view
        )
    );
    assert_eq!(
        *case("redact").await,
        json!({
            "mixed": ["api", "--token", "<redacted>", "--header=<redacted>", "--body=ok", "-f", "a=b", "--token"],
            "placeholder": ["--token=***", "--header", "***", "x"],
            "none": ["--token", "t"],
        })
    );
}

// Expected values from Paseo's SDK's parseGitRemoteLocation (packages/plugin/src/server/forge-toolkit), not Node.
#[tokio::test(flavor = "multi_thread")]
async fn git_remotes_parse_as_paseos_protocol_does() {
    let https =
        |host: &str, path: &str| json!({ "transport": "https", "host": host, "path": path });
    let scp = |host: &str, path: &str| json!({ "transport": "scp", "host": host, "path": path });
    let expected = json!([
        ["https://GitHub.com/Acme/App.git", https("github.com", "Acme/App")],
        ["https://github.com/acme/app/", https("github.com", "acme/app")],
        ["http://git.example.test/%7Euser/repo", { "transport": "http", "host": "git.example.test", "path": "~user/repo" }],
        ["ssh://git@gitlab.example.com:2222/group/sub/project.git",
            { "transport": "ssh", "host": "gitlab.example.com", "port": "2222", "path": "group/sub/project" }],
        ["ssh://git@gitlab.example.com:22/group/project", { "transport": "ssh", "host": "gitlab.example.com", "path": "group/project" }],
        ["https://forge.example.com:443/a/b", https("forge.example.com", "a/b")],
        ["https://forge.example.com:8443/a/b", { "transport": "https", "host": "forge.example.com", "port": "8443", "path": "a/b" }],
        ["git@github.com:acme/app.git", scp("github.com", "acme/app")],
        ["deploy@bitbucket.org.:team/repo", scp("bitbucket.org", "team/repo")],
        ["  git@host.test:/abs/path.git  ", scp("host.test", "abs/path")],
        ["git://example.com/a/b", null],
        ["file:///srv/repo.git", null],
        ["", null],
        ["   ", null],
        ["not a url", null],
        ["https://example.com/", null],
        ["https://example.com/.git", null],
        ["git@-bad-.com:a/b", null],
        ["https://exa_mple.com/a/b", https("exa_mple.com", "a/b")],
        ["https://example.com/%E0%A4%A", null],
    ]);
    assert_eq!(*case("remotes").await, expected);
}

#[tokio::test(flavor = "multi_thread")]
async fn page_guards_stop_repeats_and_endless_walks() {
    assert_eq!(
        *case("paging").await,
        json!({
            "progress": ["ok", "ok", "ok", "Error: Acme pagination repeated a full page without making progress"],
            "hasNext": [false, true, false, true, "Error: Acme pagination exceeded 3 continuations without total"],
            "defaults": [true, "Error: Gitee pagination exceeded 100 continuations without total"],
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn urls_and_tokens() {
    assert_eq!(
        *case("urls").await,
        json!({
            "built": "https://api.acme.test/v5/repos/a/b?state=open&page=2&draft=false",
            "slash": "https://api.acme.test/v5/repos/a%20b",
            "noQuery": "https://api.acme.test/user",
            "replaced": "https://api.acme.test/pulls?q=a%26b%3Dc",
            "tokens": ["tok", "first", null, null],
        })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_http_client_maps_statuses_onto_forge_errors() {
    let h = case("http").await;
    let echo = |method: &str, url: &str, body: &str, content_type: Value, custom: Value| {
        json!({ "resolved": { "method": method, "url": url, "body": body, "authorization": "Bearer tok-1",
            "accept": "application/json", "userAgent": "forge-test/1", "contentType": content_type, "custom": custom } })
    };
    assert_eq!(
        h["get"],
        echo(
            "GET",
            "/api/echo?state=open&page=2",
            "",
            Value::Null,
            Value::Null
        )
    );
    assert_eq!(
        h["post"],
        echo(
            "POST",
            "/api/echo",
            "{\"title\":\"T\"}",
            json!("application/json"),
            json!("1")
        )
    );
    assert_eq!(
        h["postText"],
        echo(
            "PUT",
            "/api/echo",
            "raw=1",
            json!("text/plain"),
            Value::Null
        )
    );
    assert_eq!(
        h["send"],
        json!({ "status": 200, "contentType": "application/json", "text": "/api/echo" })
    );
    // An empty body is `undefined` for the schema.
    assert_eq!(h["empty"], json!({ "resolved": "undefined" }));
    assert_eq!(h["emptySend"], json!({ "resolved": [204, ""] }));

    assert_eq!(
        h["unauthorized"],
        auth_error(
            "Acme rejected the request (HTTP 401)",
            "{\"message\":\"Bad credentials\"}"
        )
    );
    assert_eq!(
        h["forbidden"],
        auth_error("Acme rejected the request (HTTP 403)", "")
    );
    let local = "127.0.0.1:PORT";
    let get = |path: &str| json!(["GET", path]);
    assert_eq!(
        h["serverError"],
        request_error(
            "Acme",
            local,
            json!(500),
            "kaput",
            json!(["DELETE", "/boom?token=<redacted>&q=1"])
        )
    );
    assert_eq!(
        h["blank"],
        request_error("Acme", local, json!(502), "HTTP 502", get("/blank"))
    );
    assert_eq!(
        h["notFound"],
        request_error("Acme", local, json!(404), "missing", get("/nowhere"))
    );
    assert_eq!(
        h["notJson"],
        request_error(
            "Acme",
            local,
            json!(200),
            "Acme did not return valid JSON (4 bytes)",
            get("/notjson")
        )
    );
    let zod = "[\n  {\n    \"expected\": \"number\",\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"id\"\n    ],\n    \"message\": \"Invalid input: expected number, received undefined\"\n  }\n]";
    assert_eq!(
        h["mismatch"],
        request_error(
            "Acme",
            local,
            json!(200),
            &format!("Acme JSON did not match the expected schema: {zod}"),
            get("/echo")
        )
    );
    assert_eq!(
        h["timeout"],
        request_error(
            "Acme",
            local,
            Value::Null,
            "Acme request timed out after 300ms",
            get("/slow")
        )
    );
    assert_eq!(h["timeoutElapsedOk"], json!(true));
    assert_eq!(
        h["noToken"],
        auth_error("Acme has no access token configured", "")
    );
    assert_eq!(
        h["emptyToken"],
        auth_error("Acme has no access token configured", "")
    );
    // applyToken and isAuthFailureStatus replace the defaults.
    assert_eq!(
        h["customToken"],
        json!({ "resolved": { "url": "/api/echo?access_token=secret", "authorization": null } })
    );
    assert_eq!(
        h["customAuth"],
        auth_error("Gitee rejected the request (HTTP 500)", "kaput")
    );
    assert_eq!(
        h["customUnauthorized"],
        request_error(
            "Gitee",
            local,
            json!(401),
            "{\"message\":\"Bad credentials\"}",
            get("/unauthorized")
        )
    );
    assert_eq!(
        h["injected"],
        json!({ "value": { "ok": true }, "seen": [["https://api.acme.test/v1/things", "PATCH", "Bearer t", "[1]", true]] })
    );
    assert_eq!(
        h["fetchThrows"],
        request_error(
            "Acme",
            "api.acme.test",
            Value::Null,
            "network down",
            get("/x")
        )
    );
    assert_eq!(
        h["refused"],
        request_error("Acme", local, Value::Null, "fetch failed", get("/echo"))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_helpers() {
    let u = case("usage").await;
    assert_eq!(
        u["scopes"],
        json!([
            { "kind": "global" },
            { "kind": "global" },
            { "kind": "session", "provider": "codex", "model": "gpt-5", "env": { "HOME": "/h" } },
            { "kind": "session", "provider": "codex", "env": {} },
            "invalid: env invalid_type",
            "invalid: kind invalid_union",
        ])
    );
    let window = |id: &str, label: &str, used: Value, remaining: Value| json!({ "id": id, "label": label, "usedPct": used, "remainingPct": remaining, "resetsAt": null });
    let mut five = window("five_hour", "5-hour", json!(42.5), json!(57.5));
    five["resetsAt"] = json!("2026-01-01T00:00:00Z");
    let mut over = window("w", "W", json!(120), json!(0));
    over["shortLabel"] = json!("");
    over["summary"] = json!(true);
    over["tone"] = json!("danger");
    let unknown = window("w", "W", Value::Null, Value::Null);
    assert_eq!(u["windows"], json!([five, over, unknown, unknown]));

    let named = |id: &str, label: &str, short: &str| {
        let mut w = window(id, label, json!(25), json!(75));
        w["shortLabel"] = json!(short);
        w
    };
    let fallback = named("window", "Window", "win");
    let mut scoped = named("opus:weekly", "Opus · Weekly", "Opus wk");
    scoped["resetsAt"] = json!("r");
    scoped["summary"] = json!(true);
    scoped["tone"] = json!("ok");
    assert_eq!(
        u["durations"],
        json!([
            named("weekly", "Weekly", "wk"),
            named("five_hour", "5-hour", "5h"),
            named("86400s", "1-day", "1d"),
            named("90s", "90-second", "90s"),
            named("5400s", "90-minute", "90m"),
            named("7200s", "2-hour", "2h"),
            fallback,
            fallback,
            fallback,
            fallback,
            scoped,
            named("opus:u", "Opus · Unknown", "Opus"),
        ])
    );
    assert_eq!(
        u["tones"],
        json!(["default", "default", "ok", "ok", "warning", "warning", "danger", "danger"])
    );
    assert_eq!(
        u["balanceTones"],
        json!(["default", "default", "danger", "danger", "ok", "ok"])
    );
    assert_eq!(u["usedPct"], json!([12.5, null, null, null, null, 0]));
    // sha256 hex (as `printf %s user@example.com | sha256sum` prints it).
    assert_eq!(
        u["hash"],
        json!([
            "b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ])
    );
    assert_eq!(
        u["unavailable"],
        json!([
            { "status": "unavailable", "problem": { "kind": "no_quota", "detail": "No plan" } },
            { "status": "unavailable", "problem": { "kind": "expired", "expiresAt": "2026-01-01T00:00:00Z", "refreshedBy": "codex login" } },
            { "status": "unavailable", "problem": { "kind": "rejected", "status": 401 } },
        ])
    );
}
