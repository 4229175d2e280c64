//! The JavaScript the engine embeds (from `js/`), served to isolates by URL: internal modules
//! (`paseo:internal/*`), host modules (`paseo:plugin*`) and `node:` builtins. Modules are loaded
//! only when something imports them.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

macro_rules! js {
    ($path:literal) => {
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../js/", $path))
    };
}

const SOURCES: &[(&str, &str)] = &[
    ("paseo:internal/bootstrap", js!("runtime/bootstrap.js")),
    ("paseo:internal/core", js!("runtime/core.js")),
    ("paseo:internal/host", js!("runtime/host.js")),
    ("paseo:internal/console", js!("runtime/console.js")),
    ("paseo:internal/timers", js!("runtime/timers.js")),
    ("paseo:internal/cjs", js!("runtime/cjs.js")),
    ("paseo:internal/tools", js!("runtime/tools.js")),
    ("paseo:internal/paseo", js!("runtime/paseo.js")),
    ("paseo:internal/settings", js!("runtime/settings.js")),
    ("paseo:internal/providers", js!("runtime/providers.js")),
    ("paseo:internal/forge", js!("runtime/forge.js")),
    ("paseo:internal/web/events", js!("web/events.js")),
    ("paseo:internal/web/encoding", js!("web/encoding.js")),
    ("paseo:internal/web/url", js!("web/url.js")),
    ("paseo:internal/web/performance", js!("web/performance.js")),
    (
        "paseo:internal/web/intl_segmenter",
        js!("web/intl_segmenter.js"),
    ),
    ("paseo:plugin", js!("plugin/index.js")),
    ("paseo:plugin/server", js!("plugin/server.js")),
    ("paseo:plugin/server/provider", js!("plugin/provider.js")),
    (
        "paseo:plugin/server/forge-toolkit",
        js!("plugin/forge_toolkit.js"),
    ),
    ("paseo:plugin/server/usage", js!("plugin/usage.js")),
    ("paseo:plugin/server/acp", js!("plugin/acp.js")),
    (
        "paseo:protocol/agent-labels",
        js!("protocol/agent-labels.js"),
    ),
    (
        "paseo:internal/node/internal_errors",
        js!("node/internal_errors.js"),
    ),
    (
        "paseo:internal/node/internal/validators",
        js!("node/internal/validators.js"),
    ),
    (
        "paseo:internal/node/internal/streams/add-abort-signal",
        js!("node/internal/streams/add-abort-signal.js"),
    ),
    (
        "paseo:internal/node/internal/streams/compose",
        js!("node/internal/streams/compose.js"),
    ),
    (
        "paseo:internal/node/internal/streams/destroy",
        js!("node/internal/streams/destroy.js"),
    ),
    (
        "paseo:internal/node/internal/streams/duplex",
        js!("node/internal/streams/duplex.js"),
    ),
    (
        "paseo:internal/node/internal/streams/duplexify",
        js!("node/internal/streams/duplexify.js"),
    ),
    (
        "paseo:internal/node/internal/streams/duplexpair",
        js!("node/internal/streams/duplexpair.js"),
    ),
    (
        "paseo:internal/node/internal/streams/end-of-stream",
        js!("node/internal/streams/end-of-stream.js"),
    ),
    (
        "paseo:internal/node/internal/streams/from",
        js!("node/internal/streams/from.js"),
    ),
    (
        "paseo:internal/node/internal/streams/legacy",
        js!("node/internal/streams/legacy.js"),
    ),
    (
        "paseo:internal/node/internal/streams/operators",
        js!("node/internal/streams/operators.js"),
    ),
    (
        "paseo:internal/node/internal/streams/passthrough",
        js!("node/internal/streams/passthrough.js"),
    ),
    (
        "paseo:internal/node/internal/streams/pipeline",
        js!("node/internal/streams/pipeline.js"),
    ),
    (
        "paseo:internal/node/internal/streams/readable",
        js!("node/internal/streams/readable.js"),
    ),
    (
        "paseo:internal/node/internal/streams/state",
        js!("node/internal/streams/state.js"),
    ),
    (
        "paseo:internal/node/internal/streams/transform",
        js!("node/internal/streams/transform.js"),
    ),
    (
        "paseo:internal/node/internal/streams/utils",
        js!("node/internal/streams/utils.js"),
    ),
    (
        "paseo:internal/node/internal/streams/writable",
        js!("node/internal/streams/writable.js"),
    ),
    ("node:path", js!("node/path.js")),
    ("node:path/posix", js!("node/path.js")),
    ("node:util", js!("node/util.js")),
    ("node:events", js!("node/events.js")),
    ("node:buffer", js!("node/buffer.js")),
    ("node:fs", js!("node/fs.js")),
    ("node:fs/promises", js!("node/fs_promises.js")),
    ("paseo:internal/node/fs_streams", js!("node/fs_streams.js")),
    ("paseo:internal/node/fs_watch", js!("node/fs_watch.js")),
    ("node:os", js!("node/os.js")),
    ("node:process", js!("node/process.js")),
    ("node:url", js!("node/url.js")),
    ("node:timers", js!("node/timers.js")),
    ("node:timers/promises", js!("node/timers_promises.js")),
    ("node:module", js!("node/module.js")),
    ("node:crypto", js!("node/crypto.js")),
    ("node:child_process", js!("node/child_process.js")),
    ("node:net", js!("node/net.js")),
    ("node:dgram", js!("node/dgram.js")),
    ("node:http", js!("node/http.js")),
    ("node:https", js!("node/https.js")),
    ("node:tls", js!("node/tls.js")),
    ("node:dns", js!("node/dns.js")),
    ("node:dns/promises", js!("node/dns_promises.js")),
    ("paseo:internal/web/fetch", js!("web/fetch.js")),
    ("node:stream", js!("node/stream.js")),
    ("node:stream/promises", js!("node/stream_promises.js")),
    ("node:string_decoder", js!("node/string_decoder.js")),
    ("node:assert", js!("node/assert.js")),
    ("node:assert/strict", js!("node/assert_strict.js")),
    ("node:querystring", js!("node/querystring.js")),
    ("node:perf_hooks", js!("node/perf_hooks.js")),
    ("node:sqlite", js!("node/sqlite.js")),
    ("node:zlib", js!("node/zlib.js")),
    ("node:console", js!("node/console.js")),
    ("node:tty", js!("node/tty.js")),
    (
        "node:diagnostics_channel",
        js!("node/diagnostics_channel.js"),
    ),
    ("node:constants", js!("node/constants.js")),
    ("node:punycode", js!("node/punycode.js")),
    ("node:util/types", js!("node/util_types.js")),
    ("node:stream/web", js!("node/stream_web.js")),
    ("node:worker_threads", js!("node/worker_threads.js")),
    ("node:http2", js!("node/http2.js")),
    ("node:readline", js!("node/readline.js")),
    ("node:readline/promises", js!("node/readline_promises.js")),
    ("node:async_hooks", js!("node/async_hooks.js")),
    ("node:v8", js!("node/v8.js")),
    (
        "paseo:internal/node/internal/v8_wire",
        js!("node/internal/v8_wire.js"),
    ),
    ("node:vm", js!("node/vm.js")),
];

