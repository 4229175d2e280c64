//! Named imports the imported module does not export, as Paseo's bundle has them: `undefined`.
//!
//! Paseo bundles a plugin's server entry with esbuild into one CommonJS bundle, where
//! `import { x } from "./a"` becomes a property read of `a`'s exports: a name `a` lacks is
//! `undefined` (esbuild warns that it "will always be undefined"), and the plugin loads and
//! works until it uses it. Published plugins rely on that (a forge plugin imports a helper its
//! SDK version lacks). As ES modules such an import fails the whole load at link time. So, for
//! the plugin's own modules, each named (or default) import from a module whose exports are
//! known (the plugin's own files, the host's `@getpaseo/*` modules) that names a missing export
//! is rewritten to a `var` of that name, which is `undefined` as in the bundle, and the module
//! logs one warning per name when it runs. The declaration keeps its other names, its side
//! effect and its line count.

use std::collections::BTreeSet;

use deno_ast::swc::ast::{
    Decl, ExportSpecifier, ImportSpecifier, ModuleDecl, ModuleExportName, ModuleItem,
    ObjectPatProp, Pat,
};
use deno_ast::swc::common::Span;
use deno_ast::ModuleSpecifier;

use super::transpile;

/// What a module exports: its names, and the modules it re-exports whole (`export * from`).
pub struct Exports {
    pub names: BTreeSet<String>,
    pub star_from: Vec<String>,
}

fn export_name(code: &str, name: &ModuleExportName) -> String {
    match name {
        ModuleExportName::Ident(ident) => ident.sym.to_string(),
        ModuleExportName::Str(s) => {
            let text = transpile::span_text(code, s.span);
            text[1..text.len().saturating_sub(1)].to_string()
        }
    }
}

fn pattern_names(pat: &Pat, out: &mut BTreeSet<String>) {
    match pat {
        Pat::Ident(binding) => {
            out.insert(binding.id.sym.to_string());
        }
        Pat::Array(array) => array
            .elems
            .iter()
            .flatten()
            .for_each(|p| pattern_names(p, out)),
        Pat::Object(object) => {
            for prop in &object.props {
                match prop {
                    ObjectPatProp::KeyValue(kv) => pattern_names(&kv.value, out),
                    ObjectPatProp::Assign(assign) => {
                        out.insert(assign.key.id.sym.to_string());
                    }
                    ObjectPatProp::Rest(rest) => pattern_names(&rest.arg, out),
                }
            }
        }
        Pat::Assign(assign) => pattern_names(&assign.left, out),
        Pat::Rest(rest) => pattern_names(&rest.arg, out),
        _ => {}
    }
}

/// The exports of JavaScript module code (`None` when it does not parse as a module).
pub fn exports_of(url: &ModuleSpecifier, code: &str) -> Option<Exports> {
    let parsed = transpile::parse_module(url, code)?;
    let deno_ast::ProgramRef::Module(module) = parsed.program_ref() else {
        return Some(Exports {
            names: BTreeSet::new(),
            star_from: Vec::new(),
        });
    };
    let mut names = BTreeSet::new();
    let mut star_from = Vec::new();
    for item in &module.body {
        let ModuleItem::ModuleDecl(decl) = item else {
            continue;
        };
        match decl {
            ModuleDecl::ExportDecl(export) => match &export.decl {
                Decl::Class(c) => {
                    names.insert(c.ident.sym.to_string());
                }
                Decl::Fn(f) => {
                    names.insert(f.ident.sym.to_string());
                }
                Decl::Var(var) => var
                    .decls
                    .iter()
                    .for_each(|d| pattern_names(&d.name, &mut names)),
                Decl::TsEnum(e) => {
                    names.insert(e.id.sym.to_string());
                }
                _ => {}
            },
            ModuleDecl::ExportNamed(named) => {
                for spec in &named.specifiers {
                    let name = match spec {
                        ExportSpecifier::Named(n) => {
                            export_name(code, n.exported.as_ref().unwrap_or(&n.orig))
                        }
                        ExportSpecifier::Namespace(n) => export_name(code, &n.name),
                        ExportSpecifier::Default(d) => d.exported.sym.to_string(),
                    };
                    names.insert(name);
                }
            }
            ModuleDecl::ExportDefaultDecl(_) | ModuleDecl::ExportDefaultExpr(_) => {
                names.insert("default".into());
            }
            ModuleDecl::ExportAll(all) => {
                let text = transpile::span_text(code, all.src.span);
                star_from.push(text[1..text.len() - 1].to_string());
            }
            _ => {}
        }
    }
    Some(Exports { names, star_from })
}

