//! The names a module exports, known without running anything, and a plugin module's imports
//! of names their module lacks bound to `undefined` (engine/missing_imports.rs does the
//! rewriting).

use std::path::Path;

use deno_core::ModuleSpecifier;

use super::PluginModuleLoader;
use crate::engine::{host_js, missing_imports, transpile};

impl PluginModuleLoader {
    /// A plugin module's imports of names their module lacks made `undefined`, with a warning
    /// each, as in Paseo's bundle (engine/missing_imports.rs).
    pub(super) fn bind_missing_imports(
        &self,
        url: &ModuleSpecifier,
        path: &Path,
        code: String,
    ) -> String {
        let shown = path
            .strip_prefix(&*self.plugin_dir.borrow())
            .unwrap_or(path)
            .display()
            .to_string();
        let rewritten = missing_imports::bind_missing(url, &code, &shown, |specifier| {
            self.known_exports(specifier, url.as_str(), 0)
        });
        let Some((mut out, warnings)) = rewritten else {
            return code;
        };
        // On a line of its own after the last: no line moves.
        out.push_str("\n;");
        for warning in warnings {
            out.push_str(&format!(
                "globalThis.console.warn({});",
                serde_json::to_string(&warning).unwrap()
            ));
        }
        out.push('\n');
        out
    }

    /// The names a module exports, when they are known without running anything: the host's
    /// modules and the plugin's own files (through `export *` too). `None` for the rest
    /// (packages, CommonJS, JSON), whose imports are left to the engine.
    fn known_exports(
        &self,
        specifier: &str,
        referrer: &str,
        depth: u32,
    ) -> Option<std::collections::BTreeSet<String>> {
        if depth > 8 {
            return None;
        }
        let target = self.resolve_specifier(specifier, referrer, true).ok()?;
        let code = match target.scheme() {
            "paseo" => host_js::module_code(target.as_str())?.to_string(),
            "file" => {
                let path = target.to_file_path().ok()?;
                if !self.is_own_source(&path) || self.is_commonjs(&path) {
                    return None;
                }
                let text = std::fs::read_to_string(&path).ok()?;
                if transpile::needs_transpile(&path) {
                    transpile::transpile(&target, &path, text)
                        .ok()?
                        .code
                        .to_string()
                } else if matches!(
                    path.extension().and_then(|e| e.to_str()),
                    Some("js" | "mjs")
                ) {
                    text
                } else {
                    return None;
                }
            }
            _ => return None,
        };
        let exports = missing_imports::exports_of(&target, &code)?;
        let mut names = exports.names;
        for star in exports.star_from {
            let more = self.known_exports(&star, target.as_str(), depth + 1)?;
            names.extend(more.into_iter().filter(|n| n != "default"));
        }
        Some(names)
    }
}
