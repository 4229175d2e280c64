//! Which JavaScript engine this build runs: real V8 (the `v8` feature, the default and the
//! engine we ship) or QuickJS-NG under V8's API (`quickjs`, the v8x crate). Exactly one.

#[cfg(all(feature = "v8", feature = "quickjs"))]
compile_error!(
    "the `v8` and `quickjs` features each choose the JavaScript engine: enable one \
     (QuickJS: `--no-default-features --features quickjs`)"
);
#[cfg(not(any(feature = "v8", feature = "quickjs")))]
compile_error!(
    "no JavaScript engine: enable the `v8` feature (the default) or `quickjs` \
     (`--no-default-features --features quickjs`)"
);

/// The engine's short name: `v8` or `quickjs` (what `paseo bench` reports).
pub const NAME: &str = if cfg!(feature = "v8") {
    "v8"
} else {
    "quickjs"
};

/// The engine and its version, for `paseo --version`: "V8 15.0.…" or "QuickJS-NG (v8x)".
pub fn describe() -> String {
    if cfg!(feature = "v8") {
        format!("V8 {}", deno_core::v8::V8::get_version())
    } else {
        // v8x reports the V8 version its API surface copies, not QuickJS's own.
        "QuickJS-NG (v8x, V8's API over QuickJS)".to_string()
    }
}
