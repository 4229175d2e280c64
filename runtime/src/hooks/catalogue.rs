//! The hook catalogue, loaded from `catalogue.json`: names, waiting or notification, payload
//! schema, editable fields and legacy names. Registration (JS), dispatch and validation (Rust)
//! and the generated TypeScript declarations all read this one table.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::{json, Value};

/// The raw catalogue document, shipped inside the binary.
pub const CATALOGUE_JSON: &str = include_str!("catalogue.json");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LegacyMethod {
    /// `server.on(oldEvent, fn)`
    On,
    /// `server.before(oldRequest, fn)`
    Before,
}

#[derive(Debug, Clone, Deserialize)]
pub struct LegacyName {
    pub method: LegacyMethod,
    pub name: String,
}

#[derive(Debug, Deserialize)]
struct RawHook {
    name: String,
    legacy: Option<LegacyName>,
    waiting: bool,
    #[serde(default)]
    payload: Option<String>,
    #[serde(default)]
    editable: Option<String>,
    #[serde(default)]
    readonly: Vec<ReadonlyField>,
    #[serde(default)]
    mutable: Option<Vec<String>>,
    #[serde(default, rename = "keepIfOmitted")]
    keep_if_omitted: Vec<String>,
    #[serde(default, rename = "stripUnknown")]
    strip_unknown: HashMap<String, String>,
    #[serde(default, rename = "checkPath")]
    check_path: Option<String>,
    #[serde(default)]
    session: Option<SessionRules>,
    #[serde(default)]
    request: Option<Value>,
    #[serde(default)]
    event: Option<Value>,
}

/// How a hook attaches things to an agent session (`agent.open.before`): host dispatch, the
/// tool registry and the JS host all follow these.
#[derive(Debug, Clone, Deserialize)]
pub struct SessionRules {
    /// Request fields that are each plugin's own: every plugin's handlers start from them
    /// empty, and the host merges what each added (naming clashes on both sides). The plugin
    /// keeps the live tool objects it attached until the session closes.
    #[serde(rename = "perPlugin")]
    pub per_plugin: Vec<String>,
    /// A request with this field at this value attaches nothing (a `purpose: "history"` open
    /// launches no tools or MCP servers): nothing is merged, kept or recorded.
    #[serde(rename = "attachNothingWhen")]
    pub attach_nothing_when: FieldEquals,
}

#[derive(Debug, Clone, Deserialize)]
pub struct FieldEquals {
    pub field: String,
    pub equals: Value,
}

impl SessionRules {
    /// Whether this request attaches the per-plugin fields to the session.
    pub fn attaches(&self, request: &Value) -> bool {
        let rule = &self.attach_nothing_when;
        request.get(&rule.field) != Some(&rule.equals)
    }
}

/// A request field (dotted path) that handlers may not change, and the rule's wording.
#[derive(Debug, Clone, Deserialize)]
pub struct ReadonlyField {
    pub field: String,
    pub rule: String,
}

#[derive(Debug, Deserialize)]
struct RawCatalogue {
    hooks: Vec<RawHook>,
    #[serde(rename = "$defs")]
    defs: Value,
}

/// One hook as the catalogue describes it.
pub struct HookSpec {
    pub name: String,
    pub legacy: Option<LegacyName>,
    /// Waiting hooks are awaited by the daemon and may fail the operation.
    pub waiting: bool,
    /// The handler receives `{ request }` and may return a replacement request.
    pub returns_request: bool,
    /// Human description of what a handler may change (docs, `.d.ts`).
    pub editable: Option<String>,
    /// Request fields a handler may not change.
    pub readonly: Vec<ReadonlyField>,
    /// When set, the only top-level request fields a handler may change.
    pub mutable: Option<Vec<String>>,
    /// Top-level fields that keep their previous value when a handler's result omits them.
    pub keep_if_omitted: Vec<String>,
    /// Nested objects whose unknown keys are dropped (not rejected), with the known keys.
    pub strip_unknown: Vec<(String, Vec<String>)>,
    /// A field holding a target directory that must pass the worktree path rules.
    pub check_path: Option<String>,
    /// Set for a hook that attaches tools and servers to an agent session: a plugin declaring
    /// it that starts, stops or reloads makes open sessions stale.
    pub session: Option<SessionRules>,
    /// JSON Schema of the request (`returns_request`) or of the whole event payload.
    pub schema: Value,
    pub validator: jsonschema::Validator,
}

impl HookSpec {
    /// The object a handler receives: `{ request }` for request hooks, the event itself otherwise.
    pub fn payload_schema(&self) -> Value {
        if self.returns_request {
            json!({ "type": "object", "required": ["request"], "properties": { "request": self.schema } })
        } else {
            self.schema.clone()
        }
    }
}

pub struct Catalogue {
    hooks: Vec<HookSpec>,
    by_name: HashMap<String, usize>,
    defs: Value,
}

impl Catalogue {
    /// The hook that attaches tools and servers to agent sessions (`agent.open.before`).
    pub fn session_hook(&self) -> &HookSpec {
        self.hooks
            .iter()
            .find(|h| h.session.is_some())
            .expect("the catalogue has a session hook")
    }

    /// The session rules of the catalogue's session hook.
    pub fn session_rules(&self) -> &SessionRules {
        self.session_hook().session.as_ref().unwrap()
    }

