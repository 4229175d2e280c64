//! `paseo plugin init` and `paseo plugin types`: a plugin an author can run at once, and the
//! engine's declarations for it.

use std::path::Path;
use std::process::ExitCode;

use serde_json::json;

/// `paseo plugin init <dir> [--id <id>]`: a plugin to start from.
pub fn init(dir: &Path, id: Option<&str>) -> Result<ExitCode, String> {
    let id = id.map(str::to_string).unwrap_or_else(|| {
        dir.file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default()
    });
    paseo_plugin_runtime::host::manifest::check_plugin_id(&id)
        .map_err(|e| format!("{e} (choose one with --id)"))?;
    if dir.join("paseo-plugin.json").exists() {
        return Err(format!("{} already has a paseo-plugin.json", dir.display()));
    }
    std::fs::create_dir_all(dir.join("server")).map_err(|e| e.to_string())?;
    let files = [
        ("paseo-plugin.json", format!("{{\n  \"id\": \"{id}\",\n  \"description\": \"Describe what {id} does.\",\n  \"requirements\": {{ \"paseo\": \">={}\" }}\n}}\n", paseo_plugin_runtime::PASEO_VERSION)),
        ("index.server.ts", INIT_ENTRY.to_string()),
        ("server/greeting.ts", "export function greeting(cwd: string): string {\n  return `hello from ${cwd}`;\n}\n".to_string()),
        ("request.json", SAMPLE_OPEN_REQUEST.to_string()),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
    }
    // An editor and `tsc --noEmit` resolve `@getpaseo/plugin*` to the engine's declarations.
    for (name, text) in [
        ("package.json", init_package_json(&id)),
        ("tsconfig.json", INIT_TSCONFIG.to_string()),
    ] {
        if !dir.join(name).exists() {
            std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
        }
    }
    write_types(dir)?;
    println!("Created plugin {id} in {}", dir.display());
    println!(
        "Types: npm install in {} (typescript, zod), then npx tsc",
        dir.display()
    );
    println!(
        "Try it: paseo hook run --plugin {0} agent.open.before @{0}/request.json",
        dir.display()
    );
    println!("Edit and retry: paseo plugin dev {}", dir.display());
    Ok(ExitCode::SUCCESS)
}

/// The engine's declarations for plugin authors (types/), by their path under a plugin's
/// `.paseo/types/`: what `@getpaseo/plugin`, `@getpaseo/plugin/server`, `@getpaseo/client` and
/// `@getpaseo/protocol/agent-types` resolve to through the `paths` of the tsconfig that
/// `plugin init` writes.
const TYPES: &[(&str, &str)] = &[
    (
        "hooks.generated.d.ts",
        include_str!("../types/hooks.generated.d.ts"),
    ),
    (
        "plugin/index.d.ts",
        include_str!("../types/plugin/index.d.ts"),
    ),
    (
        "plugin/server.d.ts",
        include_str!("../types/plugin/server.d.ts"),
    ),
    (
        "plugin/paseo.d.ts",
        include_str!("../types/plugin/paseo.d.ts"),
    ),
    (
        "plugin/provider.d.ts",
        include_str!("../types/plugin/provider.d.ts"),
    ),
    (
        "plugin/forge-toolkit.d.ts",
        include_str!("../types/plugin/forge-toolkit.d.ts"),
    ),
    (
        "plugin/usage.d.ts",
        include_str!("../types/plugin/usage.d.ts"),
    ),
    ("plugin/acp.d.ts", include_str!("../types/plugin/acp.d.ts")),
    (
        "protocol/agent-types.d.ts",
        include_str!("../types/protocol/agent-types.d.ts"),
    ),
    (
        "protocol/agent-labels.d.ts",
        include_str!("../types/protocol/agent-labels.d.ts"),
    ),
];

/// Writes (or refreshes) the declarations into `<dir>/.paseo/types/`.
pub fn write_types(dir: &Path) -> Result<(), String> {
    let root = dir.join(".paseo/types");
    for (name, text) in TYPES {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| format!("Cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn init_package_json(id: &str) -> String {
    let package = json!({
        "name": id,
        "private": true,
        "type": "module",
        "scripts": { "typecheck": "tsc" },
        "devDependencies": { "@types/node": "^20.19.0", "typescript": "^5.9.3", "zod": "^4.1.12" },
    });
    format!("{}\n", serde_json::to_string_pretty(&package).unwrap())
}

const INIT_TSCONFIG: &str = r#"{
  // `@getpaseo/plugin*` resolve to the declarations in .paseo/types, which `paseo plugin init`
  // wrote and `paseo plugin types .` refreshes after an upgrade of paseo.
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "allowImportingTsExtensions": true,
    "skipLibCheck": true,
    "types": ["node"],
    "paths": {
      "@getpaseo/plugin": ["./.paseo/types/plugin/index.d.ts"],
      "@getpaseo/plugin/server": ["./.paseo/types/plugin/server.d.ts"],
      "@getpaseo/plugin/server/provider": ["./.paseo/types/plugin/provider.d.ts"],
      "@getpaseo/plugin/server/forge-toolkit": ["./.paseo/types/plugin/forge-toolkit.d.ts"],
      "@getpaseo/plugin/server/usage": ["./.paseo/types/plugin/usage.d.ts"],
      "@getpaseo/plugin/server/acp": ["./.paseo/types/plugin/acp.d.ts"],
      "@getpaseo/client": ["./.paseo/types/plugin/paseo.d.ts"],
      "@getpaseo/protocol/agent-types": ["./.paseo/types/protocol/agent-types.d.ts"],
      "@getpaseo/protocol/agent-labels": ["./.paseo/types/protocol/agent-labels.d.ts"]
    }
  },
  "include": ["**/*.ts", "**/*.tsx", ".paseo/types/**/*.d.ts"],
  "exclude": ["node_modules"]
}
"#;

const SAMPLE_OPEN_REQUEST: &str = r#"{
  "agentId": "agent-123",
  "workspaceId": "workspace-456",
  "provider": "codex",
  "cwd": "/projects/shop",
  "title": "Workspace notes",
  "labels": {},
  "tools": [],
  "mcpServers": {},
  "reason": "create",
  "purpose": "interactive",
  "env": {}
}
"#;

const INIT_ENTRY: &str = r#"import type { PluginServerContext } from "@getpaseo/plugin/server";
import { greeting } from "./server/greeting";

export default function contribute(server: PluginServerContext) {
  const remove = server.addHook("agent.open.before", async ({ request }) => ({
    ...request,
    env: { ...request.env, GREETING: greeting(request.cwd) },
  }));
  return remove;
}
"#;

/// `paseo plugin types <dir>`: refreshes the declarations after an upgrade of paseo.
pub fn types(dir: &Path) -> Result<ExitCode, String> {
    write_types(dir)?;
    println!(
        "Wrote the Paseo plugin declarations to {}",
        dir.join(".paseo/types").display()
    );
    Ok(ExitCode::SUCCESS)
}
