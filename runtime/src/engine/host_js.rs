//! The JavaScript the engine embeds (from `js/`), served to isolates by URL: internal modules
//! (`paseo:internal/*`), host modules (`paseo:plugin*`) and `node:` builtins. Modules are loaded
//! only when something imports them.

use std::borrow::Cow;

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
    ("paseo:internal/builtins", js!("runtime/builtins.js")),
    ("paseo:internal/tools", js!("runtime/tools.js")),
    ("paseo:internal/paseo", js!("runtime/paseo.js")),
    ("paseo:internal/settings", js!("runtime/settings.js")),
    ("paseo:internal/providers", js!("runtime/providers.js")),
    ("paseo:internal/forge", js!("runtime/forge.js")),
    ("paseo:internal/web/events", js!("web/events.js")),
    ("paseo:internal/web/encoding", js!("web/encoding.js")),
    ("paseo:internal/web/url", js!("web/url.js")),
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
    ("node:path", js!("node/path.js")),
    ("node:path/posix", js!("node/path.js")),
    ("node:util", js!("node/util.js")),
    ("node:events", js!("node/events.js")),
    ("node:buffer", js!("node/buffer.js")),
    ("node:fs", js!("node/fs.js")),
    ("node:fs/promises", js!("node/fs_promises.js")),
    ("node:os", js!("node/os.js")),
    ("node:process", js!("node/process.js")),
    ("node:url", js!("node/url.js")),
    ("node:timers", js!("node/timers.js")),
    ("node:timers/promises", js!("node/timers_promises.js")),
    ("node:module", js!("node/module.js")),
    ("node:crypto", js!("node/crypto.js")),
    ("node:child_process", js!("node/child_process.js")),
    ("node:net", js!("node/net.js")),
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
];

pub fn source(url: &str) -> Option<Cow<'static, str>> {
    if let Some((_, code)) = SOURCES.iter().find(|(u, _)| *u == url) {
        return Some(Cow::Borrowed(code));
    }
    if url.starts_with("paseo:client-stub/") {
        return Some(Cow::Borrowed("export default {};\n"));
    }
    None
}

/// Host modules a plugin often never uses, evaluated only when first reached: `node:events`
/// (behind `process.on`, see js/node/process.js), `node:util` (behind `console`), `node:buffer`
/// (the `Buffer` global), web/events (`Event`, `AbortController`, …), web/encoding
/// (`TextEncoder`, `atob`, …), web/fetch (`fetch`, `Request`, `Response`, …), and the host's
/// `context.paseo` and settings. Registered with deno_core as lazily loaded ESM under their own
/// specifiers, so an `import` of the same specifier by plugin code gets the same module,
/// whichever comes first.
/// They must have no imports (and so do not register themselves: `lazyModule` in
/// js/runtime/core.js and builtins.js do), and the modules they import must have none either:
/// under QuickJS, linking a module resolves its already-linked dependencies' imports again,
/// which deno_core's debug builds reject for modules loaded this way. web/fetch's own imports are
/// never resolved again, since nothing imports web/fetch (nor paseo.js or settings.js).
pub const LAZY: &[&str] = &[
    "node:sqlite",
    "node:events",
    "node:util",
    "node:buffer",
    "paseo:internal/web/events",
    "paseo:internal/web/encoding",
    "paseo:internal/web/fetch",
    "paseo:internal/paseo",
    "paseo:internal/settings",
    "paseo:internal/providers",
    "paseo:internal/forge",
];

/// A host module's code as it is evaluated: each `node:` builtin but the `LAZY` ones registers
/// its namespace once evaluated (a module may import itself), for synchronous lookups
/// (`require`, `process.getBuiltinModule`).
pub fn module_code(url: &str) -> Option<Cow<'static, str>> {
    let code = source(url)?;
    Some(
        match url.strip_prefix("node:").filter(|_| !LAZY.contains(&url)) {
            Some(name) => Cow::Owned(format!(
                "{code}\n;import * as __paseoSelf from \"{url}\";\n\
             import {{ registerBuiltin as __paseoRegister }} from \"paseo:internal/core\";\n\
             __paseoRegister({name:?}, __paseoSelf);\n"
            )),
            None => code,
        },
    )
}

pub fn lazy_extension() -> deno_core::Extension {
    let files: Vec<deno_core::ExtensionFileSource> = LAZY
        .iter()
        .map(|url| {
            let code = module_code(url).expect("lazy host module is embedded");
            deno_core::ExtensionFileSource::new_computed(
                url,
                std::sync::Arc::from(ascii_escaped(&code)),
            )
        })
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
