//! Resolution: a specifier (relative with TypeScript's extension rules, `node:` builtins, host
//! modules, `zod`, the plugin's `node_modules` through `oxc_resolver`) to the URL it names, which
//! files are CommonJS, and the plugin folder rules.

use std::path::Path;

use deno_core::ModuleSpecifier;
use oxc_resolver::ResolveOptions;

use super::builtins::{host_module_url, is_node_builtin, CLIENT_ONLY_SDK, CLIENT_STUBS};
use super::PluginModuleLoader;

/// The resolver's options for one set of `exports` conditions (`import` or `require`).
pub(super) fn resolve_options(conditions: &[&str]) -> ResolveOptions {
    ResolveOptions {
        condition_names: conditions.iter().map(|s| s.to_string()).collect(),
        extensions: [
            ".ts", ".tsx", ".mts", ".js", ".jsx", ".mjs", ".cjs", ".cts", ".json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        // TypeScript's rule: `./x.js` may name `./x.ts`.
        extension_alias: vec![
            (
                ".js".into(),
                vec![".ts".into(), ".tsx".into(), ".js".into()],
            ),
            (".jsx".into(), vec![".tsx".into(), ".jsx".into()]),
            (".mjs".into(), vec![".mts".into(), ".mjs".into()]),
            (".cjs".into(), vec![".cts".into(), ".cjs".into()]),
        ],
        // Node reads `exports` (by the conditions above), then `main`; the bundler-only
        // `module` field is never used (it may name ES code for a CommonJS package's `require`
        // callers, or an older build).
        main_fields: vec!["main".into()],
        module_type: true,
        ..ResolveOptions::default()
    }
}

impl PluginModuleLoader {
    /// Resolves a specifier the way both `import` (esm = true) and `require` do.
    pub fn resolve_specifier(
        &self,
        specifier: &str,
        referrer: &str,
        esm: bool,
    ) -> Result<ModuleSpecifier, String> {
        if let Some(url) = node_relative(specifier, referrer) {
            return ModuleSpecifier::parse(&url).map_err(|e| e.to_string());
        }
        let bare = specifier.strip_prefix("node:");
        if let Some(name) = bare.or(Some(specifier)).filter(|n| is_node_builtin(n)) {
            return Ok(ModuleSpecifier::parse(&format!("node:{name}")).unwrap());
        }
        if let Some(name) = bare {
            return Err(format!("Unknown Node built-in module: node:{name}"));
        }
        if specifier.starts_with("paseo:") {
            // Internal modules are reachable only from host code.
            // (The engine loads the bootstrap with a non-URL referrer.)
            // CommonJS facades (file modules) reach the require machinery too.
            if referrer.starts_with("paseo:")
                || referrer.starts_with("node:")
                || ModuleSpecifier::parse(referrer).is_err()
                || specifier == "paseo:internal/cjs"
            {
                return Ok(ModuleSpecifier::parse(specifier).unwrap());
            }
            return Err(format!("Cannot find module '{specifier}'"));
        }
        if let Some(url) = host_module_url(specifier) {
            return Ok(ModuleSpecifier::parse(url).unwrap());
        }
        if specifier == "@getpaseo/plugin/client/host" {
            return Err(format!("{specifier} is private to the app host"));
        }
        if CLIENT_ONLY_SDK.contains(&specifier) {
            return Err(format!(
                "{specifier} is available only in plugin client code"
            ));
        }
        if CLIENT_STUBS.contains(&specifier) {
            return Ok(ModuleSpecifier::parse(&format!("paseo:client-stub/{specifier}")).unwrap());
        }
        if specifier == "@paseo/plugin" || specifier.starts_with("@paseo/plugin/") {
            return Err(format!(
                "{specifier} is the pre-0.8 SDK scope and was removed; import @getpaseo/plugin instead"
            ));
        }
        // The host provides zod (v4); a plugin's own copy is never used.
        let host_package = specifier == "zod" || specifier.starts_with("zod/");
        let from_dir = if host_package {
            self.host_js_dir.clone()
        } else if let Ok(url) = ModuleSpecifier::parse(referrer) {
            match url.to_file_path() {
                Ok(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
                Err(_) => self.plugin_dir.borrow().clone(),
            }
        } else {
            self.plugin_dir.borrow().clone()
        };
        if let Ok(url) = ModuleSpecifier::parse(specifier) {
            if url.scheme() == "file" {
                return Ok(url);
            }
        }
        let resolver = if esm { &self.esm } else { &self.cjs };
        let resolution = resolver.resolve(&from_dir, specifier).map_err(|e| {
            let from = referrer.strip_prefix("file://").unwrap_or(referrer);
            match e {
                // Paseo resolves its own packages from its install; this host has only these.
                oxc_resolver::ResolveError::NotFound(_) if specifier.starts_with("@getpaseo/") => {
                    format!(
                        "Cannot find module '{specifier}' imported from {from}: this Paseo plugin host provides @getpaseo/plugin, @getpaseo/plugin/server and @getpaseo/protocol/agent-labels; install other packages in the plugin"
                    )
                }
                oxc_resolver::ResolveError::NotFound(_) => {
                    format!("Cannot find module '{specifier}' imported from {from}")
                }
                other => format!("Cannot resolve '{specifier}' imported from {from}: {other}"),
            }
        })?;
        let url = ModuleSpecifier::from_file_path(resolution.path())
            .map_err(|_| format!("Cannot resolve '{specifier}': not a file path"))?;
        if host_package && esm {
            self.host_packages
                .borrow()
                .lock()
                .unwrap()
                .insert(url.clone());
        }
        Ok(url)
    }

    /// Whether a JavaScript file outside the plugin's own sources is CommonJS (Node's rules).
    pub fn is_commonjs(&self, path: &Path) -> bool {
        match path.extension().and_then(|e| e.to_str()) {
            Some("cjs" | "cts") => true,
            Some("mjs" | "mts" | "ts" | "tsx" | "jsx" | "json") => false,
            _ => {
                if !path.components().any(|c| c.as_os_str() == "node_modules") {
                    return false;
                }
                // Node's rule: `.js` is CommonJS unless the NEAREST package.json says "module"
                // (packages ship `lib/esm/package.json` with `{"type":"module"}` beside a
                // CommonJS root, or `dist/commonjs/package.json` the other way round). The
                // resolution's `package_json()` is the package root's; `module_type()` is
                // Node's ESM_FILE_FORMAT, from the nearest one.
                let file = format!("./{}", path.file_name().unwrap().to_string_lossy());
                match self.esm.resolve(path.parent().unwrap_or(path), &file) {
                    Ok(r) => r.module_type() != Some(oxc_resolver::ModuleType::Module),
                    Err(_) => true,
                }
            }
        }
    }

    /// The plugin folder rules: server code lives in the entry, `server/` or `shared/`.
    pub(super) fn check_folder_rules(&self, path: &Path) -> Result<(), String> {
        let plugin_dir = self.plugin_dir.borrow();
        let Ok(rel) = path.strip_prefix(&*plugin_dir) else {
            return Ok(());
        };
        if rel.components().any(|c| c.as_os_str() == "node_modules") {
            return Ok(());
        }
        let is_code = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("ts" | "tsx" | "mts" | "cts" | "js" | "jsx" | "mjs" | "cjs")
        );
        if !is_code {
            return Ok(());
        }
        let rel_str = rel.to_string_lossy();
        let first = rel
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned());
        match first.as_deref() {
            _ if rel.components().count() == 1
                && (rel_str == "index.server.ts" || rel_str == "index.server.tsx") =>
            {
                Ok(())
            }
            Some("server" | "shared") if rel.components().count() > 1 => Ok(()),
            Some("client") if rel.components().count() > 1 => Err(format!(
                "client-only module cannot be imported into the plugin server bundle: {rel_str}"
            )),
            _ => Err(format!(
                "Plugin modules belong in client/, server/, or shared/: {rel_str}"
            )),
        }
    }
}

/// Builtins share helpers as relative files under js/node/ (`./internal_errors.js`,
/// `./internal/streams/readable.js`, `../validators.js`: paths Node resolves too, so the
/// Node-comparison scripts load the same files), served as `paseo:internal/node/<path>`.
/// `None` for anything else, or a path that leaves js/node/.
fn node_relative(specifier: &str, referrer: &str) -> Option<String> {
    if !(specifier.starts_with("./") || specifier.starts_with("../")) {
        return None;
    }
    let dir: Vec<&str> = if referrer.starts_with("node:") {
        Vec::new()
    } else {
        let path = referrer.strip_prefix("paseo:internal/node/")?;
        let mut parts: Vec<&str> = path.split('/').collect();
        parts.pop();
        parts
    };
    let mut path = dir;
    for part in specifier.split('/') {
        match part {
            "." => {}
            ".." => {
                path.pop()?;
            }
            part => path.push(part),
        }
    }
    let path = path.join("/");
    Some(format!(
        "paseo:internal/node/{}",
        path.strip_suffix(".js").unwrap_or(&path)
    ))
}
