//! `Intl` against Node: tests/fixtures/intl/shared/probe.mjs runs inside a plugin and under
//! `node`. On real V8 (with deno_core's full ICU data) every case must match Node's answer. On
//! the QuickJS build `Intl` is a stub (docs/compat.md): there the test pins what it answers
//! instead, so that a change in either direction is noticed. `Intl.Segmenter` must answer as
//! Node's on both engines (on QuickJS it is js/web/intl_segmenter.js).
mod common;

use common::*;

fn node() -> serde_json::Value {
    let probe = fixture("intl").join("shared/probe.mjs");
    under_node(&format!(
        "const {{ probe }} = await import({:?});\nconsole.log(JSON.stringify(probe()));",
        probe.display().to_string(),
    ))
}

#[cfg(feature = "v8")]
#[tokio::test(flavor = "multi_thread")]
async fn intl_answers_as_in_node() {
    assert_same_as_node(&plugin_result("intl").await, &node());
}

#[cfg(not(feature = "v8"))]
#[tokio::test(flavor = "multi_thread")]
async fn intl_on_quickjs_is_a_stub_that_differs_from_node() {
    let ours = plugin_result("intl").await;
    let node = node();
    // Node formats these; QuickJS does not know locales.
    assert_eq!(node["pluralOne"], "one");
    assert_eq!(ours["pluralOne"], "other");
    assert_eq!(node["numberDe"], "1.234.567,891");
    assert_eq!(ours["numberDe"], "1234567.891");
    // Every case still answers something (nothing throws), so plugins load and run.
    for (case, _) in node.as_object().unwrap() {
        assert!(ours.get(case).is_some(), "{case} missing: {ours}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn segmenter_answers_as_in_node_on_both_engines() {
    let probe = fixture("intl-segmenter").join("shared/probe.mjs");
    let node = under_node(&format!(
        "const {{ probe }} = await import({:?});\nconsole.log(JSON.stringify(probe()));",
        probe.display().to_string(),
    ));
    assert_same_as_node(&plugin_result("intl-segmenter").await, &node);
}