/// `code` with each import of a name `exports(specifier)` lacks made a `var` (see the module
/// docs), and the warnings to log, one per name. `exports` answers `None` for a module whose
/// exports are not known; its imports are left alone.
pub fn bind_missing(
    url: &ModuleSpecifier,
    code: &str,
    display_path: &str,
    mut exports: impl FnMut(&str) -> Option<BTreeSet<String>>,
) -> Option<(String, Vec<String>)> {
    if !code.contains("import") {
        return None;
    }
    let parsed = transpile::parse_module(url, code)?;
    let deno_ast::ProgramRef::Module(module) = parsed.program_ref() else {
        return None;
    };
    // (span of the declaration, its replacement)
    let mut edits: Vec<(Span, String)> = Vec::new();
    let mut warnings = Vec::new();
    for item in &module.body {
        let ModuleItem::ModuleDecl(ModuleDecl::Import(import)) = item else {
            continue;
        };
        if import.type_only || import.specifiers.is_empty() {
            continue;
        }
        let src_text = transpile::span_text(code, import.src.span);
        let specifier = &src_text[1..src_text.len() - 1];
        let Some(known) = exports(specifier) else {
            continue;
        };
        let mut kept = Vec::new();
        let mut missing = Vec::new();
        let mut default = None;
        let mut namespace = None;
        for spec in &import.specifiers {
            match spec {
                ImportSpecifier::Named(named) if !named.is_type_only => {
                    let imported = named
                        .imported
                        .as_ref()
                        .map(|n| export_name(code, n))
                        .unwrap_or_else(|| named.local.sym.to_string());
                    if known.contains(&imported) {
                        kept.push(transpile::span_text(code, named.span).to_string());
                    } else {
                        missing.push((imported, named.local.sym.to_string()));
                    }
                }
                ImportSpecifier::Named(_) => {}
                ImportSpecifier::Default(d) => {
                    if known.contains("default") {
                        default = Some(d.local.sym.to_string());
                    } else {
                        missing.push(("default".into(), d.local.sym.to_string()));
                    }
                }
                ImportSpecifier::Namespace(n) => {
                    namespace = Some(transpile::span_text(code, n.span).to_string());
                }
            }
        }
        if missing.is_empty() {
            continue;
        }
        let with = import
            .with
            .as_ref()
            .map(|w| format!(" with {}", transpile::span_text(code, w.span)))
            .unwrap_or_default();
        let mut clauses = Vec::new();
        clauses.extend(default);
        clauses.extend(namespace);
        if !kept.is_empty() {
            clauses.push(format!("{{ {} }}", kept.join(", ")));
        }
        let mut replacement = if clauses.is_empty() {
            format!("import {src_text}{with};")
        } else {
            format!("import {} from {src_text}{with};", clauses.join(", "))
        };
        let locals: Vec<&str> = missing.iter().map(|(_, local)| local.as_str()).collect();
        replacement.push_str(&format!(" var {};", locals.join(", ")));
        replacement = replacement.replace(['\n', '\r'], " ");
        // The same number of lines as the declaration had: nothing below it moves.
        let original = transpile::span_text(code, import.span);
        replacement.push_str(&"\n".repeat(original.matches('\n').count()));
        edits.push((import.span, replacement));
        for (imported, _) in &missing {
            warnings.push(format!(
                "[paseo] Import \"{imported}\" will always be undefined because there is no matching export in \"{specifier}\" ({display_path})"
            ));
        }
    }
    if edits.is_empty() {
        return None;
    }
    let base = deno_ast::StartSourcePos::START_SOURCE_POS.as_byte_pos().0 as usize;
    let mut out = String::with_capacity(code.len() + 64);
    let mut at = 0;
    for (span, replacement) in edits {
        let (lo, hi) = (span.lo.0 as usize - base, span.hi.0 as usize - base);
        out.push_str(&code[at..lo]);
        out.push_str(&replacement);
        at = hi;
    }
    out.push_str(&code[at..]);
    Some((out, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> ModuleSpecifier {
        ModuleSpecifier::parse("file:///p/server/a.js").unwrap()
    }

    #[test]
    fn exports_are_read_from_declarations_lists_and_stars() {
        let code = "export const a = 1, { b, c: [d] } = o;\nexport function f() {}\nexport class K {}\n\
                    export { x as y, z };\nexport * as ns from './n.js';\nexport * from './all.js';\nexport default 1;\n";
        let e = exports_of(&url(), code).unwrap();
        let names: Vec<&str> = e.names.iter().map(String::as_str).collect();
        assert_eq!(names, ["K", "a", "b", "d", "default", "f", "ns", "y", "z"]);
        assert_eq!(e.star_from, ["./all.js"]);
    }

    #[test]
    fn a_missing_name_becomes_an_undefined_var_on_the_same_lines() {
        let code =
            "import def, {\n  here,\n  gone as g,\n} from \"./b.js\";\nconsole.log(here, g);\n";
        let known: BTreeSet<String> = ["here".to_string()].into();
        let (out, warnings) =
            bind_missing(&url(), code, "server/a.js", |_| Some(known.clone())).unwrap();
        assert_eq!(
            out,
            "import { here } from \"./b.js\"; var def, g;\n\n\n\nconsole.log(here, g);\n"
        );
        assert_eq!(out.lines().count(), code.lines().count());
        assert_eq!(warnings.len(), 2);
        assert_eq!(
            warnings[1],
            "[paseo] Import \"gone\" will always be undefined because there is no matching export in \"./b.js\" (server/a.js)"
        );
        // Unknown exports, or nothing missing: untouched.
        assert!(bind_missing(&url(), code, "a", |_| None).is_none());
        let all: BTreeSet<String> = ["here", "gone", "default"].map(String::from).into();
        assert!(bind_missing(&url(), code, "a", |_| Some(all.clone())).is_none());
    }
}
