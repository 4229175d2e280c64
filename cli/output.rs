//! How the client commands print the daemon's answers: `--json` as it is, or for people as
//! tables and summaries; errors on stderr (or as `{"error":…}` with `--json`), exit 1.

use std::process::ExitCode;

use serde_json::{json, Value};

pub fn table(headers: &[&str], rows: Vec<Vec<String>>) {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.len());
        }
    }
    let line = |cells: Vec<String>| {
        let text: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        println!("{}", text.join("  ").trim_end());
    };
    line(headers.iter().map(|h| h.to_string()).collect());
    for row in rows {
        line(row);
    }
}

pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub fn done(result: Result<Value, String>, json_out: bool, human: impl FnOnce(&Value)) -> ExitCode {
    match result {
        Ok(value) => {
            if json_out {
                println!("{}", serde_json::to_string_pretty(&value).unwrap());
            } else {
                human(&value);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            if json_out {
                println!("{}", json!({ "error": error }));
            } else {
                eprintln!("error: {error}");
            }
            ExitCode::from(1)
        }
    }
}

pub fn print_agent(v: &Value) {
    println!(
        "agent     {}  ({}, {})",
        cell(&v["id"]),
        cell(&v["provider"]),
        cell(&v["status"])
    );
    println!("cwd       {}", cell(&v["cwd"]));
    if let Some(launch) = v["launch"].as_object() {
        println!(
            "opened    {} with env {} tools {}",
            cell(&launch["reason"]),
            launch["env"],
            launch["tools"]
        );
    }
    for p in v["pendingPermissions"].as_array().into_iter().flatten() {
        println!("pending   {} {}", cell(&p["id"]), cell(&p["title"]));
    }
    let shown = v["timeline"].as_array().map_or(0, Vec::len) as u64;
    let earlier = v["timelineLength"]
        .as_u64()
        .unwrap_or(shown)
        .saturating_sub(shown);
    if earlier > 0 {
        println!("  … {earlier} earlier timeline items (plugins page through them with timeline.refetch)");
    }
    for item in v["timeline"].as_array().into_iter().flatten() {
        let text = match item["type"].as_str() {
            Some("user_message") => format!("user: {}", cell(&item["text"])),
            Some("assistant_message") => format!("agent: {}", cell(&item["text"])),
            Some("error") => format!("error: {}", cell(&item["message"])),
            Some("tool_call") => {
                let what = item["detail"]["command"]
                    .as_str()
                    .or(item["detail"]["output"].as_str())
                    .unwrap_or_default();
                let why = item["error"]
                    .as_str()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default();
                format!(
                    "tool {} {}: {what}{why}",
                    cell(&item["name"]),
                    cell(&item["status"])
                )
            }
            Some("plugin") => format!("plugin {}: {}", cell(&item["pluginId"]), item["data"]),
            _ => item.to_string(),
        };
        println!("  {text}");
    }
}

/// Prints what plugins provide of one kind (`forge ls`, `usage ls`).
pub fn provided_table(v: &Value, first: &str) {
    let rows = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| vec![cell(&r["id"]), cell(&r["label"]), cell(&r["plugin"])]);
    table(&[first, "LABEL", "PLUGIN"], rows.collect())
}

/// `paseo plugin stats`: a row per plugin, or (`detail`) one plugin and a row per kind of call.
/// `paseo plugin permissions|allow|deny`: a plugin's policy, a line per kind of grant.
pub fn print_policy(v: &Value) {
    let id = v["id"].as_str().unwrap_or_default();
    let policy = &v["permissions"];
    if policy.is_null() || policy["audit"] == true {
        if policy.is_null() {
            println!("{id}: full access (no policy: it has your rights, as on Paseo's Node host)");
        } else {
            println!("{id}: audit (full access; every access it makes is recorded, and `paseo plugin audit {id}` shows the policy that covers it)");
        }
        if v["quotas"].is_object() {
            print_quotas(v);
        }
        return;
    }
    println!("{id}: sandboxed");
    for (kind, what) in [
        ("read", "reads"),
        ("write", "writes"),
        ("net", "connects to"),
        ("run", "runs"),
        ("env", "sees"),
    ] {
        let items: Vec<&str> = policy[kind]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let shown = if items.is_empty() {
            "nothing".to_string()
        } else {
            items.join(", ")
        };
        println!("  {kind:<6} {what} {shown}");
    }
    let sys = if policy["sys"] == true { "yes" } else { "no" };
    println!("  sys    host information: {sys}");
    if policy["run"].as_array().is_some_and(|a| !a.is_empty()) {
        println!("  (a program it may run runs with your rights)");
    }
    if v["quotas"].is_object() {
        print_quotas(v);
    }
    if v["reloaded"] == true {
        println!("applied: {id} reloaded");
    }
}

