//! `paseo-plugin.json`, the plugin's entry files and the Paseo version requirement, with the
//! error texts of Paseo's host.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::HostError;

pub const MIGRATION_ACTION: &str =
    "Ask its author to update it. Plugin authors can follow the migration guide: https://paseo.sh/docs/plugins/migration";

#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub id: String,
    /// A display name (Paseo 0.11+).
    pub name: Option<String>,
    pub description: Option<String>,
    /// A PNG inside the plugin package, by its relative path (shown by the app).
    pub icon: Option<String>,
    /// Screenshots: relative paths inside the package, or `https:` URLs.
    pub media: Vec<String>,
    /// `requirements.paseo`, an npm semver range; absent means `<0.8.0`.
    pub paseo_range: Option<String>,
    pub build: Vec<Vec<String>>,
}

/// The longest plugin ID we accept. Paseo's schema sets none; ids become folder names
/// (`plugin-settings/<id>`) and log prefixes, so a bound keeps both sane.
pub const MAX_PLUGIN_ID_LEN: usize = 64;

/// Plugin IDs: a lowercase letter, then lowercase letters, digits and hyphens, at most
/// [`MAX_PLUGIN_ID_LEN`] characters. Such an ID is always safe to join into a path.
pub fn is_valid_plugin_id(id: &str) -> bool {
    let mut chars = id.chars();
    id.len() <= MAX_PLUGIN_ID_LEN
        && matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| matches!(c, 'a'..='z' | '0'..='9' | '-'))
}

/// [`is_valid_plugin_id`] with the message every entry point gives (install `--id`, the daemon's
/// control API, `config.json`).
pub fn check_plugin_id(id: &str) -> Result<(), HostError> {
    if is_valid_plugin_id(id) {
        return Ok(());
    }
    let shown: String = id.chars().take(80).collect();
    let more = if id.chars().count() > 80 { "…" } else { "" };
    Err(HostError::Manifest(format!(
        "Invalid plugin ID \"{shown}{more}\": it must start with a lowercase letter, contain only lowercase letters, digits and hyphens, and be at most {MAX_PLUGIN_ID_LEN} characters"
    )))
}

/// The keys of Paseo's manifest schema in its newest version; any other key is refused, so that
/// a misspelled one is not silently ignored.
pub const KEYS: &[&str] = &[
    "id",
    "name",
    "description",
    "icon",
    "media",
    "requirements",
    "build",
];

/// Paseo's asset path: relative, inside the package, a file (no `..`, no trailing `/`, no
/// `\ : ? #` or control characters).
fn asset_path(p: &str) -> bool {
    !p.is_empty()
        && p == p.trim()
        && !p.starts_with('/')
        && !p
            .chars()
            .any(|c| matches!(c, '\\' | ':' | '?' | '#') || c.is_control())
        && !p.split('/').any(|s| s == "..")
        && !p.ends_with('/')
        && p.rsplit('/').next() != Some(".")
}

impl Manifest {
    /// Reads and checks `dir/paseo-plugin.json` against Paseo's manifest schema.
    pub fn read(dir: &Path) -> Result<Manifest, HostError> {
        Self::read_checked(dir).map_err(HostError::Manifest)
    }