/// A host module's code as the engine evaluates it: its source, then (for every module but the
/// engine's primitives) a note that it finished evaluating, which `process.moduleLoadList`
/// reports. Made once per process. The note's import goes first, on the source's first line
/// (no line moves): QuickJS finds a module's imports by scanning its text (engine/imports.rs),
/// and an import after the code is one a regular expression in the code can hide from it.
pub fn module_code(url: &str) -> Option<&'static str> {
    static CODE: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    let code = CODE.get_or_init(|| {
        SOURCES
            .iter()
            .map(|&(url, code)| {
                let code: &'static str = if url == "paseo:internal/core" {
                    code
                } else {
                    Box::leak(
                        format!(
                            "import {{ noteEvaluated as __paseoNote }} from \"paseo:internal/core\";{code}\n;\
                             __paseoNote({url:?});\n"
                        )
                        .into_boxed_str(),
                    )
                };
                (url, code)
            })
            .collect()
    });
    if let Some(code) = code.get(url) {
        return Some(code);
    }
    url.starts_with("paseo:client-stub/")
        .then_some("export default {};\n")
}

/// Whether a host module is evaluated on first use, and so can be loaded synchronously from JS
/// (`lazyModule` in js/runtime/core.js: `require`, `process.getBuiltinModule`, the globals
/// bootstrap defines lazily, `context.paseo`): every `node:` builtin, and the internal modules
/// behind lazy globals and host features many plugins never use. They are registered with
/// deno_core as lazily loaded ESM under their own specifiers, so an `import` of the same
/// specifier by plugin code gets the same module, whichever comes first. A lazy module may
/// import other lazy modules and the modules bootstrap loads (js/runtime/bootstrap.js); nothing
/// else is loaded yet when it may be evaluated.
pub fn is_lazy(url: &str) -> bool {
    url.starts_with("node:")
        || url.starts_with("paseo:internal/node/")
        || LAZY_INTERNAL.contains(&url)
}

const LAZY_INTERNAL: &[&str] = &[
    "paseo:internal/cjs",
    "paseo:internal/web/events",
    "paseo:internal/web/encoding",
    "paseo:internal/web/fetch",
    "paseo:internal/web/performance",
    "paseo:internal/web/intl_segmenter",
    "paseo:internal/paseo",
    "paseo:internal/settings",
    "paseo:internal/providers",
    "paseo:internal/forge",
];

/// The lazily loaded modules, as one extension each isolate registers. The (ASCII-escaped)
/// sources are made once per process and shared.
pub fn lazy_extension() -> deno_core::Extension {
    static FILES: OnceLock<Vec<(&'static str, Arc<str>)>> = OnceLock::new();
    let files = FILES.get_or_init(|| {
        SOURCES
            .iter()
            .filter(|(url, _)| is_lazy(url))
            .map(|&(url, _)| {
                let code = module_code(url).expect("lazy host module is embedded");
                (url, Arc::from(ascii_escaped(code)))
            })
            .collect()
    });
    let files: Vec<deno_core::ExtensionFileSource> = files
        .iter()
        .map(|(url, code)| deno_core::ExtensionFileSource::new_computed(url, code.clone()))
        .collect();
    deno_core::Extension {
        name: "paseo_lazy",
        lazy_loaded_esm_files: std::borrow::Cow::Owned(files),
        ..Default::default()
    }
}

/// deno_core takes extension code as 7-bit ASCII: anything else becomes a `\uXXXX` escape
/// (UTF-16 units), which means the same character in comments, strings, templates and regular
/// expressions, where the host's JS has them.
fn ascii_escaped(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    for c in code.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04X}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// QuickJS finds a module's imports by scanning its text, which a regular expression can
    /// mislead (engine/imports.rs): the host's own modules keep every import before their code,
    /// where nothing can hide one, so they need no restating.
    #[test]
    fn every_host_module_has_its_imports_before_its_code() {
        for &(url, _) in SOURCES {
            let code = module_code(url).unwrap();
            let specifier = deno_core::ModuleSpecifier::parse(url).unwrap();
            assert_eq!(
                super::super::imports::header(&specifier, code),
                None,
                "{url} has an import after other code"
            );
        }
    }
}
