//! Popular npm packages inside a plugin against Node. tests/fixtures/npm-suite is one plugin
//! whose `package.json`/`package-lock.json` pin the packages (`scripts/setup` installs them with
//! `npm ci`); each `shared/<name>.mjs` exports a `probe` that exercises its packages offline
//! (servers on 127.0.0.1, files in a temporary folder) and reports what it saw. Every probe runs
//! inside the plugin and under `node`, and the two results must be the same, both ways. Probes
//! that only the V8 build answers as Node does are in `shared/v8-only/` (run on V8). Probes (or cases)
//! that still differ wait in `known-differences/`, not run here, each headed by its minimal
//! reproduction.
mod common;

use common::*;
use serde_json::{json, Value};

/// The probes, as `<folder>/<name>` (`shared/<name>.mjs`, and on V8 `shared/v8-only/<name>.mjs`:
/// what QuickJS answers differently, its `JSON.parse` messages and `Date` zone names), sorted.
fn probes() -> Vec<String> {
    let mut folders = vec!["shared"];
    if cfg!(feature = "v8") {
        folders.push("shared/v8-only");
    }
    let mut names: Vec<String> = folders
        .into_iter()
        .flat_map(|folder| {
            std::fs::read_dir(fixture("npm-suite").join(folder))
                .unwrap()
                .filter_map(move |e| {
                    let name = e.ok()?.file_name().into_string().ok()?;
                    Some(format!("{folder}/{}", name.strip_suffix(".mjs")?))
                })
        })
        .collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread")]
async fn popular_packages_behave_as_on_node() {
    let suite = fixture("npm-suite");
    assert!(
        suite.join("node_modules/jsonwebtoken").is_dir(),
        "the suite's packages are not installed: run scripts/setup"
    );
    let names = probes();
    assert!(names.len() >= 3, "{names:?}");
    let host = host();
    load_all(&host, &["npm-suite"]).await;
    let mut failures = Vec::new();
    for name in &names {
        let node = under_node(&format!(
            "const {{ probe }} = await import({:?});\nconsole.log(JSON.stringify(await probe()));",
            suite.join(format!("{name}.mjs")).display().to_string(),
        ));
        let mut request = open_request();
        request["env"]["PACKAGE"] = json!(name);
        let out = open(&host, request).await.unwrap();
        let ours: Value = serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap();
        if let Err(e) = std::panic::catch_unwind(|| assert_same_as_node(&ours, &node)) {
            let text = e
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| format!("{e:?}"));
            failures.push(format!("{name}: {text}"));
        }
    }
    host.shutdown().await;
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
