//! The ES module loader of a plugin isolate: resolution (relative with TypeScript's extension
//! rules, `node:` builtins, host modules, `zod`, the plugin's `node_modules` through
//! `oxc_resolver`), the plugin folder rules, transpiling, JSON, and CommonJS facades.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use deno_core::{
    ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader, ModuleSource,
    ModuleSourceCode, ModuleSpecifier, ModuleType, RequestedModuleType, ResolutionKind,
};
use deno_error::JsErrorBox;
use oxc_resolver::{ResolveOptions, Resolver};

use super::bytecode_cache;
use super::code_cache;
use super::entry;
use super::host_js;
use super::imports;
use super::missing_imports;
use super::transpile;

/// Node builtins this host implements, by bare name.
pub const NODE_BUILTINS: &[&str] = &[
    "path",
    "path/posix",
    "os",
    "fs",
    "fs/promises",
    "util",
    "events",
    "buffer",
    "url",
    "timers",
    "timers/promises",
    "process",
    "module",
    "crypto",
    "child_process",
    "net",
    "dgram",
    "http",
    "https",
    "tls",
    "dns",
    "dns/promises",
    "stream",
    "stream/promises",
    "string_decoder",
    "assert",
    "assert/strict",
    "querystring",
    "perf_hooks",
    "sqlite",
    "zlib",
    "console",
    "tty",
    "diagnostics_channel",
    "constants",
    "punycode",
    "util/types",
    "stream/web",
    "worker_threads",
    "http2",
    "readline",
    "readline/promises",
    "async_hooks",
    "v8",
    "vm",
];

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
const CLIENT_ONLY_SDK: &[&str] = &[
    "@getpaseo/plugin/client",
    "@getpaseo/plugin/client/react-native",
    "@getpaseo/plugin/client/ui",
    "@getpaseo/plugin/react-native",
    "@getpaseo/plugin/ui",
];

