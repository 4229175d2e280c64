//! The TypeScript declarations plugin authors get (`types/`) stay generated from the hook
//! catalogue: `types/hooks.generated.d.ts` must equal `render_hooks_dts()` byte for byte.
//! Whether the declarations and the examples type-check is `scripts/typecheck` (needs npm).

use std::path::PathBuf;

use paseo_plugin_runtime::hooks::{catalogue, typescript::render_hooks_dts};

fn generated_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("types/hooks.generated.d.ts")
}

#[test]
fn checked_in_declarations_match_the_catalogue() {
    let rendered = render_hooks_dts();
    let path = generated_path();
    if std::env::var_os("PASEO_BLESS").is_some() {
        std::fs::write(&path, &rendered).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if on_disk != rendered {
        let line = on_disk
            .lines()
            .zip(rendered.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| on_disk.lines().count().min(rendered.lines().count()));
        panic!(
            "{} is out of date with runtime/src/hooks/catalogue.json (first difference at line {}:\n  file:      {:?}\n  generated: {:?}).\n\
             Regenerate it with `PASEO_BLESS=1 cargo test --test types`, then run scripts/typecheck.",
            path.display(),
            line + 1,
            on_disk.lines().nth(line).unwrap_or("<end of file>"),
            rendered.lines().nth(line).unwrap_or("<end of file>"),
        );
    }
}

#[test]
fn every_hook_and_old_name_is_declared() {
    let dts = render_hooks_dts();
    let section = |name: &str| {
        let start = dts
            .find(&format!("export interface {name} {{\n"))
            .unwrap_or_else(|| panic!("no {name}"));
        let body = &dts[start..];
        body[..body.find("\n}\n").unwrap()].to_string()
    };
    let (payloads, results) = (section("PluginHookPayloads"), section("PluginHookResults"));
    let (events, befores) = (
        section("PluginLifecycleEvents"),
        section("PluginBeforeRequests"),
    );
    for hook in catalogue().iter() {
        assert!(
            payloads.contains(&format!("\n  \"{}\":", hook.name)),
            "{} missing from PluginHookPayloads",
            hook.name
        );
        assert!(
            results.contains(&format!("\n  \"{}\":", hook.name)),
            "{} missing from PluginHookResults",
            hook.name
        );
    }
    assert_eq!(events.matches("@deprecated").count(), 9);
    assert_eq!(befores.matches("@deprecated").count(), 3);

    // Exact lines for one hook of each kind.
    for line in [
        "  \"agent.open.before\": { request: AgentOpenRequest };",
        "  \"agent.open.before\": AgentOpenRequest | undefined | void;",
        "  \"worktree.create.after\": WorktreeEvent;",
        "  \"worktree.create.after\": void;",
        "  \"agent.turn_ended\": AgentTurnEndEvent;",
        "  \"agent.session_open\": AgentOpenRequest;",
        "  /** Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation. May edit: env, tools, mcpServers (this launch only). */",
        "  /** Notification: Paseo does not wait; a throw is logged under the plugin. */",
        "export type PluginHookName = keyof PluginHookPayloads;",
        "import type { AgentToolDefinition } from \"./plugin/server\";",
        "  tools: AgentToolDefinition[];",
    ] {
        assert!(dts.lines().any(|l| l == line), "no line {line:?} in:\n{dts}");
    }
    assert!(
        !dts.contains("worktree.create\":"),
        "worktree hooks have no old name"
    );
    // Typed as Paseo's SDK types it, narrower than the catalogue's `Title`.
    assert!(
        section("WorkspaceCreateRequest").contains("\n  title?: string;"),
        "WorkspaceCreateRequest.title is Paseo's optional string"
    );
}
