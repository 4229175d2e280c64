//! The JavaScript the engine embeds (from `js/`), served to isolates by URL: internal modules
//! (`paseo:internal/*`), host modules (`paseo:plugin*`) and `node:` builtins, whose table is
//! also the list of builtins the loader resolves (`NODE_BUILTINS`). Modules are loaded only when
//! something imports them.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

macro_rules! js {
    ($path:literal) => {
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../js/", $path))
    };
}

/// The host's own modules, by URL: internal, host and the helpers `node:` builtins share (the
/// builtins themselves are in the `node_builtins!` table below).
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
    ("paseo:internal/node/fs_streams", js!("node/fs_streams.js")),
    ("paseo:internal/node/fs_watch", js!("node/fs_watch.js")),
    ("paseo:internal/web/fetch", js!("web/fetch.js")),
    (
        "paseo:internal/node/internal/v8_wire",
        js!("node/internal/v8_wire.js"),
    ),
];

/// Makes, from one table of the `node:` builtins this host implements (bare name, file under
/// `js/`), both `NODE_BUILTINS` (the names, in the table's order, which is
/// `module.builtinModules`'s) and `NODE_SOURCES` (their code by `node:` URL), so that the
/// builtins the loader resolves and the builtins served are the same ones.
macro_rules! node_builtins {
    ($(($name:literal, $path:literal)),* $(,)?) => {
        /// Node builtins this host implements, by bare name (`engine::modules` adds those Node
        /// has and this host lacks).
        pub const NODE_BUILTINS: &[&str] = &[$($name),*];

        /// The code of each of `NODE_BUILTINS`, by `node:` URL.
        const NODE_SOURCES: &[(&str, &str)] = &[$((concat!("node:", $name), js!($path))),*];
    };
}

node_builtins![
    ("path", "node/path.js"),
    ("path/posix", "node/path.js"),
    ("os", "node/os.js"),
    ("fs", "node/fs.js"),
    ("fs/promises", "node/fs_promises.js"),
    ("util", "node/util.js"),
    ("events", "node/events.js"),
    ("buffer", "node/buffer.js"),
    ("url", "node/url.js"),
    ("timers", "node/timers.js"),
    ("timers/promises", "node/timers_promises.js"),
    ("process", "node/process.js"),
    ("module", "node/module.js"),
    ("crypto", "node/crypto.js"),
    ("child_process", "node/child_process.js"),
    ("net", "node/net.js"),
    ("dgram", "node/dgram.js"),
    ("http", "node/http.js"),
    ("https", "node/https.js"),
    ("tls", "node/tls.js"),
    ("dns", "node/dns.js"),
    ("dns/promises", "node/dns_promises.js"),
    ("stream", "node/stream.js"),
    ("stream/promises", "node/stream_promises.js"),
    ("string_decoder", "node/string_decoder.js"),
    ("assert", "node/assert.js"),
    ("assert/strict", "node/assert_strict.js"),
    ("querystring", "node/querystring.js"),
    ("perf_hooks", "node/perf_hooks.js"),
    ("sqlite", "node/sqlite.js"),
    ("zlib", "node/zlib.js"),
    ("console", "node/console.js"),
    ("tty", "node/tty.js"),
    ("diagnostics_channel", "node/diagnostics_channel.js"),
    ("constants", "node/constants.js"),
    ("punycode", "node/punycode.js"),
    ("util/types", "node/util_types.js"),
    ("stream/web", "node/stream_web.js"),
    ("worker_threads", "node/worker_threads.js"),
    ("http2", "node/http2.js"),
    ("readline", "node/readline.js"),
    ("readline/promises", "node/readline_promises.js"),
    ("async_hooks", "node/async_hooks.js"),
    ("v8", "node/v8.js"),
    ("vm", "node/vm.js"),
];

/// Every embedded module: the host's own (`SOURCES`), then the `node:` builtins.
fn sources() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    SOURCES.iter().chain(NODE_SOURCES)
}

/// A host module's code as the engine evaluates it: its source, then (for every module but the
/// engine's primitives) a note that it finished evaluating, which `process.moduleLoadList`
/// reports. Made once per process. The note's import goes first, on the source's first line
/// (no line moves): QuickJS finds a module's imports by scanning its text (engine/imports.rs),
/// and an import after the code is one a regular expression in the code can hide from it.
pub fn module_code(url: &str) -> Option<&'static str> {
    static CODE: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    let code = CODE.get_or_init(|| {
        sources()
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
        sources()
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
        for &(url, _) in sources() {
            let code = module_code(url).unwrap();
            let specifier = deno_core::ModuleSpecifier::parse(url).unwrap();
            assert_eq!(
                super::super::imports::header(&specifier, code),
                None,
                "{url} has an import after other code"
            );
        }
    }

    /// The `node:` builtins served are those `NODE_BUILTINS` lists (which the loader resolves,
    /// `engine::modules`), each once: none is added to `SOURCES` behind the table's back.
    #[test]
    fn node_builtins_are_the_node_modules_served() {
        let served: Vec<&str> = sources()
            .filter_map(|(url, _)| url.strip_prefix("node:"))
            .collect();
        assert_eq!(served, NODE_BUILTINS);
        let mut unique = NODE_BUILTINS.to_vec();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(
            unique.len(),
            NODE_BUILTINS.len(),
            "a builtin is listed twice"
        );
        for name in NODE_BUILTINS {
            assert!(
                module_code(&format!("node:{name}")).is_some(),
                "node:{name} is listed but not served"
            );
        }
    }
}