/// Client-only libraries that a shared module may import; the server side gets an empty module,
/// as Paseo's bundler stubs them.
const CLIENT_STUBS: &[&str] = &[
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

pub fn is_node_builtin(name: &str) -> bool {
    NODE_BUILTINS.contains(&name) || NODE_UNSUPPORTED.contains(&name)
}

/// Host modules (`@getpaseo/plugin*`, and the runtime helpers of Paseo's own packages that
/// plugins import, which Paseo resolves from its install) by specifier → internal URL.
fn host_module_url(specifier: &str) -> Option<&'static str> {
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

pub struct PluginModuleLoader {
    /// Set when the isolate is bound to its plugin (a standby isolate boots without one).
    plugin_dir: RefCell<PathBuf>,
    /// Modules `paseo:internal/preload` imports (host packages a standby evaluates ahead).
    preload: RefCell<Vec<ModuleSpecifier>>,
    /// Where to note the host-provided packages the plugin imports (see `PluginShared`).
    host_packages: RefCell<Arc<std::sync::Mutex<std::collections::BTreeSet<ModuleSpecifier>>>>,
    host_js_dir: PathBuf,
    /// Where the host's packages are installed (`<host_js_dir>/node_modules`, canonical as the
    /// resolver's paths are), found on first use.
    host_packages_dir: std::cell::OnceCell<Option<PathBuf>>,
    esm: Resolver,
    cjs: Resolver,
    source_maps: RefCell<HashMap<String, Arc<[u8]>>>,
    /// The bound plugin folder's bytecode-cache epoch (`bytecode_cache::epoch`), made at bind.
    cache_epoch: RefCell<Option<String>>,
    /// The epochs of packages outside the plugin's folder, by package folder.
    outside_epochs: RefCell<HashMap<PathBuf, String>>,
    /// While a debugger may attach (`engine::debugger`): `Some(brk)`, and the plugin's modules
    /// carry their source maps inline, for the debugger to show the TypeScript; with `brk`, the
    /// entry starts with a `debugger` statement.
    debugging: std::cell::Cell<Option<bool>>,
}

fn resolve_options(conditions: &[&str]) -> ResolveOptions {
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
    pub fn new(plugin_dir: PathBuf, host_js_dir: PathBuf) -> Self {
        let esm = Resolver::new(resolve_options(&["import", "node", "default"]));
        let cjs = esm.clone_with_options(resolve_options(&["require", "node", "default"]));
        PluginModuleLoader {
            plugin_dir: RefCell::new(plugin_dir),
            preload: Default::default(),
            host_packages: Default::default(),
            host_js_dir,
            host_packages_dir: Default::default(),
            esm,
            cjs,
            source_maps: Default::default(),
            cache_epoch: Default::default(),
            outside_epochs: Default::default(),
            debugging: Default::default(),
        }
    }

    /// Makes the plugin's modules ready for a debugger (`None`: not debugged).
    pub fn set_debugging(&self, brk: Option<bool>) {
        self.debugging.set(brk);
    }

    /// What `paseo:internal/preload` imports.
    pub fn set_preload(&self, modules: Vec<ModuleSpecifier>) {
        bytecode_cache::check();
        *self.preload.borrow_mut() = modules;
    }

    /// Points the loader at the plugin its isolate now serves.
    pub fn bind(
        &self,
        dir: PathBuf,
        host_packages: Arc<std::sync::Mutex<std::collections::BTreeSet<ModuleSpecifier>>>,
    ) {
        bytecode_cache::check();
        *self.cache_epoch.borrow_mut() =
            bytecode_cache::active().then(|| bytecode_cache::epoch(&dir));
        self.outside_epochs.borrow_mut().clear();
        *self.plugin_dir.borrow_mut() = dir;
        *self.host_packages.borrow_mut() = host_packages;
    }

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
    fn check_folder_rules(&self, path: &Path) -> Result<(), String> {
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

    /// Minified JavaScript re-emitted over many lines (`transpile::reflow`), with its source
    /// map kept for stack traces; other code as it is.
    fn reflowed(&self, url: &ModuleSpecifier, text: String, commonjs: bool) -> String {
        match transpile::reflow(url, &text, commonjs) {
            Some(out) => {
                if let Some(map) = &out.source_map {
                    self.source_maps
                        .borrow_mut()
                        .insert(url.to_string(), map.clone());
                }
                out.code.to_string()
            }
            None => text,
        }
    }

    fn load_file(
        &self,
        url: &ModuleSpecifier,
        requested: &RequestedModuleType,
    ) -> Result<ModuleSource, String> {
        let path = url
            .to_file_path()
            .map_err(|_| format!("Not a file URL: {url}"))?;
        self.check_folder_rules(&path)?;
        if matches!(requested, RequestedModuleType::Json) {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("Cannot read {}: {e}", path.display()))?;
            return Ok(ModuleSource::new(
                ModuleType::Json,
                ModuleSourceCode::String(text.into()),
                url,
                None,
            ));
        }
        if path.extension().is_some_and(|e| e == "json") {
            // Bundlers let `import x from "./x.json"` work without `with { type: "json" }`.
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("Cannot read {}: {e}", path.display()))?;
            serde_json::from_str::<serde_json::Value>(&text)
                .map_err(|e| format!("Invalid JSON in {}: {e}", path.display()))?;
            let code = format!(
                "export default JSON.parse({});\n",
                serde_json::to_string(&text).unwrap()
            );
            let code = self.for_bytecode_cache(&path, code);
            return Ok(ModuleSource::new(
                ModuleType::JavaScript,
                ModuleSourceCode::String(code.into()),
                url,
                None,
            ));
        }
        if self.is_commonjs(&path) {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("Cannot read {}: {e}", path.display()))?;
            let code = self.for_bytecode_cache(&path, self.cjs_facade(url, &path, &text));
            return Ok(ModuleSource::new(
                ModuleType::JavaScript,
                ModuleSourceCode::String(code.into()),
                url,
                None,
            ));
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("Cannot read {}: {e}", path.display()))?;
        let code = if transpile::needs_transpile(&path) {
            let out = transpile::transpile(url, &path, text)?;
            if let Some(map) = &out.source_map {
                self.source_maps
                    .borrow_mut()
                    .insert(url.to_string(), map.clone());
            }
            out.code.to_string()
        } else {
            self.reflowed(url, text, false)
        };
        if self.is_entry(&path) {
            entry::check(url, &code)?;
        }
        let code = if self.is_own_source(&path) {
            self.bind_missing_imports(url, &path, code)
        } else {
            code
        };
        let code = match self.debugging.get() {
            Some(brk) => self.for_debugger(url, code, brk && self.is_entry(&path)),
            None => code,
        };
        let code = self.for_bytecode_cache(&path, imports::for_quickjs(url, code));
        // QuickJS keeps no code caches: no path to canonicalize or compare there.
        let cache = (code_cache::ENABLED && self.is_host_package_file(&path))
            .then(|| code_cache::for_source(url, &code))
            .flatten();
        Ok(ModuleSource::new(
            ModuleType::JavaScript,
            ModuleSourceCode::String(code.into()),
            url,
            cache,
        ))
    }

    /// A module as a debugger sees it: its source map inline (a data: URL, as DevTools and VS
    /// Code read it), and, at the entry under `--inspect-brk`, a `debugger` statement before its
    /// first line's code (on that line, so no line moves).
    fn for_debugger(&self, url: &ModuleSpecifier, code: String, brk: bool) -> String {
        use base64::Engine as _;
        let mut code = if brk {
            format!("debugger;{code}")
        } else {
            code
        };
        if let Some(map) = self.source_maps.borrow().get(url.as_str()) {
            code.push_str("\n//# sourceMappingURL=data:application/json;base64,");
            code.push_str(&base64::engine::general_purpose::STANDARD.encode(map));
            code.push('\n');
        }
        code
    }

    /// The plugin's server entry (`index.server.ts` or `.tsx` at its root).
    fn is_entry(&self, path: &Path) -> bool {
        path.parent() == Some(&*self.plugin_dir.borrow())
            && path
                .file_name()
                .is_some_and(|n| n == "index.server.ts" || n == "index.server.tsx")
    }

    /// The plugin's own sources (not its dependencies).
    fn is_own_source(&self, path: &Path) -> bool {
        path.starts_with(&*self.plugin_dir.borrow())
            && !path.components().any(|c| c.as_os_str() == "node_modules")
    }

    /// A plugin module's imports of names their module lacks made `undefined`, with a warning
    /// each, as in Paseo's bundle (engine/missing_imports.rs).
    fn bind_missing_imports(&self, url: &ModuleSpecifier, path: &Path, code: String) -> String {
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

    /// Module code tagged with the epoch of the folder it comes from (QuickJS's bytecode cache
    /// is never mixed within one: engine/bytecode_cache.rs): the plugin's folder, the host
    /// packages' folder, or, for a file outside both (a dependency hoisted to a parent's
    /// `node_modules`, a symlink resolved to its real path), its own package's folder.
    fn for_bytecode_cache(&self, path: &Path, code: String) -> String {
        if !bytecode_cache::active() {
            return code;
        }
        if self.is_host_package_file(path) {
            let dir = self
                .host_packages_dir
                .get()
                .cloned()
                .flatten()
                .unwrap_or_default();
            return bytecode_cache::tag(code, bytecode_cache::host_epoch(&dir));
        }
        if path.starts_with(&*self.plugin_dir.borrow()) {
            if let Some(epoch) = &*self.cache_epoch.borrow() {
                return bytecode_cache::tag(code, epoch);
            }
        }
        let package = path
            .ancestors()
            .skip(1)
            .find(|dir| dir.join("package.json").is_file())
            .unwrap_or_else(|| path.parent().unwrap_or(path))
            .to_path_buf();
        let epoch = self
            .outside_epochs
            .borrow_mut()
            .entry(package.clone())
            .or_insert_with(|| bytecode_cache::epoch(&package))
            .clone();
        bytecode_cache::tag(code, &epoch)
    }

    /// Whether a file belongs to a package the host provides (zod), the same for every plugin.
    fn is_host_package_file(&self, path: &Path) -> bool {
        self.host_packages_dir
            .get_or_init(|| std::fs::canonicalize(self.host_js_dir.join("node_modules")).ok())
            .as_ref()
            .is_some_and(|dir| path.starts_with(dir))
    }

    /// An ES module that runs a CommonJS file through the host's `require` and re-exports what
    /// it exports: `default` is `module.exports` (or its `default` for transpiled `__esModule`
    /// modules, as esbuild does), plus the names cjs-module-lexer finds.
    fn cjs_facade(&self, url: &ModuleSpecifier, path: &Path, text: &str) -> String {
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

/// An IdentifierName: what an export name and a property key in a destructuring may be,
/// reserved words included.
fn is_identifier_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

impl ModuleLoader for PluginModuleLoader {
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        kind: ResolutionKind,
    ) -> Result<ModuleSpecifier, JsErrorBox> {
        // The engine itself loads the bootstrap by its internal URL.
        if matches!(kind, ResolutionKind::MainModule) {
            if let Ok(url) = ModuleSpecifier::parse(specifier) {
                return Ok(url);
            }
        }
        self.resolve_specifier(specifier, referrer, true)
            .map_err(JsErrorBox::generic)
    }

    fn load(
        &self,
        specifier: &ModuleSpecifier,
        _referrer: Option<&ModuleLoadReferrer>,
        options: ModuleLoadOptions,
    ) -> ModuleLoadResponse {
        let result = match specifier.scheme() {
            "file" => self.load_file(specifier, &options.requested_module_type),
            "paseo" if specifier.as_str() == "paseo:internal/preload" => {
                let code: String = self.preload.borrow().iter().map(|url| format!("import {:?};\n", url.as_str())).collect();
                Ok(ModuleSource::new(ModuleType::JavaScript, ModuleSourceCode::String(code.into()), specifier, None))
            }
            "node" | "paseo" => host_js::module_code(specifier.as_str())
                .map(|code| ModuleSource::new(ModuleType::JavaScript, ModuleSourceCode::String(deno_core::FastString::from_static(code)), specifier, None))
                .ok_or_else(|| match specifier.scheme() {
                    "node" => format!(
                        "Node built-in module {specifier} is not supported by the Paseo plugin host yet"
                    ),
                    _ => format!("Cannot find module '{specifier}'"),
                }),
            other => Err(format!("Unsupported module scheme {other}: {specifier}")),
        };
        ModuleLoadResponse::Sync(result.map_err(JsErrorBox::generic))
    }

    fn code_cache_ready(
        &self,
        specifier: ModuleSpecifier,
        hash: u64,
        code_cache: &[u8],
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
        code_cache::made(&specifier, hash, code_cache);
        Box::pin(std::future::ready(()))
    }

    fn purge_and_prevent_code_cache(&self, specifier: &str) {
        code_cache::purge(specifier);
    }

    fn get_source_map(&self, file_name: &str) -> Option<Cow<'_, [u8]>> {
        self.source_maps
            .borrow()
            .get(file_name)
            .map(|m| Cow::Owned(m.to_vec()))
    }
}
