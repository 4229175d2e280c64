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

/// Parses JavaScript module code (no tokens, no scope analysis): the one parse the loader's
/// own checks (`entry`, `imports`, `missing_imports`) make of a module. `None` when it does not
/// parse; the engine then reports the syntax error itself.
pub fn parse_module(specifier: &ModuleSpecifier, code: &str) -> Option<deno_ast::ParsedSource> {
    deno_ast::parse_program(ParseParams {
        specifier: specifier.clone(),
        text: code.into(),
        media_type: MediaType::Mjs,
        capture_tokens: false,
        scope_analysis: false,
        maybe_syntax: None,
    })
    .ok()
}

/// The text of `span` in `code`, the source a `parse_module` of it was made from.
pub fn span_text(code: &str, span: deno_ast::swc::common::Span) -> &str {
    let base = deno_ast::StartSourcePos::START_SOURCE_POS.as_byte_pos().0 as usize;
    &code[span.lo.0 as usize - base..span.hi.0 as usize - base]
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

/// JavaScript with a line longer than [`LONG_LINE`] (minified code), cut into short lines, with
/// a source map back to the original, cached by content hash. The code itself is unchanged but
/// for line breaks after `;`, `,` and `{` tokens once a line reaches [`BREAK_AT`] bytes: no
/// production restricts a line break after any of those, so the program means the same. The
/// tokens come from a full parse, which tells regular expressions and templates from the rest;
/// printing the parsed program again instead costs several times more to make, and makes code
/// QuickJS takes longer to compile. `None` when no line is that long, or when the code does not
/// parse (QuickJS then reports the error on the original text).
pub fn reflow(specifier: &ModuleSpecifier, text: &str, commonjs: bool) -> Option<Transpiled> {
    use deno_ast::swc::parser::token::Token;
    use deno_ast::swc::sourcemap::SourceMapBuilder;
    if !has_long_line(text) {
        return None;
    }
    // Taken (and so freed) whether or not it is used.
    let stashed = LAST_PARSE.lock().unwrap().take();
    let key = (format!("reflow:{specifier}"), content_hash(text));
    if let Some(hit) = CACHE.lock().unwrap().get(&key) {
        return Some(hit.clone());
    }
    let parsed = match stashed {
        Some((key, parsed)) if commonjs && key == parse_key(specifier, text) => parsed,
        _ => deno_ast::parse_program(ParseParams {
            specifier: specifier.clone(),
            text: text.into(),
            media_type: if commonjs {
                MediaType::Cjs
            } else {
                MediaType::Mjs
            },
            capture_tokens: true,
            scope_analysis: false,
            maybe_syntax: None,
        })
        .ok()?,
    };
    let base = deno_ast::StartSourcePos::START_SOURCE_POS.as_byte_pos().0 as usize;
    let tokens = parsed.tokens();
    let mut cuts = Vec::new();
    let mut line_start = 0;
    for (i, t) in tokens.iter().enumerate() {
        if t.had_line_break {
            let lo = t.span.lo.0 as usize - base;
            line_start = text[..lo].rfind('\n').map_or(0, |n| n + 1);
        }
        if !matches!(t.token, Token::Semi | Token::Comma | Token::LBrace) {
            continue;
        }
        let hi = t.span.hi.0 as usize - base;
        let next_on_this_line = tokens.get(i + 1).is_some_and(|n| !n.had_line_break);
        if next_on_this_line && hi - line_start >= BREAK_AT {
            cuts.push(hi);
            line_start = hi;
        }
    }
    // One mapping at the start of each line of the result: where that text stood.
    let mut map = SourceMapBuilder::new(None);
    let source = map.add_source(specifier.to_string().into());
    let mut code = String::with_capacity(text.len() + cuts.len());
    let (mut out_line, mut line, mut col, mut pos) = (0u32, 0u32, 0u32, 0usize);
    map.add_raw(0, 0, 0, 0, Some(source), None, false);
    for end in cuts.into_iter().chain([text.len()]) {
        let piece = &text[pos..end];
        for (at, c) in piece.char_indices() {
            if c == '\n' {
                line += 1;
                col = 0;
                out_line += 1;
                if pos + at + 1 < text.len() {
                    map.add_raw(out_line, 0, line, 0, Some(source), None, false);
                }
            } else {
                col += c.len_utf16() as u32;
            }
        }
        code.push_str(piece);
        if end < text.len() {
            code.push('\n');
            out_line += 1;
            map.add_raw(out_line, 0, line, col, Some(source), None, false);
        }
        pos = end;
    }
    let mut source_map = Vec::new();
    map.into_sourcemap().to_writer(&mut source_map).ok()?;
    let out = Transpiled {
        code: code.into(),
        source_map: Some(Arc::from(source_map)),
    };
    CACHE.lock().unwrap().insert(key, out.clone());
    Some(out)
}

/// Where [`reflow`] cuts a long line: short enough for QuickJS's column arithmetic to stay
/// cheap, long enough to add few bytes.
const BREAK_AT: usize = 160;

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
    // The analysis of a minified file parses it with tokens, for `reflow` to cut the same
    // parse when `require` reads the file next.
    let long = media_type == MediaType::Cjs && has_long_line(text);
    match deno_ast::parse_program(ParseParams {
        specifier: specifier.clone(),
        text: text.into(),
        media_type,
        capture_tokens: long,
        scope_analysis: false,
        maybe_syntax: None,
    }) {
        Ok(parsed) => {
            let analysis = parsed.analyze_cjs();
            if long {
                *LAST_PARSE.lock().unwrap() = Some((parse_key(specifier, text), parsed));
            }
            (analysis.exports, analysis.reexports)
        }
        Err(_) => (vec![], vec![]),
    }
}

/// The last minified CommonJS file `cjs_exports` parsed (with its tokens), for `reflow` to take.
static LAST_PARSE: Mutex<Option<((String, u64), deno_ast::ParsedSource)>> = Mutex::new(None);

fn parse_key(specifier: &ModuleSpecifier, text: &str) -> (String, u64) {
    (specifier.to_string(), content_hash(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflow_cuts_long_lines_only_between_tokens() {
        // Regular expressions, strings and templates hold `;`, `,` and `{` that are no tokens.
        let unit = r#"var r=/[;,{]+/g,s="a;b,{c",t=`x;${1,2};y{`,o={k:[1,2,3]};f(r,s,t,o);"#;
        let text = unit.repeat(200);
        let url = ModuleSpecifier::parse("file:///reflow/test.js").unwrap();
        let out = reflow(&url, &text, true).expect("a long line is reflowed");
        assert_eq!(
            out.code.replace('\n', ""),
            text,
            "only line breaks are added"
        );
        assert!(out.code.lines().count() > 50);
        assert!(out.code.lines().all(|l| l.len() < BREAK_AT + unit.len()));
        for line in out.code.lines() {
            assert!(
                !line.ends_with("/[;") && !line.ends_with("\"a;") && !line.ends_with("`x;"),
                "{line}"
            );
        }
        let map = out.source_map.expect("a source map");
        let map = deno_ast::swc::sourcemap::SourceMap::from_slice(&map).unwrap();
        // The second line starts where the first cut was made, on the original's only line.
        let first = out.code.lines().next().unwrap().len() as u32;
        let token = map.lookup_token(1, 0).unwrap();
        assert_eq!((token.get_src_line(), token.get_src_col()), (0, first));
        // Short lines are left alone.
        assert!(reflow(&url, "var a = 1;\nvar b = 2;\n", true).is_none());
    }
}
