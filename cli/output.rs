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
