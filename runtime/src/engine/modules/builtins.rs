//! What the loader knows by name, before any file: the Node builtins (those implemented, listed
//! with their code in `host_js`, and those Node has but this host lacks), the host's modules,
//! the client-only specifiers a server module may not or need not load, and the zod hint for
//! choosing a standby isolate.

use std::path::{Path, PathBuf};

/// Node builtins this host implements, by bare name: made from the table of their embedded code
/// (`host_js`), so that every one listed is one served.
pub use crate::engine::host_js::NODE_BUILTINS;

/// Node builtins that exist in Node but not (yet) here: importing one fails with a clear error.
const NODE_UNSUPPORTED: &[&str] = &[
    "cluster",
    "domain",
    "inspector",
    "repl",
    "sys",
    "test",
    "trace_events",
    "wasi",
];

/// Specifiers that belong to the app (client) side of a plugin.
pub(super) const CLIENT_ONLY_SDK: &[&str] = &[
    "@getpaseo/plugin/client",
    "@getpaseo/plugin/client/react-native",
    "@getpaseo/plugin/client/ui",
    "@getpaseo/plugin/react-native",
    "@getpaseo/plugin/ui",
];

/// Client-only libraries that a shared module may import; the server side gets an empty module,
/// as Paseo's bundler stubs them.
pub(super) const CLIENT_STUBS: &[&str] = &[
    "react",
    "react-native",
    "@tanstack/react-query",
    "react/jsx-runtime",
];

/// Whether the plugin's own server sources (the entry, `server/`, `shared/`) import zod, the
/// host-provided package: a hint for which standby isolate to bind (one with zod evaluated
/// ahead), never a rule. Scans at most 256 files of up to 1 MiB.
pub fn mentions_host_package(plugin_dir: &Path, entry: &Path) -> bool {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if out.len() >= 256 {
                return;
            }
            match entry.file_type() {
                Ok(t) if t.is_dir() && path.file_name().is_some_and(|n| n != "node_modules") => {
                    collect(&path, out)
                }
                Ok(t) if t.is_file() => out.push(path),
                _ => {}
            }
        }
    }
    let mut files = vec![entry.to_path_buf()];
    collect(&plugin_dir.join("server"), &mut files);
    collect(&plugin_dir.join("shared"), &mut files);
    files.iter().any(|file| {
        let code = matches!(
            file.extension().and_then(|e| e.to_str()),
            Some("ts" | "tsx" | "mts" | "js" | "jsx" | "mjs")
        );
        code && std::fs::metadata(file).is_ok_and(|m| m.len() <= 1 << 20)
            && std::fs::read_to_string(file).is_ok_and(|text| {
                ["\"zod\"", "'zod'", "\"zod/", "'zod/"]
                    .iter()
                    .any(|s| text.contains(s))
            })
    })
}

/// Whether `name` (bare, without `node:`) is a Node builtin: one this host implements, or one it
/// lacks (importing that fails with a clear error).
pub fn is_node_builtin(name: &str) -> bool {
    NODE_BUILTINS.contains(&name) || NODE_UNSUPPORTED.contains(&name)
}

/// Host modules (`@getpaseo/plugin*`, and the runtime helpers of Paseo's own packages that
/// plugins import, which Paseo resolves from its install) by specifier → internal URL.
pub(super) fn host_module_url(specifier: &str) -> Option<&'static str> {
    Some(match specifier {
        "@getpaseo/plugin" => "paseo:plugin",
        "@getpaseo/protocol/agent-labels" => "paseo:protocol/agent-labels",
        "@getpaseo/plugin/server" => "paseo:plugin/server",
        "@getpaseo/plugin/server/provider" | "@getpaseo/plugin/provider" => {
            "paseo:plugin/server/provider"
        }
        "@getpaseo/plugin/server/acp" | "@getpaseo/plugin/acp" => "paseo:plugin/server/acp",
        "@getpaseo/plugin/server/forge-toolkit" => "paseo:plugin/server/forge-toolkit",
        "@getpaseo/plugin/server/usage" => "paseo:plugin/server/usage",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::PluginModuleLoader;
    use super::*;
    use crate::engine::host_js;

    /// The builtins the loader resolves and the `node:` modules `host_js` serves agree: each
    /// implemented one, bare or with `node:`, resolves to the `node:` URL of code that is
    /// embedded; each unsupported one resolves too (for its clear error at load) and has none.
    #[test]
    fn resolved_builtins_are_the_served_ones() {
        let loader = PluginModuleLoader::new(PathBuf::new(), PathBuf::new());
        let referrer = "file:///plugin/index.server.ts";
        for name in NODE_BUILTINS.iter().chain(NODE_UNSUPPORTED) {
            assert!(is_node_builtin(name), "{name}");
            for specifier in [name.to_string(), format!("node:{name}")] {
                let url = loader
                    .resolve_specifier(&specifier, referrer, true)
                    .unwrap();
                assert_eq!(url.as_str(), format!("node:{name}"));
            }
            let served = host_js::module_code(&format!("node:{name}")).is_some();
            let supported = NODE_BUILTINS.contains(name);
            assert_eq!(served, supported, "node:{name}: served {served}");
            assert!(
                !(supported && NODE_UNSUPPORTED.contains(name)),
                "{name} is both implemented and unsupported"
            );
        }
        assert!(!is_node_builtin("left-pad"));
        assert!(loader
            .resolve_specifier("node:left-pad", referrer, true)
            .is_err());
    }
}
