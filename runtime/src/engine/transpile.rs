//! TypeScript/TSX → JavaScript in-process with `deno_ast`, with source maps, cached by content
//! hash so that reloading an unchanged module (or loading it into a second isolate) is free.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, LazyLock, Mutex};

use deno_ast::{MediaType, ModuleSpecifier, ParseParams, SourceMapOption};

#[derive(Clone)]
pub struct Transpiled {
    pub code: Arc<str>,
    pub source_map: Option<Arc<[u8]>>,
}

type Cache = Mutex<HashMap<(String, u64), Transpiled>>;
static CACHE: LazyLock<Cache> = LazyLock::new(Default::default);

fn content_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// Whether a file needs transpiling before it can run.
pub fn needs_transpile(path: &Path) -> bool {
    matches!(
        MediaType::from_path(path),
        MediaType::TypeScript | MediaType::Mts | MediaType::Cts | MediaType::Tsx | MediaType::Jsx
    )
}

/// Transpiles TypeScript/JSX to JavaScript, keeping the module kind (ESM stays ESM, CJS stays CJS).
pub fn transpile(
    specifier: &ModuleSpecifier,
    path: &Path,
    text: String,
) -> Result<Transpiled, String> {
    let key = (specifier.to_string(), content_hash(&text));
    if let Some(hit) = CACHE.lock().unwrap().get(&key) {
        return Ok(hit.clone());
    }
    let parsed = deno_ast::parse_program(ParseParams {
        specifier: specifier.clone(),
        text: text.into(),
        media_type: MediaType::from_path(path),
        capture_tokens: false,
        scope_analysis: false,
        maybe_syntax: None,
    })
    .map_err(|e| e.to_string())?;
    let emitted = parsed
        .transpile(
            &deno_ast::TranspileOptions {
                imports_not_used_as_values: deno_ast::ImportsNotUsedAsValues::Remove,
                decorators: deno_ast::DecoratorsTranspileOption::Ecma,
                ..Default::default()
            },
            &deno_ast::TranspileModuleOptions { module_kind: None },
            &deno_ast::EmitOptions {
                source_map: SourceMapOption::Separate,
                inline_sources: true,
                ..Default::default()
            },
        )
        .map_err(|e| e.to_string())?
        .into_source();
    let out = Transpiled {
        code: emitted.text.into(),
        source_map: emitted.source_map.map(|m| Arc::from(m.into_bytes())),
    };
    CACHE.lock().unwrap().insert(key, out.clone());
    Ok(out)
}

/// Lines longer than this make QuickJS's parser slow: at each call expression it works out the
/// column from the start of the line, so one long line of minified code parses in time that
/// grows with the square of its length (a 200 KB line of 6,000 small functions: 3.8 s, against
/// 0.5 s for the same code over 6,000 lines).
pub const LONG_LINE: usize = 4_000;

/// Whether JavaScript has a line QuickJS would parse slowly (`LONG_LINE`).
pub fn has_long_line(text: &str) -> bool {
    text.split('\n').any(|line| line.len() > LONG_LINE)
}

/// JavaScript with a line longer than [`LONG_LINE`] (minified code), re-emitted by deno_ast with
/// one statement per line and a source map back to the original, cached by content hash.
/// `None` when no line is that long, or when the code does not parse (QuickJS then reports the
/// error on the original text).
pub fn reflow(specifier: &ModuleSpecifier, text: &str, commonjs: bool) -> Option<Transpiled> {
    if !has_long_line(text) {
        return None;
    }
    let key = (format!("reflow:{specifier}"), content_hash(text));
    if let Some(hit) = CACHE.lock().unwrap().get(&key) {
        return Some(hit.clone());
    }
    let parsed = deno_ast::parse_program(ParseParams {
        specifier: specifier.clone(),
        text: text.into(),
        media_type: if commonjs {
            MediaType::Cjs
        } else {
            MediaType::Mjs
        },
        capture_tokens: false,
        scope_analysis: false,
        maybe_syntax: None,
    })
    .ok()?;
    let emitted = parsed
        .transpile(
            &deno_ast::TranspileOptions {
                // Plain JavaScript: every import stays as written.
                verbatim_module_syntax: true,
                ..Default::default()
            },
            &deno_ast::TranspileModuleOptions { module_kind: None },
            &deno_ast::EmitOptions {
                source_map: SourceMapOption::Separate,
                inline_sources: false,
                ..Default::default()
            },
        )
        .ok()?
        .into_source();
    let out = Transpiled {
        code: emitted.text.into(),
        source_map: emitted.source_map.map(|m| Arc::from(m.into_bytes())),
    };
    CACHE.lock().unwrap().insert(key, out.clone());
    Some(out)
}

/// Names a CommonJS module exports, as cjs-module-lexer would find them (for ESM named imports).
pub fn cjs_exports(
    specifier: &ModuleSpecifier,
    path: &Path,
    text: &str,
) -> (Vec<String>, Vec<String>) {
    let media_type = match MediaType::from_path(path) {
        MediaType::Json => return (vec![], vec![]),
        MediaType::TypeScript | MediaType::Cts | MediaType::Mts => MediaType::Cts,
        _ => MediaType::Cjs,
    };
    match deno_ast::parse_program(ParseParams {
        specifier: specifier.clone(),
        text: text.into(),
        media_type,
        capture_tokens: false,
        scope_analysis: false,
        maybe_syntax: None,
    }) {
        Ok(parsed) => {
            let analysis = parsed.analyze_cjs();
            (analysis.exports, analysis.reexports)
        }
        Err(_) => (vec![], vec![]),
    }
}
