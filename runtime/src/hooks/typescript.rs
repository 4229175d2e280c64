//! TypeScript declarations generated from the hook catalogue (`types/hooks.generated.d.ts`):
//! one type per `$defs` entry, then the maps `@getpaseo/plugin/server` types `addHook`, `on`
//! and `before` with. `tests/types.rs` keeps the checked-in file equal to this output.
//!
//! Only the JSON Schema the catalogue uses is translated; constraints TypeScript cannot say
//! (`minLength`, `pattern`, `minimum`, closed objects) are dropped. Order is fixed by names, not
//! by map iteration, so the output does not depend on serde_json's `preserve_order`.

use serde_json::{Map, Value};

use super::catalogue::{catalogue, LegacyMethod};

/// `$defs` whose plugin-side value differs from the wire form: handlers see live tool
/// definitions in `request.tools`, which the host turns into metadata on the way out.
const PLUGIN_SIDE: &[(&str, &str, &str)] = &[(
    "AgentToolMetadata",
    "AgentToolDefinition",
    "The wire form of an agent tool. In plugin code `request.tools` holds `AgentToolDefinition`s (from `defineAgentTool`); the host sends their metadata.",
)];

/// Properties that Paseo's SDK types narrower than the catalogue validates them, as
/// (`$defs` entry, property, TypeScript type): the declarations follow Paseo, the host keeps
/// accepting the wider form. They become `tsType`s on those properties.
const PASEO_PROPERTY_TYPES: &[(&str, &str, &str)] = &[
    // Paseo's WorkspaceCreateRequestSchema (packages/protocol/src/messages.ts) has
    // `title: z.string().optional()`; the catalogue's `Title` also takes null.
    ("WorkspaceCreateRequest", "title", "string"),
];

/// Types that catalogue `tsType` overrides name, and where they come from.
const TS_IMPORTS: &[(&str, &str)] = &[("AgentTimelineItem", "./protocol/agent-types")];

/// Above this many characters an object or union is printed over several lines.
const ONE_LINE: usize = 80;

enum Ts {
    /// A keyword, literal or type name.
    Name(String),
    Array(Box<Ts>),
    Record(Box<Ts>),
    Object(Vec<Prop>),
    Union(Vec<Ts>),
    Intersection(Vec<Ts>),
}

struct Prop {
    name: String,
    optional: bool,
    ty: Ts,
    doc: Option<String>,
}

/// The contents of `types/hooks.generated.d.ts`.
pub fn render_hooks_dts() -> String {
    let cat = catalogue();
    let defs = cat
        .defs()
        .as_object()
        .expect("catalogue $defs is an object");
    let mut out = String::from(
        "// Generated from runtime/src/hooks/catalogue.json by render_hooks_dts() in\n\
         // runtime/src/hooks/typescript.rs. Do not edit: regenerate with\n\
         // `PASEO_BLESS=1 cargo test --test types`.\n\n",
    );
    for (_, name, _) in PLUGIN_SIDE {
        out += &format!("import type {{ {name} }} from \"./plugin/server\";\n");
    }
    for (name, from) in TS_IMPORTS {
        out += &format!("import type {{ {name} }} from \"{from}\";\n");
    }

    let mut names: Vec<&String> = defs.keys().collect();
    names.sort();
    for name in names {
        let schema = &with_paseo_types(name, &defs[name.as_str()]);
        out.push('\n');
        let note = PLUGIN_SIDE
            .iter()
            .find(|(def, ..)| def == name)
            .map(|(.., note)| *note);
        if let Some(doc) = note.or_else(|| doc_of(schema)) {
            out += &format!("/** {doc} */\n");
        }
        match ty(schema) {
            Ts::Object(props) => {
                out += &format!(
                    "export interface {name} {}\n",
                    print(&Ts::Object(props), 0, true)
                )
            }
            other => {
                out += &format!(
                    "export type {name} ={};\n",
                    after_eq(&print(&other, 0, false))
                )
            }
        }
    }

    let mut payloads = String::new();
    let mut results = String::new();
    let mut on = String::new();
    let mut before = String::new();
    for hook in cat.iter() {
        let doc = hook_doc(hook.waiting, hook.returns_request, hook.editable.as_deref());
        let payload = print(&ty(&hook.payload_schema()), 2, false);
        let request = print(&ty(&hook.schema), 2, false);
        let result = if hook.returns_request {
            format!("{request} | undefined | void")
        } else {
            "void".into()
        };
        payloads += &format!(
            "  /** {doc} */\n  \"{}\":{};\n",
            hook.name,
            after_eq(&payload)
        );
        results += &format!("  /** {doc} */\n  \"{}\": {result};\n", hook.name);
        if let Some(legacy) = &hook.legacy {
            let (map, ty) = match legacy.method {
                LegacyMethod::On => (&mut on, &payload),
                LegacyMethod::Before => (&mut before, &request),
            };
            *map += &format!(
                "  /** @deprecated Use `server.addHook(\"{}\", …)`; the old methods are removed after 2027-04-30. */\n  \"{}\":{};\n",
                hook.name,
                legacy.name,
                after_eq(ty)
            );
        }
    }
    out += &format!(
        "\n/** What a handler registered with `server.addHook(name, handler)` receives, by hook name. */\n\
         export interface PluginHookPayloads {{\n{payloads}}}\n\
         \n/** What a handler may resolve to: a replacement request or `undefined` for request hooks. */\n\
         export interface PluginHookResults {{\n{results}}}\n\
         \nexport type PluginHookName = keyof PluginHookPayloads;\n\
         \n/** Older `server.on(name, handler)` names and the event each handler receives. */\n\
         export interface PluginLifecycleEvents {{\n{on}}}\n\
         \n/** Older `server.before(name, handler)` names and the request each handler receives (as `{{ request }}`). */\n\
         export interface PluginBeforeRequests {{\n{before}}}\n"
    );
    out
}