    fn read_checked(dir: &Path) -> Result<Manifest, String> {
        let path = dir.join("paseo-plugin.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|_| format!("Plugin manifest is missing: {}", path.display()))?;
        let invalid = |why: String| format!("Invalid plugin manifest {}: {why}", path.display());
        let value: Value = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
        let obj = value
            .as_object()
            .ok_or_else(|| invalid("expected a JSON object".into()))?;
        if let Some(key) = obj.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(invalid(format!("unknown key \"{key}\"")));
        }
        let id = match obj.get("id") {
            Some(Value::String(id)) if is_valid_plugin_id(id) => id.clone(),
            Some(Value::String(id)) if id.len() > MAX_PLUGIN_ID_LEN => {
                return Err(invalid(format!("id is {} characters long; the limit is {MAX_PLUGIN_ID_LEN}", id.chars().count())))
            }
            Some(Value::String(id)) => {
                return Err(invalid(format!(
                    "id \"{id}\" must start with a lowercase letter and contain only lowercase letters, digits and hyphens"
                )))
            }
            Some(_) => return Err(invalid("id must be a string".into())),
            None => return Err(invalid("id is required".into())),
        };
        let text = |key: &str| match obj.get(key) {
            None => Ok(None),
            Some(Value::String(d)) if !d.trim().is_empty() => Ok(Some(d.clone())),
            Some(_) => Err(invalid(format!("{key} must be a non-empty string"))),
        };
        let name = text("name")?.map(|n| n.trim().to_string());
        let description = text("description")?;
        let icon = match text("icon")? {
            Some(icon) if !asset_path(&icon) || !icon.to_lowercase().ends_with(".png") => {
                return Err(invalid(format!(
                    "icon \"{icon}\": expected a relative path to a PNG inside the plugin package"
                )))
            }
            icon => icon,
        };
        let media = match obj.get("media") {
            None => vec![],
            Some(Value::Array(items)) => items
                .iter()
                .map(|m| match m.as_str() {
                    Some(m) if asset_path(m) || (m.starts_with("https://") && deno_core::url::Url::parse(m).is_ok()) => Ok(m.to_string()),
                    _ => Err(invalid(format!("media entry {m}: expected a relative file path inside the plugin package or an https URL"))),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(invalid("media must be a list".into())),
        };
        let paseo_range = match obj.get("requirements") {
            None => None,
            Some(Value::Object(req)) => {
                if let Some(key) = req.keys().find(|k| k.as_str() != "paseo") {
                    return Err(invalid(format!("unknown requirement \"{key}\"")));
                }
                match req.get("paseo") {
                    None => None,
                    Some(Value::String(range)) => {
                        if range.trim().is_empty() || nodejs_semver::Range::parse(range).is_err() {
                            return Err(format!(
                                "Invalid requirements.paseo: \"{range}\". Use an npm semver range such as \">=0.8.0\"."
                            ));
                        }
                        Some(range.clone())
                    }
                    Some(_) => return Err(invalid("requirements.paseo must be a string".into())),
                }
            }
            Some(_) => return Err(invalid("requirements must be an object".into())),
        };
        let build = match obj.get("build") {
            None => vec![],
            Some(Value::Array(cmds)) if !cmds.is_empty() => cmds
                .iter()
                .map(|cmd| match cmd {
                    Value::Array(argv) if !argv.is_empty() => argv
                        .iter()
                        .map(|a| a.as_str().filter(|s| !s.is_empty()).map(str::to_string))
                        .collect::<Option<Vec<_>>>(),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    invalid(
                        "build must be a list of non-empty argv arrays of non-empty strings".into(),
                    )
                })?,
            Some(_) => {
                return Err(invalid(
                    "build must be a non-empty list of argv arrays".into(),
                ))
            }
        };
        Ok(Manifest {
            id,
            name,
            description,
            icon,
            media,
            paseo_range,
            build,
        })
    }

    /// Checks `requirements.paseo` against the daemon's version (`None`: unknown).
    pub fn check_requirements(
        &self,
        id: &str,
        daemon_version: Option<&str>,
    ) -> Result<(), HostError> {
        self.requirements_met(id, daemon_version)
            .map_err(HostError::Manifest)
    }

    fn requirements_met(&self, id: &str, daemon_version: Option<&str>) -> Result<(), String> {
        let Some(version) = daemon_version else {
            return Err(format!(
                "Cannot check plugin \"{id}\" requirements: Paseo daemon version is unknown. Update the daemon."
            ));
        };
        let (range, action) = match &self.paseo_range {
            Some(r) => (
                r.as_str(),
                "Use a compatible plugin version or update the daemon.",
            ),
            None => ("<0.8.0", MIGRATION_ACTION),
        };
        let parsed = nodejs_semver::Range::parse(range).map_err(|e| e.to_string())?;
        // A prerelease daemon satisfies a range when its stable core does.
        let core = version.split(['-', '+']).next().unwrap_or(version);
        let v = nodejs_semver::Version::parse(core)
            .map_err(|e| format!("Invalid Paseo daemon version {version}: {e}"))?;
        if parsed.satisfies(&v) {
            Ok(())
        } else {
            Err(format!(
                "Plugin \"{id}\" requires Paseo {range}. Your daemon is {version}. {action}"
            ))
        }
    }
}

/// The server entry: `index.server.ts` before `index.server.tsx`. `Ok(None)` for a plugin with
/// only a client entry.
pub fn find_server_entry(dir: &Path) -> Result<Option<PathBuf>, HostError> {
    server_entry(dir).map_err(HostError::Manifest)
}

fn server_entry(dir: &Path) -> Result<Option<PathBuf>, String> {
    let first = |names: &[&str]| names.iter().map(|n| dir.join(n)).find(|p| p.is_file());
    if let Some(entry) = first(&["index.server.ts", "index.server.tsx"]) {
        return Ok(Some(entry));
    }
    if first(&["index.client.ts", "index.client.tsx"]).is_some() {
        return Ok(None);
    }
    if first(&["index.ts", "index.tsx"]).is_some() {
        return Err("This plugin was made for an older version of Paseo and cannot run on Paseo v0.8. Ask its author to update it. Plugin authors can follow the migration guide: https://paseo.sh/docs/plugins/migration".into());
    }
    Err(format!(
        "Plugin entry points are missing: expected index.client.ts or index.client.tsx and/or index.server.ts or index.server.tsx in {}",
        dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(range: Option<&str>) -> Manifest {
        Manifest {
            id: "x".into(),
            name: None,
            description: None,
            icon: None,
            media: vec![],
            paseo_range: range.map(Into::into),
            build: vec![],
        }
    }

    #[test]
    fn the_newest_schemas_keys_are_accepted_and_checked() {
        let dir = tempfile_dir();
        let write = |json: &str| std::fs::write(dir.join("paseo-plugin.json"), json).unwrap();
        write(
            r#"{ "id": "x", "name": " Notes ", "icon": "assets/icon.png", "media": ["shots/a.png", "https://example.com/b.png"], "requirements": { "paseo": ">=0.11.0" } }"#,
        );
        let m = Manifest::read(&dir).unwrap();
        assert_eq!(m.name.as_deref(), Some("Notes"));
        assert_eq!(m.icon.as_deref(), Some("assets/icon.png"));
        assert_eq!(m.media.len(), 2);
        let err = |json: &str| {
            write(json);
            let e = Manifest::read(&dir).unwrap_err().to_string();
            e.split_once(": ").unwrap().1.to_string()
        };
        assert_eq!(
            err(r#"{ "id": "x", "icon": "../icon.png" }"#),
            "icon \"../icon.png\": expected a relative path to a PNG inside the plugin package"
        );
        assert_eq!(
            err(r#"{ "id": "x", "icon": "icon.svg" }"#),
            "icon \"icon.svg\": expected a relative path to a PNG inside the plugin package"
        );
        assert_eq!(err(r#"{ "id": "x", "media": ["http://example.com/a.png"] }"#), "media entry \"http://example.com/a.png\": expected a relative file path inside the plugin package or an https URL");
        assert_eq!(
            err(r#"{ "id": "x", "name": "" }"#),
            "name must be a non-empty string"
        );
        assert_eq!(
            err(r#"{ "id": "x", "entry": "main.ts" }"#),
            "unknown key \"entry\""
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!("paseo-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn requirements() {
        assert!(manifest(Some(">=0.8.0"))
            .check_requirements("x", Some("0.14.0"))
            .is_ok());
        assert!(manifest(Some(">=0.8.0"))
            .check_requirements("x", Some("0.8.0-beta.1"))
            .is_ok());
        assert_eq!(
            manifest(Some(">=0.15.0")).check_requirements("x", Some("0.14.0")).unwrap_err().to_string(),
            "Plugin \"x\" requires Paseo >=0.15.0. Your daemon is 0.14.0. Use a compatible plugin version or update the daemon."
        );
        assert_eq!(
            manifest(None)
                .check_requirements("x", Some("0.14.0"))
                .unwrap_err()
                .to_string(),
            format!(
                "Plugin \"x\" requires Paseo <0.8.0. Your daemon is 0.14.0. {MIGRATION_ACTION}"
            )
        );
        assert_eq!(
            manifest(None).check_requirements("x", None).unwrap_err().to_string(),
            "Cannot check plugin \"x\" requirements: Paseo daemon version is unknown. Update the daemon."
        );
    }

    #[test]
    fn ids() {
        assert!(is_valid_plugin_id("a-1"));
        assert!(!is_valid_plugin_id("1a"));
        assert!(!is_valid_plugin_id("A"));
        assert!(!is_valid_plugin_id("a_b"));
        assert!(!is_valid_plugin_id(""));
        assert!(!is_valid_plugin_id("../../dir"));
        assert!(is_valid_plugin_id(&"a".repeat(MAX_PLUGIN_ID_LEN)));
        assert!(!is_valid_plugin_id(&"a".repeat(MAX_PLUGIN_ID_LEN + 1)));
        assert!(check_plugin_id(&"a".repeat(5000))
            .unwrap_err()
            .to_string()
            .contains("at most 64 characters"));
    }
}
