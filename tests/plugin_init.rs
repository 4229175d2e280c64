//! `paseo plugin init`: a plugin an author can run at once and open in an editor. The files it
//! writes, the declarations it copies (scripts/typecheck runs tsc on such a plugin), and that
//! the new plugin runs.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn paseo(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_paseo"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn init_writes_a_plugin_that_runs_and_resolves_the_engines_declarations() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("hello-plugin");
    let dir_s = dir.to_str().unwrap();
    let out = paseo(&["plugin", "init", dir_s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in [
        "paseo-plugin.json",
        "index.server.ts",
        "server/greeting.ts",
        "package.json",
        "tsconfig.json",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let repo_types = Path::new(env!("CARGO_MANIFEST_DIR")).join("types");
    for file in [
        "plugin/index.d.ts",
        "plugin/server.d.ts",
        "plugin/paseo.d.ts",
        "protocol/agent-types.d.ts",
        "hooks.generated.d.ts",
    ] {
        assert_eq!(
            std::fs::read_to_string(dir.join(".paseo/types").join(file)).unwrap(),
            std::fs::read_to_string(repo_types.join(file)).unwrap(),
            "{file}"
        );
    }
    let package: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    assert_eq!(package["name"], "hello-plugin");
    assert!(package["devDependencies"]["typescript"].is_string());
    let tsconfig = std::fs::read_to_string(dir.join("tsconfig.json")).unwrap();
    assert!(
        tsconfig.contains(r#""@getpaseo/plugin/server": ["./.paseo/types/plugin/server.d.ts"]"#)
    );

    let request = format!("@{}", dir.join("request.json").display());
    let out = paseo(&[
        "hook",
        "run",
        "--plugin",
        dir_s,
        "agent.open.before",
        &request,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        result["output"]["env"]["GREETING"],
        "hello from /projects/shop"
    );

    // A second init refuses; `plugin types` refreshes the declarations.
    std::fs::remove_file(dir.join(".paseo/types/plugin/server.d.ts")).unwrap();
    assert!(!paseo(&["plugin", "init", dir_s]).status.success());
    assert!(paseo(&["plugin", "types", dir_s]).status.success());
    assert!(dir.join(".paseo/types/plugin/server.d.ts").is_file());
}
