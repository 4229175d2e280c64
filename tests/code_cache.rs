//! V8 code caches of host-provided packages (runtime/src/engine/code_cache.rs): the first isolate
//! that compiles a host package's module leaves its code cache to the process, later isolates
//! compile from it, and a module whose source changed is compiled from its new source, even
//! when the new source is as long as the old one (V8 checks only the length).

mod common;

use std::path::Path;

use common::*;
use paseo_plugin_runtime::engine::code_cache;
use paseo_plugin_runtime::{HostOptions, PluginHost};

/// A host JS folder like the real one, whose `zod` is a one-file package under our control.
fn host_js_with_package(root: &Path, source: &str) {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("js");
    for entry in std::fs::read_dir(&real).unwrap().flatten() {
        if entry.file_name() != "node_modules" {
            std::os::unix::fs::symlink(entry.path(), root.join(entry.file_name())).unwrap();
        }
    }
    let package = root.join("node_modules/zod");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{ "name": "zod", "version": "4.0.0", "type": "module", "exports": { ".": "./index.js" } }"#,
    )
    .unwrap();
    std::fs::write(package.join("index.js"), source).unwrap();
}

/// V8: the package's one module is compiled once per process (its cache made once, reused by
/// the isolate a reload boots), and again when its source changes. QuickJS keeps no code
/// cache (`code_cache::ENABLED` is false; its bytecode cache is tests/module_loading.rs's):
/// every counter stays at zero throughout, and a changed source runs as on V8.
#[tokio::test(flavor = "multi_thread")]
async fn a_host_package_is_compiled_once_per_process_and_again_when_its_source_changes() {
    assert_eq!(code_cache::ENABLED, cfg!(feature = "v8"));
    let js = tempfile::tempdir().unwrap();
    host_js_with_package(
        js.path(),
        "export const tag = \"first\";\nexport function twice(s) { return s + s; }\n",
    );
    let plugin = tempfile::tempdir().unwrap();
    write_plugin(
        plugin.path(),
        "package-user",
        r#"import { tag, twice } from "zod";
export default function contribute(server: any) {
  server.addHook("agent.open.before", async ({ request }: any) => ({
    ...request,
    env: { ...request.env, TAG: twice(tag) },
  }));
  return () => {};
}
"#,
    );
    let host = PluginHost::new(HostOptions {
        host_js_dir: js.path().to_path_buf(),
        ..HostOptions::default()
    });
    let tag = || async { open(&host, open_request()).await.unwrap()["env"]["TAG"].clone() };

    host.load(plugin.path()).await.unwrap();
    assert_eq!(tag().await, "firstfirst");
    let first = code_cache::stats();
    if cfg!(feature = "v8") {
        // The package's one module.
        assert!(first.modules == 1 && first.bytes > 0, "{first:?}");
        assert_eq!(first.made, first.modules, "{first:?}");
    } else {
        let none = code_cache::Stats {
            modules: 0,
            bytes: 0,
            made: 0,
        };
        assert_eq!(first, none, "QuickJS keeps no code cache");
    }

    // A reload boots a new isolate, which compiles the package from the cache: V8 takes it
    // (a cache it rejected would be made again).
    host.reload("package-user").await.unwrap();
    assert_eq!(tag().await, "firstfirst");
    assert_eq!(code_cache::stats(), first);

    // The same length, other code: the cache made from the old source must not run.
    std::fs::write(
        js.path().join("node_modules/zod/index.js"),
        "export const tag = \"again\";\nexport function twice(s) { return s + s; }\n",
    )
    .unwrap();
    host.reload("package-user").await.unwrap();
    assert_eq!(tag().await, "againagain");
    // That module's cache made again, and replaced.
    let again = code_cache::stats();
    assert_eq!(again.modules, first.modules, "{again:?}");
    if cfg!(feature = "v8") {
        assert_eq!(again.made, first.made + 1, "{again:?}");
    } else {
        assert_eq!(again, first, "QuickJS keeps no code cache");
    }
    host.shutdown().await;
}