/// `schema` of the `$defs` entry `def`, with its `PASEO_PROPERTY_TYPES` set as `tsType`s.
fn with_paseo_types(def: &str, schema: &Value) -> Value {
    let mut schema = schema.clone();
    for (_, prop, ts) in PASEO_PROPERTY_TYPES.iter().filter(|(d, ..)| *d == def) {
        let slot = schema
            .pointer_mut(&format!("/properties/{prop}"))
            .and_then(Value::as_object_mut)
            .unwrap_or_else(|| panic!("{def} has no property {prop}"));
        slot.insert("tsType".into(), Value::String((*ts).into()));
    }
    schema
}

fn hook_doc(waiting: bool, returns_request: bool, editable: Option<&str>) -> String {
    let mut doc = String::from(match (waiting, returns_request) {
        (true, true) => "Paseo waits; return a replacement request or `undefined` to keep it. A throw, invalid result or timeout fails the operation.",
        (true, false) => "Paseo waits; a throw or timeout fails the operation.",
        (false, _) => "Notification: Paseo does not wait; a throw is logged under the plugin.",
    });
    if let Some(editable) = editable {
        doc += &format!(" May edit: {editable}.");
    }
    doc
}

fn doc_of(schema: &Value) -> Option<&str> {
    schema
        .get("description")
        .or_else(|| schema.get("$comment"))
        .and_then(Value::as_str)
}

/// `=` or `:` is followed by a space unless the type starts on its own line.
fn after_eq(printed: &str) -> String {
    if printed.starts_with('\n') {
        printed.to_string()
    } else {
        format!(" {printed}")
    }
}

fn literal(value: &Value) -> Ts {
    Ts::Name(value.to_string())
}

fn ty(schema: &Value) -> Ts {
    let obj = match schema {
        Value::Bool(true) => return Ts::Name("unknown".into()),
        Value::Bool(false) => return Ts::Name("never".into()),
        Value::Object(obj) => obj,
        other => panic!("not a JSON Schema: {other}"),
    };
    // The catalogue's own keyword: the type Paseo's SDK declares where the schema is narrower
    // (`agent.turn.after`'s `timeline`, always empty, typed as Paseo types it).
    if let Some(ts) = obj.get("tsType").and_then(Value::as_str) {
        return Ts::Name(ts.into());
    }
    if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
        let name = reference
            .strip_prefix("#/$defs/")
            .unwrap_or_else(|| panic!("unsupported $ref {reference}"));
        let shown = PLUGIN_SIDE
            .iter()
            .find(|(def, ..)| *def == name)
            .map_or(name, |(_, ts, _)| *ts);
        return Ts::Name(shown.into());
    }
    if let Some(value) = obj.get("const") {
        return literal(value);
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        return union(values.iter().map(literal).collect());
    }
    if let Some(t) = discriminated(obj) {
        return t;
    }
    match obj.get("type") {
        Some(Value::Array(types)) => union(
            types
                .iter()
                .map(|t| of_type(t.as_str().unwrap_or(""), obj))
                .collect(),
        ),
        Some(Value::String(t)) => of_type(t, obj),
        _ if obj.contains_key("properties") => object(obj, None),
        _ => Ts::Name("unknown".into()),
    }
}

fn of_type(t: &str, obj: &Map<String, Value>) -> Ts {
    match t {
        "string" | "boolean" | "null" | "number" => Ts::Name(t.into()),
        "integer" => Ts::Name("number".into()),
        "array" => match obj.get("items") {
            Some(items) => Ts::Array(Box::new(ty(items))),
            None if obj.get("maxItems").and_then(Value::as_u64) == Some(0) => Ts::Name("[]".into()),
            None => Ts::Array(Box::new(Ts::Name("unknown".into()))),
        },
        "object" => object(obj, None),
        other => panic!("unsupported JSON Schema type {other}"),
    }
}