    /// Whether plugins with these hooks attach things to agent sessions.
    pub fn attaches_to_sessions<'a>(&self, hooks: impl IntoIterator<Item = &'a str>) -> bool {
        hooks
            .into_iter()
            .any(|h| self.get(h).is_some_and(|s| s.session.is_some()))
    }

    fn load() -> Self {
        let raw: RawCatalogue =
            serde_json::from_str(CATALOGUE_JSON).expect("hooks/catalogue.json is valid");
        let mut hooks = Vec::with_capacity(raw.hooks.len());
        let mut by_name = HashMap::new();
        for hook in raw.hooks {
            let returns_request = hook.payload.as_deref() == Some("request");
            let schema = if returns_request {
                hook.request
            } else {
                hook.event
            }
            .unwrap_or_else(|| panic!("hook {} has no schema", hook.name));
            let document = json!({ "$defs": raw.defs, "allOf": [schema] });
            let validator = jsonschema::options()
                .should_validate_formats(false)
                .build(&document)
                .unwrap_or_else(|e| panic!("schema of hook {} does not compile: {e}", hook.name));
            let strip_unknown = hook
                .strip_unknown
                .iter()
                .map(|(field, def)| {
                    let known = raw.defs[def]["properties"]
                        .as_object()
                        .unwrap_or_else(|| panic!("$defs/{def} has no properties"))
                        .keys()
                        .cloned()
                        .collect();
                    (field.clone(), known)
                })
                .collect();
            by_name.insert(hook.name.clone(), hooks.len());
            hooks.push(HookSpec {
                name: hook.name,
                legacy: hook.legacy,
                waiting: hook.waiting,
                returns_request,
                editable: hook.editable,
                readonly: hook.readonly,
                mutable: hook.mutable,
                keep_if_omitted: hook.keep_if_omitted,
                strip_unknown,
                check_path: hook.check_path,
                session: hook.session,
                schema,
                validator,
            });
        }
        Catalogue {
            hooks,
            by_name,
            defs: raw.defs,
        }
    }

    pub fn get(&self, name: &str) -> Option<&HookSpec> {
        self.by_name.get(name).map(|&i| &self.hooks[i])
    }

    pub fn iter(&self) -> impl Iterator<Item = &HookSpec> {
        self.hooks.iter()
    }

    /// Shared schema definitions (`$defs`), for generated declarations.
    pub fn defs(&self) -> &Value {
        &self.defs
    }

    /// The table the JS registration layer needs: new names, legacy names and which hooks
    /// return requests.
    pub fn js_table(&self) -> Value {
        Value::Array(
            self.hooks
                .iter()
                .map(|h| {
                    json!({
                        "name": h.name,
                        "waiting": h.waiting,
                        "returnsRequest": h.returns_request,
                        "session": h.session.as_ref().map(|r| json!({
                            "perPlugin": r.per_plugin,
                            "attachNothingWhen": { "field": r.attach_nothing_when.field, "equals": r.attach_nothing_when.equals },
                        })),
                        "legacy": h.legacy.as_ref().map(|l| json!({
                            "method": match l.method { LegacyMethod::On => "on", LegacyMethod::Before => "before" },
                            "name": l.name,
                        })),
                    })
                })
                .collect(),
        )
    }
}

pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: LazyLock<Catalogue> = LazyLock::new(Catalogue::load);
    &CATALOGUE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_open_before_is_the_one_session_hook_and_a_history_open_attaches_nothing() {
        let catalogue = catalogue();
        let with_session: Vec<&str> = catalogue
            .iter()
            .filter(|h| h.session.is_some())
            .map(|h| h.name.as_str())
            .collect();
        assert_eq!(with_session, ["agent.open.before"]);
        let rules = catalogue.session_rules();
        assert_eq!(rules.per_plugin, ["tools", "mcpServers"]);
        assert!(!rules.attaches(&json!({ "purpose": "history" })));
        assert!(rules.attaches(&json!({ "purpose": "interactive" })));
        assert!(catalogue.attaches_to_sessions(["agent.turn.after", "agent.open.before"]));
        assert!(!catalogue.attaches_to_sessions(["agent.turn.after"]));
        // host.js reads the same rules.
        let js = catalogue.js_table();
        let open = js
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"] == "agent.open.before");
        assert_eq!(
            open.unwrap()["session"]["attachNothingWhen"],
            json!({ "field": "purpose", "equals": "history" })
        );
    }

    #[test]
    fn catalogue_has_the_fourteen_documented_hooks() {
        let names: Vec<_> = catalogue().iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names.len(), 14);
        let waiting: Vec<_> = catalogue()
            .iter()
            .filter(|h| h.waiting)
            .map(|h| h.name.as_str())
            .collect();
        assert_eq!(
            waiting,
            [
                "workspace.create.before",
                "worktree.create.before",
                "worktree.create.after",
                "agent.create.before",
                "agent.open.before"
            ]
        );
        assert!(catalogue()
            .get("worktree.create.before")
            .unwrap()
            .legacy
            .is_none());
        assert_eq!(
            catalogue()
                .get("agent.open.before")
                .unwrap()
                .legacy
                .as_ref()
                .unwrap()
                .name,
            "agent.session_open"
        );
    }
}
