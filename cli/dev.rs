//! `paseo plugin dev <dir>`: a daemon with that plugin, which reloads it whenever its files
//! change and streams its logs — the edit-and-retry loop for plugin authors.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use crate::daemon::{control, Daemon, Startup};

/// Modification times of the plugin's own files (not node_modules).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, SystemTime> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name();
            if name == "node_modules" || name.to_string_lossy().starts_with('.') {
                continue;
            }
            match entry.metadata() {
                Ok(md) if md.is_dir() => stack.push(path),
                Ok(md) => {
                    out.insert(path, md.modified().unwrap_or(SystemTime::UNIX_EPOCH));
                }
                Err(_) => {}
            }
        }
    }
    out
}

/// `inspect`: `--inspect[-brk]`'s address, and whether the plugin's code waits for a debugger.
pub async fn run(
    dir: &Path,
    home: Option<&Path>,
    inspect: Option<(std::net::SocketAddr, bool)>,
) -> Result<ExitCode, String> {
    if inspect.is_some() {
        crate::daemon::inspector::check_engine()?;
    }
    let dir = dir
        .canonicalize()
        .map_err(|_| format!("Plugin directory not found: {}", dir.display()))?;
    let temporary = home.is_none();
    let home = match home {
        Some(h) => h.to_path_buf(),
        None => std::env::temp_dir().join(format!("paseo-dev-{}", std::process::id())),
    };
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
    std::fs::write(home.join("config.json"), r#"{ "pluginsEnabled": true }"#)
        .map_err(|e| e.to_string())?;
    // The plugin's ID, for the debugger's target before the plugin loads (with --inspect-brk
    // its load waits for the debugger).
    let plugin_id = paseo_plugin_runtime::host::manifest::Manifest::read(&dir)
        .map(|m| m.id)
        .unwrap_or_default();
    let startup = Startup {
        inspect: inspect.map(|(addr, brk)| {
            let plugins = Some(vec![plugin_id.clone()]);
            (addr, paseo_plugin_runtime::InspectOptions { plugins, brk })
        }),
        ..Startup::default()
    };
    let daemon = Daemon::start_with(home.clone(), startup).await?;
    let mut logs = daemon.logs.subscribe();
    tokio::spawn(async move {
        while let Ok((id, entry)) = logs.recv().await {
            println!("[{id}] {}", entry.message);
        }
    });
    let id = match daemon.plugin_install(&dir, None).await {
        Ok(v) => v["id"].as_str().unwrap_or_default().to_string(),
        Err(e) => return Err(e),
    };
    eprintln!(
        "paseo dev: watching {} as plugin {id}; drive it with PASEO_HOME={} paseo …",
        dir.display(),
        home.display()
    );
    tokio::spawn(control::serve(daemon.clone()));
    let mut last = snapshot(&dir);
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => break,
            () = tokio::time::sleep(Duration::from_millis(250)) => {}
        }
        let now = snapshot(&dir);
        if now != last {
            last = now;
            match daemon.plugin_reload(&id).await {
                Ok(v) => eprintln!(
                    "paseo dev: reloaded {id} in {:.1} ms",
                    v["reloadMs"].as_f64().unwrap_or_default()
                ),
                Err(e) => eprintln!("paseo dev: reload failed: {e}"),
            }
        }
    }
    daemon.shutdown().await;
    if temporary {
        let _ = std::fs::remove_dir_all(&home);
    }
    Ok(ExitCode::SUCCESS)
}