fn union(mut members: Vec<Ts>) -> Ts {
    if members.len() == 1 {
        members.pop().unwrap()
    } else {
        Ts::Union(members)
    }
}

/// An object's properties: required ones in `required` order, then the rest by name.
/// `skip` leaves out the discriminant of a discriminated union's shared part.
fn object(obj: &Map<String, Value>, skip: Option<&str>) -> Ts {
    let empty = Map::new();
    let props = obj
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if props.is_empty() {
        return match obj.get("additionalProperties") {
            Some(Value::Object(extra)) => Ts::Record(Box::new(ty(&Value::Object(extra.clone())))),
            _ => Ts::Record(Box::new(Ts::Name("unknown".into()))),
        };
    }
    let required = strings(obj.get("required"));
    let mut names: Vec<&str> = required
        .iter()
        .copied()
        .filter(|r| props.contains_key(*r))
        .collect();
    let mut rest: Vec<&str> = props
        .keys()
        .map(String::as_str)
        .filter(|k| !required.contains(k))
        .collect();
    rest.sort();
    names.extend(rest);
    Ts::Object(
        names
            .into_iter()
            .filter(|n| Some(*n) != skip)
            .map(|n| Prop {
                name: n.into(),
                optional: !required.contains(&n),
                ty: ty(&props[n]),
                doc: doc_of(&props[n]).map(String::from),
            })
            .collect(),
    )
}

fn strings(value: Option<&Value>) -> Vec<&str> {
    value
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `allOf: [{ if: { properties: { kind: { const } } }, then }, ...]` on a `kind`/`type` enum
/// becomes a union with one member per branch (plus one per value no branch names). Branches
/// whose `then` is closed (`additionalProperties: false`) are whole objects; otherwise each
/// member holds only what its branch adds, intersected with the shared properties.
fn discriminated(obj: &Map<String, Value>) -> Option<Ts> {
    let branches = obj.get("allOf")?.as_array()?;
    let props = obj.get("properties")?.as_object()?;
    let key = ["kind", "type"]
        .into_iter()
        .find(|k| props.get(*k).is_some_and(|p| p.get("enum").is_some()))?;
    let values: Vec<&Value> = props[key]["enum"].as_array()?.iter().collect();
    let mut parsed = Vec::new();
    for branch in branches {
        let cond = branch.get("if")?.get("properties")?.get(key)?;
        let named: Vec<&Value> = match (cond.get("const"), cond.get("enum")) {
            (Some(c), _) => vec![c],
            (None, Some(Value::Array(e))) => e.iter().collect(),
            _ => return None,
        };
        parsed.push((named, branch.get("then")?.as_object()?));
    }
    let closed =
        |then: &Map<String, Value>| then.get("additionalProperties") == Some(&Value::Bool(false));
    let all_closed = parsed.iter().all(|(_, then)| closed(then));
    let base_required = strings(obj.get("required"));

    let member = |named: &[&Value], then: Option<&Map<String, Value>>| {
        let mut out = vec![Prop {
            name: key.into(),
            optional: false,
            ty: union(named.iter().map(|v| literal(v)).collect()),
            doc: None,
        }];
        let Some(then) = then else {
            return Ts::Object(out);
        };
        let empty = Map::new();
        let own = then
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut required = strings(then.get("required"));
        if closed(then) {
            required.extend(base_required.iter().copied());
        }
        // Properties this branch declares, then shared ones it makes required.
        let mut names: Vec<&str> = own.keys().map(String::as_str).collect();
        names.extend(
            required
                .iter()
                .copied()
                .filter(|r| !own.contains_key(*r) && props.contains_key(*r)),
        );
        let mut seen = Vec::new();
        for name in names {
            if name == key || seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let schema = match own.get(name) {
                Some(Value::Bool(true)) | None => props.get(name).unwrap_or(&Value::Bool(true)),
                Some(s) => s,
            };
            out.push(Prop {
                name: name.into(),
                optional: !required.contains(&name),
                ty: ty(schema),
                doc: doc_of(schema).map(String::from),
            });
        }
        // `not: { required: [x] }`: the field must be absent for this branch.
        for name in strings(then.get("not").and_then(|n| n.get("required"))) {
            out.push(Prop {
                name: name.into(),
                optional: true,
                ty: Ts::Name("never".into()),
                doc: None,
            });
        }
        Ts::Object(out)
    };

    // Members in the order of the discriminant's enum; a branch naming several values once.
    let mut members = Vec::new();
    let mut done = vec![false; parsed.len()];
    for value in &values {
        match parsed.iter().position(|(named, _)| named.contains(value)) {
            Some(i) if done[i] => {}
            Some(i) => {
                done[i] = true;
                members.push(member(&parsed[i].0, Some(parsed[i].1)));
            }
            None => members.push(member(&[value], None)),
        }
    }
    let shared = object(obj, Some(key));
    let shared_empty =
        matches!(&shared, Ts::Object(p) if p.is_empty()) || matches!(shared, Ts::Record(_));
    Some(if all_closed || shared_empty {
        union(members)
    } else {
        Ts::Intersection(vec![shared, union(members)])
    })
}

fn prop_name(name: &str) -> String {
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.into()
    } else {
        Value::String(name.into()).to_string()
    }
}

