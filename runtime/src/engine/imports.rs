//! A module's static imports, restated at its top for QuickJS's text scanner.
//!
//! QuickJS (v8x) answers V8's `Module::GetModuleRequests` by scanning the module's text, not
//! from its parse: the scanner knows strings, templates and comments but not regular
//! expressions, so `const trailingSlashes = /\/*$/;` reads to it as the start of a comment, and
//! an `import` after it goes unseen (tar@7 does this). QuickJS itself then asks deno_core to
//! resolve an import deno_core never heard of, and deno_core panics in `instantiate_module`.
//!
//! Every module the loader serves is parsed here (a real parse: `deno_ast`, the transpiler's
//! parser). When a declaration that requests a module (`import … from`, `import "…"`,
//! `export … from`) comes after other code, the module's requests are restated at its very top,
//! before anything the scanner could misread, as bare `import "…";` declarations on the first
//! line. They mean nothing new: a module imported twice is one module, every import is linked
//! before any of the body runs, and they are listed in the order the module had them, so the
//! evaluation order is the same. No line moves (the header shares the first line), so stack
//! traces keep their line numbers. Modules whose requests all come first, as almost all do, are
//! left as they are.
//!
//! V8 parses modules itself; there this is off.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, Mutex};

use deno_ast::swc::ast::{ModuleDecl, ModuleItem, Str};
use deno_ast::swc::common::Spanned;
use deno_ast::ModuleSpecifier;

use super::transpile;

/// Whether this engine needs it (QuickJS's text scanner).
pub const ENABLED: bool = !cfg!(feature = "v8");

type Cache = Mutex<HashMap<(String, u64), Option<String>>>;
/// By URL and a hash of the code: a module loaded again, or into another isolate, is not
/// parsed again.
static CACHE: LazyLock<Cache> = LazyLock::new(Default::default);

/// `code` as QuickJS should be given it: with its requests restated at the top when an import
/// comes after other code (see the module docs), else unchanged.
pub fn for_quickjs(url: &ModuleSpecifier, code: String) -> String {
    if !ENABLED || !(code.contains("import") || code.contains("export")) {
        return code;
    }
    match header(url, &code) {
        Some(header) => insert_header(&header, code),
        None => code,
    }
}

fn insert_header(header: &str, code: String) -> String {
    // A hashbang must stay the first thing in the file.
    let at = if code.starts_with("#!") {
        code.find('\n').map_or(code.len(), |n| n + 1)
    } else {
        0
    };
    let mut out = String::with_capacity(code.len() + header.len() + 1);
    out.push_str(&code[..at]);
    if at == code.len() && at > 0 && !code.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(header);
    out.push_str(&code[at..]);
    out
}

/// The restated requests, or `None` when the module needs none (or does not parse: QuickJS
/// then reports the syntax error on the original text).
pub fn header(url: &ModuleSpecifier, code: &str) -> Option<String> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    code.hash(&mut h);
    let key = (url.to_string(), h.finish());
    if let Some(hit) = CACHE.lock().unwrap().get(&key) {
        return hit.clone();
    }
    let made = make_header(url, code);
    CACHE.lock().unwrap().insert(key, made.clone());
    made
}

fn make_header(url: &ModuleSpecifier, code: &str) -> Option<String> {
    let parsed = transpile::parse_module(url, code)?;
    let text = |span| transpile::span_text(code, span);
    let deno_ast::ProgramRef::Module(module) = parsed.program_ref() else {
        return None;
    };
    let mut requests = Vec::new();
    let mut after_other_code = false;
    let mut needed = false;
    for item in &module.body {
        let request: Option<(&Str, Option<deno_ast::swc::common::Span>)> = match item {
            ModuleItem::ModuleDecl(ModuleDecl::Import(d)) if !d.type_only => {
                Some((&d.src, d.with.as_ref().map(|w| w.span())))
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportAll(d)) if !d.type_only => {
                Some((&d.src, d.with.as_ref().map(|w| w.span())))
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportNamed(d)) if !d.type_only => d
                .src
                .as_deref()
                .map(|src| (src, d.with.as_ref().map(|w| w.span()))),
            _ => None,
        };
        match request {
            Some((src, with)) => {
                needed |= after_other_code;
                // The specifier as written (quotes and escapes included), and its attributes.
                let mut one = format!("import {}", text(src.span));
                if let Some(with) = with {
                    one.push_str(" with ");
                    one.push_str(text(with));
                }
                one.push(';');
                // On one line: the header must not move any line of the module.
                requests.push(one.replace(['\n', '\r', '\u{2028}', '\u{2029}'], " "));
            }
            None => after_other_code = true,
        }
    }
    needed.then(|| requests.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> ModuleSpecifier {
        ModuleSpecifier::parse("file:///m/index.js").unwrap()
    }

    #[test]
    fn imports_after_code_are_restated_on_the_first_line() {
        let code = "const trailingSlashes = /\\/*$/;\nimport path from \"node:path\";\n\
                    export { sep } from 'node:path';\nimport data from \"./d.json\" with { type: \"json\" };\n";
        let out = for_quickjs(&url(), code.to_string());
        if !ENABLED {
            assert_eq!(out, code);
            return;
        }
        assert_eq!(
            out,
            format!(
                "import \"node:path\";import 'node:path';import \"./d.json\" with {{ type: \"json\" }};{code}"
            )
        );
        assert_eq!(out.lines().count(), code.lines().count(), "no line moves");
    }

    #[test]
    fn modules_whose_imports_come_first_are_left_alone() {
        let code = "// a comment\nimport a from \"a\";\nexport * from \"b\";\nconst r = /\\/*$/;\n";
        assert_eq!(for_quickjs(&url(), code.to_string()), code);
        // Code that does not parse is QuickJS's to report.
        let broken = "const x = ;\nimport a from \"a\";\n";
        assert_eq!(for_quickjs(&url(), broken.to_string()), broken);
    }

    #[test]
    fn a_hashbang_stays_first() {
        let code = "#!/usr/bin/env node\nconst r = /\\/*$/;\nimport \"x\";\n";
        let out = for_quickjs(&url(), code.to_string());
        if ENABLED {
            assert_eq!(
                out,
                "#!/usr/bin/env node\nimport \"x\";const r = /\\/*$/;\nimport \"x\";\n"
            );
        }
    }
}
