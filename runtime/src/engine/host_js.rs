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
    ("paseo:internal/web/events", js!("web/events.js")),
    ("paseo:internal/web/encoding", js!("web/encoding.js")),
    ("paseo:internal/web/url", js!("web/url.js")),
    ("paseo:plugin", js!("plugin/index.js")),
    ("paseo:plugin/server", js!("plugin/server.js")),
    ("paseo:internal/node/internal_errors", js!("node/internal_errors.js")),
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
];

pub fn source(url: &str) -> Option<Cow<'static, str>> {
    if let Some((_, code)) = SOURCES.iter().find(|(u, _)| *u == url) {
        return Some(Cow::Borrowed(code));
    }
    if let Some(name) = url.strip_prefix("paseo:unsupported/") {
        return Some(Cow::Owned(format!(
            "throw new Error(\"@getpaseo/plugin/{name} is not supported by this Paseo plugin host yet\");\n"
        )));
    }
    if url.starts_with("paseo:client-stub/") {
        return Some(Cow::Borrowed("export default {};\n"));
    }
    None
}
