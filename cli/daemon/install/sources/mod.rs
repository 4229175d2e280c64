//! Managed plugin sources, as Paseo installs them (reference §3.6): a source string names a
//! directory, a registry entry (`owner/slug`, `host/owner/slug`), an npm package
//! (`npm:<name>[@selector]`, or a bare name) or a Git repository (`github:owner/repo`,
//! `git:<url|scp>`), with `:relative/path` for a subfolder. A managed source is fetched into
//! `$PASEO_HOME/plugins/.staging/<uuid>`, prepared (the manifest's `build` commands) and only
//! then placed at `$PASEO_HOME/plugins/<id>/<uuid>/checkout[/<subpath>]` (Git) or
//! `…/<uuid>/node_modules/<pkg>[/<subpath>]` (npm); `plugins/sources.json` says where each one
//! came from. Whatever fails on the way removes what it made, and a staging folder left by a
//! killed daemon is removed at the next start.
//!
//! `parse` reads a source string, `registry` asks a registry what it pins, `fetch` fetches a
//! source into staging, `records` keeps what is on disk (the placed versions, `sources.json`).

mod fetch;
mod parse;
mod records;
mod registry;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub(crate) use fetch::{Fetched, Target};
pub(crate) use parse::parse;
pub(crate) use records::{
    clean_staging, layout, place, read_records, revision, version_root, write_records,
};

/// Paseo's registry, unless `PASEO_PLUGIN_REGISTRY` names another.
pub(crate) const DEFAULT_REGISTRY: &str = "https://plugins.paseo.sh";

/// A parsed source string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    Directory(PathBuf),
    /// `id` is `owner/slug`; `url` the registry's origin.
    Registry {
        url: String,
        id: String,
    },
    /// `spec`: a version, tag or range, or a tarball URL (a registry pin).
    Npm {
        package: String,
        spec: String,
        subpath: Option<String>,
    },
    Git {
        remote: String,
        subpath: Option<String>,
    },
}

/// Where a managed plugin came from, as `plugins/sources.json` keeps it (Paseo's shape; the npm
/// package and the subfolder are read back from the plugin's path).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum SourceRecord {
    Git {
        remote: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        registry: Option<RegistryRef>,
    },
    Npm {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        registry: Option<RegistryRef>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RegistryRef {
    pub url: String,
    pub id: String,
}

impl SourceRecord {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            SourceRecord::Git { .. } => "git",
            SourceRecord::Npm { .. } => "npm",
        }
    }

    pub(crate) fn registry(&self) -> Option<&RegistryRef> {
        match self {
            SourceRecord::Git { registry, .. } | SourceRecord::Npm { registry } => {
                registry.as_ref()
            }
        }
    }
}
