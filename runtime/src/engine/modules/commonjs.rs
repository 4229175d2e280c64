//! CommonJS: a file's source for the host's `require`, and the ES module facade that loads a
//! CommonJS file through it and re-exports the names cjs-module-lexer finds.

use std::path::Path;

use deno_core::ModuleSpecifier;

use super::PluginModuleLoader;
use crate::engine::transpile;

impl PluginModuleLoader {
    /// Source of a file for `require()`: transpiled when TypeScript, JSON text as is.
    pub fn cjs_source(&self, path: &Path) -> Result<String, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("Cannot read {}: {e}", path.display()))?;
        if transpile::needs_transpile(path) {
            let url = ModuleSpecifier::from_file_path(path).unwrap();
            let out = transpile::transpile(&url, path, text)?;
            if let Some(map) = &out.source_map {
                self.source_maps
                    .borrow_mut()
                    .insert(url.to_string(), map.clone());
            }
            return Ok(out.code.to_string());
        }
        let url = ModuleSpecifier::from_file_path(path).unwrap();
        Ok(self.reflowed(&url, text, true))
    }

    /// An ES module that runs a CommonJS file through the host's `require` and re-exports what
    /// it exports: `default` is `module.exports` (or its `default` for transpiled `__esModule`
    /// modules, as esbuild does), plus the names cjs-module-lexer finds.
    pub(super) fn cjs_facade(&self, url: &ModuleSpecifier, path: &Path, text: &str) -> String {
        let mut names = Vec::new();
        self.collect_cjs_names(url, path, text, &mut names, 0);
        names.retain(|n| n != "default" && is_identifier_name(n));
        names.sort();
        names.dedup();
        let file = serde_json::to_string(&path.to_string_lossy()).unwrap();
        let mut code = format!(
            "import {{ requireFile }} from \"paseo:internal/cjs\";\n\
             const m = requireFile({file});\n\
             export default (m && m.__esModule && \"default\" in m) ? m.default : m;\n"
        );
        // Each name is read into a local and exported under its own name: an export name may be
        // any identifier name, reserved words included (express exports `static`), where a
        // binding may not.
        if !names.is_empty() {
            let locals: Vec<String> = (0..names.len())
                .map(|i| format!("__paseo_export{i}"))
                .collect();
            let reads: Vec<String> = names
                .iter()
                .zip(&locals)
                .map(|(name, local)| format!("{name}: {local}"))
                .collect();
            let exports: Vec<String> = names
                .iter()
                .zip(&locals)
                .map(|(name, local)| format!("{local} as {name}"))
                .collect();
            code.push_str(&format!(
                "const {{ {} }} = m;\nexport {{ {} }};\n",
                reads.join(", "),
                exports.join(", ")
            ));
        }
        code
    }

    fn collect_cjs_names(
        &self,
        url: &ModuleSpecifier,
        path: &Path,
        text: &str,
        out: &mut Vec<String>,
        depth: u32,
    ) {
        let (exports, reexports) = transpile::cjs_exports(url, path, text);
        out.extend(exports);
        if depth >= 4 {
            return;
        }
        for spec in reexports {
            if let Ok(target) = self.resolve_specifier(&spec, url.as_str(), false) {
                if let Ok(p) = target.to_file_path() {
                    if let Ok(t) = std::fs::read_to_string(&p) {
                        self.collect_cjs_names(&target, &p, &t, out, depth + 1);
                    }
                }
            }
        }
    }
}

/// An IdentifierName: what an export name and a property key in a destructuring may be,
/// reserved words included.
fn is_identifier_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}
