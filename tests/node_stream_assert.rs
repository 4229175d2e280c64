//! `node:stream`, `node:stream/promises`, `node:string_decoder`, `node:assert`,
//! `node:assert/strict`, `node:querystring` and `node:perf_hooks` through a real plugin. The
//! expected values are what Node 20 prints for the same fixture code (except where noted).

mod common;

use common::*;
use serde_json::{json, Value};

async fn results() -> Value {
    results_with(open_request()).await
}

async fn results_with(request: Value) -> Value {
    let host = host();
    load_all(&host, &["node-stream-assert"]).await;
    let out = open(&host, request)
        .await
        .unwrap_or_else(|e| panic!("{e}\n{:?}", log_lines(&host, "node-stream-assert")));
    serde_json::from_str(out["env"]["RESULT"].as_str().unwrap()).unwrap()
}

fn check(r: &Value, expected: &[(&str, &str)]) {
    for (key, want) in expected {
        assert_eq!(
            r[*key]
                .as_str()
                .unwrap_or_else(|| panic!("{key} missing: {}", r[*key])),
            *want,
            "{key}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn streams_behave_like_node() {
    let r = results().await;
    check(&r, &[
        ("pipeline", "A|B|C"),
        ("pipelineEvents", "src:end,final,sink:finish,sink:close,src:close,done:ok"),
        ("flowing", "data:0,data:1,data:2,end,close"),
        ("paused", "abcd|ef"),
        ("writable", "write:ab,ret:true,ret:false,needDrain:true,write:cd,write:ef,end-cb,finish,close"),
        ("writev", "{\"a\":1}+[2] \"three\""),
        ("writeError", "cb:disk full,error:disk full,close|destroyed=true"),
        ("writeAfterEnd", "ERR_STREAM_WRITE_AFTER_END|write after end"),
        ("pushAfterEof", "ERR_STREAM_PUSH_AFTER_EOF|stream.push() after EOF"),
        ("badChunk", "TypeError|ERR_INVALID_ARG_TYPE|The \"chunk\" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received type number (42)"),
        ("nullChunk", "TypeError|ERR_STREAM_NULL_VALUES|May not write null values to stream"),
        ("flush", "<x>!"),
        ("setEncoding", "é|€"),
        ("pipe", "aabbccdd"),
        ("iterate", "pq|destroyed=true"),
        ("fromAsync", "[10,20]"),
        ("duplex", "end,finish,close|true"),
        ("pipelinePromise", "xxyy"),
        ("pipelineRejects", "Error||bad boom"),
        ("premature", "ERR_STREAM_PREMATURE_CLOSE|Premature close"),
        ("toWeb", "true:we,true:b!"),
        ("fromWeb", "true:from a response"),
        ("shape", "function,true,true,true,true,function,16384"),
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn stream_gaps_fail_naming_the_member() {
    let r = results().await;
    check(
        &r,
        &[
            (
                "compose",
                "Error||node:stream.compose is not supported by the Paseo plugin host yet",
            ),
            (
                "writableToWeb",
                "Error||node:stream.Writable.toWeb is not supported by the Paseo plugin host yet",
            ),
        ],
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn string_decoder_keeps_split_characters() {
    let r = results().await;
    check(&r, &[
        ("decoderUtf8", r#"["","é","","","€","","","","😀","�"]"#),
        ("decoderUtf16", r#"["a","\ud83d","\ude00",""]"#),
        ("decoderBase64", "aGVs||bG8="),
        ("decoderHex", "01abff"),
        ("decoderLatin1", "éA"),
        ("decoderEncoding", "utf8,utf16le,latin1"),
        ("decoderBad", "TypeError|ERR_UNKNOWN_ENCODING|Unknown encoding: klingon"),
        ("decoderBadInput", "TypeError|ERR_INVALID_ARG_TYPE|The \"buf\" argument must be an instance of Buffer, TypedArray, or DataView. Received type number (5)"),
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn assert_messages_match_node() {
    let r = results().await;
    let ok = ["no error"; 9].join(";");
    check(&r, &[
        ("assertOk", ok.as_str()),
        ("strictEqual", "AssertionError|ERR_ASSERTION|Expected values to be strictly equal:\n\n1 !== 2\n"),
        ("strictEqualCustom", "AssertionError|ERR_ASSERTION|numbers differ\n\n1 !== 2\n"),
        ("strictEqualLong", "AssertionError|ERR_ASSERTION|Expected values to be strictly equal:\n+ actual - expected\n\n+ 'hello world'\n- 'hello there'\n         ^"),
        ("deepStrictEqual", "AssertionError|ERR_ASSERTION|Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n    a: 1,\n    b: [\n      1,\n+     2\n-     3\n    ]\n  }"),
        ("notStrictEqual", "AssertionError|ERR_ASSERTION|Expected \"actual\" to be strictly unequal to: 1"),
        ("equal", "AssertionError|ERR_ASSERTION|1 == 2"),
        ("deepEqual", "AssertionError|ERR_ASSERTION|Expected values to be loosely deep-equal:\n\n[\n  1,\n  2\n]\n\nshould loosely deep-equal\n\n[\n  1,\n  3\n]"),
        // Node quotes the source expression here; without the source it says what Node says then.
        ("okFalsy", "AssertionError|ERR_ASSERTION|0 == true"),
        ("okMessage", "AssertionError|ERR_ASSERTION|needed truth"),
        ("okNoArgs", "AssertionError|ERR_ASSERTION|No value argument passed to `assert.ok()`"),
        ("throwsMissing", "AssertionError|ERR_ASSERTION|Missing expected exception."),
        ("throwsMissingClass", "AssertionError|ERR_ASSERTION|Missing expected exception (TypeError): should throw"),
        ("throwsWrongClass", "AssertionError|ERR_ASSERTION|The error is expected to be an instance of \"RangeError\". Received \"TypeError\"\n\nError message:\n\nWrong value"),
        ("throwsRegExp", "AssertionError|ERR_ASSERTION|The input did not match the regular expression /nope/. Input:\n\n'TypeError: Wrong value'\n"),
        ("throwsObject", "AssertionError|ERR_ASSERTION|Expected values to be strictly deep-equal:\n+ actual - expected\n\n  Comparison {\n+   message: 'Wrong value'\n-   message: 'Other'\n  }"),
        ("throwsNotFn", "TypeError|ERR_INVALID_ARG_TYPE|The \"fn\" argument must be of type function. Received type string ('nope')"),
        ("doesNotThrow", "AssertionError|ERR_ASSERTION|Got unwanted exception: quietly\nActual message: \"Wrong value\""),
        ("rejects", "AssertionError|ERR_ASSERTION|Missing expected rejection."),
        ("rejectsOk", "no error"),
        ("doesNotReject", "AssertionError|ERR_ASSERTION|Got unwanted rejection.\nActual message: \"nope\""),
        ("match", "AssertionError|ERR_ASSERTION|The input did not match the regular expression /x/. Input:\n\n'abc'\n"),
        ("doesNotMatch", "AssertionError|ERR_ASSERTION|The input was expected to not match the regular expression /b/. Input:\n\n'abc'\n"),
        ("fail", "AssertionError|ERR_ASSERTION|Failed"),
        ("failMessage", "AssertionError|ERR_ASSERTION|custom failure"),
        ("ifError", "AssertionError|ERR_ASSERTION|ifError got unwanted exception: had error"),
        ("strictModule", "true;true;AssertionError|ERR_ASSERTION|Expected values to be strictly equal:\n\n1 !== '1'\n"),
        ("assertionError", r#"{"name":"AssertionError","code":"ERR_ASSERTION","actual":"a","expected":"b","operator":"strictEqual","generatedMessage":true,"instance":true,"str":"AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:"}"#),
        ("assertionErrorCtor", "Expected values to be strictly equal:\\n\\n1 !== 2\\n|true"),
    ]);
}

#[tokio::test(flavor = "multi_thread")]
async fn querystring_round_trips() {
    let r = results().await;
    check(
        &r,
        &[
            (
                "qsParse",
                r#"{"a":["1","2"],"b":"x y","c":"€","d":"","e":"%zz"}"#,
            ),
            (
                "qsStringify",
                "name=Zo%C3%AB%20%26%20co&tags=a%20b&tags=c%2Fd&n=5&ok=true&none=",
            ),
            (
                "qsRoundTrip",
                r#"{"name":"Zoë & co","tags":["a b","c/d"],"n":"5","ok":"true","none":""}"#,
            ),
            ("qsCustom", r#"a:1;b:2|{"a":"1","b":"2"}"#),
            ("qsEscape", "a%20b%26%C3%A9|a b%zz|true"),
            ("qsMaxKeys", r#"{"a":"1","b":"2"}"#),
        ],
    );
    assert_eq!(r["qsNullProto"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn perf_hooks_has_the_clock_only() {
    let r = results().await;
    assert_eq!(r["perfNow"], true);
    assert_eq!(r["perfTimeOrigin"], true);
    check(&r, &[
        ("perfMonitor", "Error||node:perf_hooks.monitorEventLoopDelay is not supported by the Paseo plugin host yet"),
        ("perfObserver", "Error||node:perf_hooks.PerformanceObserver is not supported by the Paseo plugin host yet"),
    ]);
}

// Scenarios whose timing differs from Node's in the engine (none since process.nextTick has
// its own queue).
const NODE_TIMING_ONLY: &[&str] = &[];

// Every scenario in server/scenarios.js, run in the engine, logs what Node logged for it
// (scenarios.expected.json, recorded and kept current by js/node/test/check-stream-assert.mjs).
#[tokio::test(flavor = "multi_thread")]
async fn scenarios_log_what_node_logs() {
    let mut request = open_request();
    request["env"]["CHECK_SCENARIOS"] = json!("1");
    let actual = results_with(request).await;
    let path = fixture("node-stream-assert").join("scenarios.expected.json");
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let expected = expected.as_object().unwrap();
    assert!(
        expected.len() > 50,
        "only {} scenarios recorded",
        expected.len()
    );
    let mut diffs = Vec::new();
    for (label, want) in expected {
        if NODE_TIMING_ONLY.contains(&label.as_str()) {
            continue;
        }
        if actual[label] != *want {
            diffs.push(format!(
                "{label}
  node:   {want}
  engine: {}",
                actual[label]
            ));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} scenarios differ from Node:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

// A CommonJS dependency written like split2/through2: `require("stream")`, `require("string_decoder")`
// and a `util.inherits` Transform subclass. Ignored because `require()` of any builtin that has
// imports of its own (node:os, node:fs, node:stream, …) aborts the process: deno_core's
// op_import_sync asserts its resolve callback only sees "original" (ops_builtin.rs:703), and under
// QuickJS it is also called for the builtin's own imports.
#[tokio::test(flavor = "multi_thread")]
async fn commonjs_stream_consumers_work() {
    let mut request = open_request();
    request["env"]["CHECK_CJS"] = json!("1");
    let r = results_with(request).await;
    check(&r, &[("cjsSplit", "> one|> two é€|> three")]);
}