/// A plugin's quotas, per agent per minute.
pub fn print_quotas(v: &Value) {
    let q = &v["quotas"];
    println!(
        "  quotas per agent per minute: {} timeline rows, {} bytes of rows, {} sends",
        cell(&q["timelineRowsPerMinute"]),
        cell(&q["timelineBytesPerMinute"]),
        cell(&q["sendsPerMinute"])
    );
}

/// `paseo plugin audit`: the audit started, or the policy it saw (and whether it was applied).
pub fn print_audit(v: &Value) {
    let id = v["id"].as_str().unwrap_or_default();
    if v["started"] == true {
        println!("auditing {id}: it runs with full access, and every access it makes is recorded");
        println!("`paseo plugin audit {id}` shows the policy that covers it; --apply applies it");
        return;
    }
    let seen = v["seen"].as_u64().unwrap_or(0);
    if v["applied"] == true {
        println!("applied to {id} the policy that covers the {seen} accesses seen:");
    } else {
        println!("{id} is audited; the policy that covers the {seen} accesses seen so far:");
    }
    print_policy(&json!({ "id": id, "permissions": v["policy"] }));
}

pub fn print_stats(v: &Value, detail: bool) {
    let rows = v.as_array().cloned().unwrap_or_default();
    let calls = |r: &Value, field: &str| -> u64 {
        r["calls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c[field].as_u64())
            .sum()
    };
    if !detail {
        table(
            &[
                "PLUGIN", "STATUS", "ENGINE", "UPTIME", "HEAP", "CPU", "CALLS", "ERRORS",
                "TIMEOUTS", "RELOADS",
            ],
            rows.iter()
                .map(|r| {
                    vec![
                        cell(&r["id"]),
                        cell(&r["status"]),
                        cell(&r["engine"]),
                        r["uptime_ms"].as_u64().map_or("-".into(), uptime),
                        heap(r),
                        format!("{:.0} ms", r["cpu_ms"].as_f64().unwrap_or(0.0)),
                        calls(r, "count").to_string(),
                        calls(r, "errors").to_string(),
                        calls(r, "timeouts").to_string(),
                        cell(&r["reloads"]),
                    ]
                })
                .collect(),
        );
        return;
    }
    for r in &rows {
        println!(
            "plugin         {} ({}, {})",
            cell(&r["id"]),
            cell(&r["status"]),
            cell(&r["engine"])
        );
        println!(
            "uptime         {}, reloaded {} times",
            r["uptime_ms"].as_u64().map_or("-".into(), uptime),
            cell(&r["reloads"])
        );
        let mib = |field: &str| {
            r[field]
                .as_u64()
                .map_or("-".into(), |b| format!("{:.1} MiB", b as f64 / 1048576.0))
        };
        println!(
            "heap           {} in use, {} allocated, stopped at {}",
            mib("heap_used_bytes"),
            mib("heap_total_bytes"),
            mib("heap_limit_bytes")
        );
        println!(
            "cpu            {:.0} ms",
            r["cpu_ms"].as_f64().unwrap_or(0.0)
        );
        let n = &r["notifications"];
        println!(
            "notifications  {} delivered, {} held during reloads, {} dropped",
            cell(&n["delivered"]),
            cell(&n["held"]),
            cell(&n["dropped"])
        );
        table(
            &[
                "KIND",
                "NAME",
                "CALLS",
                "ERRORS",
                "TIMEOUTS",
                "CANCELLED",
                "P50",
                "P99",
                "MAX",
            ],
            r["calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    let us = |f: &str| micros(c[f].as_u64().unwrap_or(0));
                    vec![
                        cell(&c["kind"]),
                        match c["name"].as_str() {
                            Some("") | None => "-".into(),
                            Some(name) => name.to_string(),
                        },
                        cell(&c["count"]),
                        cell(&c["errors"]),
                        cell(&c["timeouts"]),
                        cell(&c["cancelled"]),
                        us("p50_us"),
                        us("p99_us"),
                        us("max_us"),
                    ]
                })
                .collect(),
        );
    }
}

/// "3.1 / 512 MiB": the heap in use and the plugin's cap; "-" when it is not running.
fn heap(r: &Value) -> String {
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    match r["heap_used_bytes"].as_u64() {
        Some(used) => format!(
            "{:.1} / {:.0} MiB",
            mib(used),
            mib(r["heap_limit_bytes"].as_u64().unwrap_or(0))
        ),
        None => "-".into(),
    }
}

/// "42 µs", "1.3 ms", "2.0 s".
fn micros(us: u64) -> String {
    match us {
        0..1_000 => format!("{us} µs"),
        1_000..1_000_000 => format!("{:.1} ms", us as f64 / 1e3),
        _ => format!("{:.1} s", us as f64 / 1e6),
    }
}

/// "12s", "3m04s", "2h05m".
fn uptime(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s / 60 % 60),
    }
}
