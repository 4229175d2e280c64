//! Icons of what plugins provide: an SVG file inside the plugin's folder, checked with the
//! rules and reasons of Paseo's daemon (`readPluginProviderIcon`), when the plugin registers
//! it (`op_provide_icon`) and again when the daemon reads it.

use std::path::Path;
use std::sync::Arc;

use deno_core::{op2, OpState};
use deno_error::JsErrorBox;

use crate::engine::PluginShared;

/// Largest icon, in bytes.
pub const MAX_ICON_BYTES: u64 = 64 * 1024;

/// Why an icon file cannot be read: it is not there (or not a regular file).
pub const NOT_A_FILE: &str = "file does not exist or is not a regular file";

/// Checks the icon a plugin registers (`icon` of `registerProvider` / `registerUsageSource`);
/// throws `Invalid plugin provider icon "<path>": <reason>` for an icon that leaves the plugin's
/// folder or could run or load something. A file that is not there is no error, as in Paseo:
/// the registration stands and the icon is simply absent.
#[op2(fast)]
fn op_provide_icon(state: &mut OpState, #[string] icon: &str) -> Result<(), JsErrorBox> {
    let dir = state.borrow::<Arc<PluginShared>>().dir.clone();
    match read_icon(&dir, icon) {
        Ok(_) => Ok(()),
        Err(reason) if reason == NOT_A_FILE => Ok(()),
        Err(reason) => Err(JsErrorBox::generic(format!(
            "Invalid plugin provider icon \"{icon}\": {reason}"
        ))),
    }
}

deno_core::extension!(paseo_provide, ops = [op_provide_icon]);

/// Reads an icon (see `PluginHost::provided_icon`): the rules and reasons of Paseo's daemon.
pub fn read_icon(directory: &Path, icon: &str) -> Result<String, String> {
    let root = directory
        .canonicalize()
        .map_err(|_| "path leaves the plugin directory".to_string())?;
    let joined = root.join(icon);
    if !normalized(&joined).starts_with(&root) {
        return Err("path leaves the plugin directory".into());
    }
    let not_a_file = || NOT_A_FILE.to_string();
    let path = joined.canonicalize().map_err(|_| not_a_file())?;
    if !path.starts_with(&root) {
        return Err("path leaves the plugin directory".into());
    }
    let meta = std::fs::metadata(&path).map_err(|_| not_a_file())?;
    if !meta.is_file() {
        return Err(not_a_file());
    }
    if meta.len() > MAX_ICON_BYTES {
        return Err("file exceeds 64 KiB".into());
    }
    let text =
        std::fs::read_to_string(&path).map_err(|_| "file is not an SVG document".to_string())?;
    check_svg(&text)?;
    Ok(text)
}

/// `a/../b` → `b`, without touching the file system.
fn normalized(path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Checks that an icon is a self-contained SVG document that runs nothing: no `<script>`,
/// `<foreignObject>` or `<style>`, no event-handler attributes, no `javascript:` URLs, and
/// every `href` pointing inside the document. An icon that breaks a rule is refused, not
/// repaired, with the reason in Paseo's words.
pub fn check_svg(text: &str) -> Result<(), String> {
    use quick_xml::events::{BytesStart, Event};
    let not_svg = || "file is not an SVG document".to_string();
    let start = text.trim_start();
    if !(start.len() > 4
        && start[..4].eq_ignore_ascii_case("<svg")
        && start[4..].starts_with(|c: char| c.is_whitespace() || c == '>'))
    {
        return Err(not_svg());
    }
    let element = |e: &BytesStart| -> Result<(), String> {
        let name = e.local_name().as_ref().to_ascii_lowercase();
        match name.as_slice() {
            b"script" => return Err("script elements are not allowed".into()),
            b"foreignobject" => return Err("foreignObject elements are not allowed".into()),
            b"style" => return Err("style elements are not allowed".into()),
            _ => {}
        }
        for attr in e.attributes() {
            let attr = attr.map_err(|_| not_svg())?;
            let key = attr.key.local_name().as_ref().to_ascii_lowercase();
            let value = attr.unescape_value().map_err(|_| not_svg())?;
            let squeezed: String = value.chars().filter(|c| !c.is_whitespace()).collect();
            if key.starts_with(b"on") {
                return Err("event-handler attributes are not allowed".into());
            }
            if squeezed.to_ascii_lowercase().contains("javascript:") {
                return Err("javascript URLs are not allowed".into());
            }
            if key == b"href" && !value.trim_start().starts_with('#') {
                return Err("external href references are not allowed".into());
            }
        }
        Ok(())
    };
    let mut reader = quick_xml::Reader::from_str(start);
    loop {
        match reader.read_event().map_err(|_| not_svg())? {
            Event::Eof => return Ok(()),
            Event::Start(e) | Event::Empty(e) => element(&e)?,
            // An entity could bring text from outside the document.
            Event::DocType(_) => return Err(not_svg()),
            _ => {}
        }
    }
}
