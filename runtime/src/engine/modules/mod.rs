//! The ES module loader of a plugin isolate: `PluginModuleLoader` (bound to its plugin, its
//! preload and debugging set), loading files (the plugin folder rules, transpiling, JSON,
//! CommonJS facades, the debugger's inline source maps, bytecode-cache tags) and host modules,
//! and deno_core's `ModuleLoader` over it. Each other job has its file: `builtins` (the names
//! known before any file: Node builtins, host modules, client-only specifiers), `resolve`
//! (specifier to URL, CommonJS or not, the folder rules), `commonjs` (`require`'s sources and
//! the ES facades of CommonJS files) and `known_exports` (imports of names a module lacks).

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
use oxc_resolver::Resolver;

use super::bytecode_cache;
use super::code_cache;
use super::entry;
use super::host_js;
use super::imports;
use super::transpile;

mod builtins;
mod commonjs;
mod known_exports;
mod resolve;

pub use builtins::{is_node_builtin, mentions_host_package, NODE_BUILTINS};

/// Resolves and loads a plugin isolate's modules (one per isolate, shared with the ops that
/// `require` uses).
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

impl PluginModuleLoader {
    pub fn new(plugin_dir: PathBuf, host_js_dir: PathBuf) -> Self {
        let esm = Resolver::new(resolve::resolve_options(&["import", "node", "default"]));
        let cjs = esm.clone_with_options(resolve::resolve_options(&["require", "node", "default"]));
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