/// Prints `t` for a position indented by `ind`. `block` forces an object onto several lines.
/// A union too long for one line starts with a newline, one `| member` per line.
fn print(t: &Ts, ind: usize, block: bool) -> String {
    let pad = " ".repeat(ind);
    match t {
        Ts::Name(n) => n.clone(),
        Ts::Array(item) => match **item {
            Ts::Union(_) | Ts::Intersection(_) => {
                format!("({})[]", print(item, ind, false).trim_start())
            }
            _ => format!("{}[]", print(item, ind, false)),
        },
        Ts::Record(value) => format!("Record<string, {}>", print(value, ind, false)),
        Ts::Object(props) if props.is_empty() => "{}".into(),
        Ts::Object(props) => {
            let inner: Vec<(String, &Prop)> = props
                .iter()
                .map(|p| (print(&p.ty, ind + 2, false), p))
                .collect();
            let field = |(t, p): &(String, &Prop)| {
                format!(
                    "{}{}:{}",
                    prop_name(&p.name),
                    if p.optional { "?" } else { "" },
                    after_eq(t)
                )
            };
            let line = format!(
                "{{ {} }}",
                inner.iter().map(field).collect::<Vec<_>>().join("; ")
            );
            let simple = inner
                .iter()
                .all(|(t, p)| !t.contains('\n') && p.doc.is_none());
            if !block && simple && line.len() <= ONE_LINE {
                return line;
            }
            let mut out = String::from("{\n");
            for entry in &inner {
                if let Some(doc) = &entry.1.doc {
                    out += &format!("{pad}  /** {doc} */\n");
                }
                out += &format!("{pad}  {};\n", field(entry));
            }
            out + pad.as_str() + "}"
        }
        Ts::Union(members) => {
            let flat: Vec<String> = members.iter().map(|m| print(m, ind, false)).collect();
            let line = flat.join(" | ");
            if !line.contains('\n') && line.len() <= ONE_LINE {
                return line;
            }
            members
                .iter()
                .map(|m| format!("\n{pad}  | {}", print(m, ind + 4, false)))
                .collect()
        }
        Ts::Intersection(parts) => parts
            .iter()
            .map(|p| match p {
                Ts::Union(_) => {
                    let u = print(p, ind, false);
                    if u.starts_with('\n') {
                        format!("({u}\n{pad})")
                    } else {
                        format!("({u})")
                    }
                }
                _ => print(p, ind, false),
            })
            .collect::<Vec<_>>()
            .join(" & "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn show(schema: Value) -> String {
        print(&ty(&schema), 0, false)
    }

    #[test]
    fn translates_the_schema_forms_the_catalogue_uses() {
        assert_eq!(show(json!({ "type": ["string", "null"] })), "string | null");
        assert_eq!(show(json!({ "enum": ["a", "b"] })), "\"a\" | \"b\"");
        assert_eq!(
            show(json!({ "type": "object", "additionalProperties": { "type": "string" } })),
            "Record<string, string>"
        );
        assert_eq!(show(json!({ "type": "object" })), "Record<string, unknown>");
        assert_eq!(show(json!({ "type": "array", "maxItems": 0 })), "[]");
        assert_eq!(
            show(json!({ "type": "array", "items": { "enum": [1, 2] } })),
            "(1 | 2)[]"
        );
        assert_eq!(
            show(
                json!({ "type": "object", "required": ["b"], "properties": { "a": true, "b": { "type": "integer" }, "my-key": { "const": "x" } } })
            ),
            "{ b: number; a?: unknown; \"my-key\"?: \"x\" }"
        );
    }

    #[test]
    fn if_then_branches_become_a_discriminated_union() {
        let schema = json!({
            "type": "object", "required": ["kind"], "properties": { "kind": { "enum": ["a", "b", "c"] } },
            "allOf": [{ "if": { "properties": { "kind": { "const": "b" } } }, "then": { "required": ["n"], "properties": { "n": { "type": "number" } } } }]
        });
        assert_eq!(
            show(schema),
            "{ kind: \"a\" } | { kind: \"b\"; n: number } | { kind: \"c\" }"
        );
    }
}
