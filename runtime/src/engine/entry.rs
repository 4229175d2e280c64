//! The server entry's shape, as Paseo's compiler requires it before it bundles a plugin:
//! exactly one `export default` of a function, with one named context parameter and a block
//! body. Paseo refuses anything else with these messages, so an author who develops against
//! this engine learns it before publishing.

use deno_ast::swc::ast::{BlockStmtOrExpr, DefaultDecl, Expr, ModuleDecl, ModuleItem, Pat};
use deno_ast::ModuleSpecifier;

use super::transpile;

/// Checks the entry's (transpiled) code; a syntax error is left to the engine to report.
pub fn check(url: &ModuleSpecifier, code: &str) -> Result<(), String> {
    let Some(parsed) = transpile::parse_module(url, code) else {
        return Ok(());
    };
    let defaults: Vec<&ModuleDecl> = match parsed.program_ref() {
        deno_ast::ProgramRef::Module(module) => module
            .body
            .iter()
            .filter_map(|item| match item {
                ModuleItem::ModuleDecl(
                    d @ (ModuleDecl::ExportDefaultDecl(_) | ModuleDecl::ExportDefaultExpr(_)),
                ) => Some(d),
                _ => None,
            })
            .collect(),
        deno_ast::ProgramRef::Script(_) => Vec::new(),
    };
    let [only] = defaults[..] else {
        return Err("Plugin entry point must have exactly one default export function".into());
    };
    // (the parameters, whether the body is a block)
    let (params, block): (Vec<&Pat>, bool) = match only {
        ModuleDecl::ExportDefaultDecl(d) => match &d.decl {
            DefaultDecl::Fn(f) => (
                f.function.params.iter().map(|p| &p.pat).collect(),
                f.function.body.is_some(),
            ),
            _ => return Err(not_a_function()),
        },
        ModuleDecl::ExportDefaultExpr(e) => match unwrap_parens(&e.expr) {
            Expr::Fn(f) => (
                f.function.params.iter().map(|p| &p.pat).collect(),
                f.function.body.is_some(),
            ),
            Expr::Arrow(a) => (
                a.params.iter().collect(),
                matches!(*a.body, BlockStmtOrExpr::BlockStmt(_)),
            ),
            _ => return Err(not_a_function()),
        },
        _ => unreachable!("filtered above"),
    };
    if !matches!(params[..], [Pat::Ident(_)]) {
        return Err("Plugin default export must receive one named context parameter".into());
    }
    if !block {
        return Err("Plugin default export must have a block body".into());
    }
    Ok(())
}

fn not_a_function() -> String {
    "Plugin default export must be a function receiving its context".into()
}

fn unwrap_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => unwrap_parens(&p.expr),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_code(code: &str) -> Result<(), String> {
        check(
            &ModuleSpecifier::parse("file:///p/index.server.ts").unwrap(),
            code,
        )
    }

    #[test]
    fn the_entry_must_be_one_default_function_of_one_named_context_with_a_block() {
        assert_eq!(
            check_code("export default function contribute(server) { return () => {}; }"),
            Ok(())
        );
        assert_eq!(
            check_code("export default async (ctx) => { return () => {}; };"),
            Ok(())
        );
        assert_eq!(
            check_code("export default (function (ctx) { return () => {}; });"),
            Ok(())
        );
        let none =
            Err("Plugin entry point must have exactly one default export function".to_string());
        assert_eq!(
            check_code("export function contribute(s) { return () => {}; }"),
            none
        );
        assert_eq!(
            check_code("const f = (s) => { return () => {}; }; export { f as default };"),
            none
        );
        assert_eq!(check_code("export default 42;"), Err(not_a_function()));
        assert_eq!(
            check_code("export default class X {}"),
            Err(not_a_function())
        );
        let param =
            Err("Plugin default export must receive one named context parameter".to_string());
        assert_eq!(
            check_code("export default function () { return () => {}; }"),
            param
        );
        assert_eq!(
            check_code("export default function ({ addHook }) { return () => {}; }"),
            param
        );
        assert_eq!(
            check_code("export default function (a, b) { return () => {}; }"),
            param
        );
        assert_eq!(
            check_code("export default (ctx) => () => {};"),
            Err("Plugin default export must have a block body".to_string())
        );
    }
}
