//! Rust side of the `node:` builtins and web globals that need the OS: file system, OS facts,
//! process facts, URL parsing, randomness. The JS faces live in `js/node/` and `js/web/`.

pub mod child_process;
pub mod crypto;
mod dgram;
pub mod fetch;
mod fs;
mod fs_watch;
pub mod net;
pub(crate) mod permission;
mod sqlite;
mod tls;
mod zlib;

use deno_core::url::Url;
use deno_core::{op2, OpState};
use deno_error::JsErrorBox;
use serde::Serialize;

/// libuv's name and text for an OS error, as Node prints them.
pub(crate) fn uv(e: &std::io::Error) -> (&'static str, &'static str) {
    match e.raw_os_error() {
        Some(98) => ("EADDRINUSE", "address already in use"),
        Some(99) => ("EADDRNOTAVAIL", "address not available"),
        Some(111) => ("ECONNREFUSED", "connection refused"),
        Some(104) => ("ECONNRESET", "connection reset by peer"),
        Some(103) => ("ECONNABORTED", "software caused connection abort"),
        Some(32) => ("EPIPE", "broken pipe"),
        Some(2) => ("ENOENT", "no such file or directory"),
        Some(13) => ("EACCES", "permission denied"),
        Some(1) => ("EPERM", "operation not permitted"),
        Some(110) => ("ETIMEDOUT", "connection timed out"),
        Some(113) => ("EHOSTUNREACH", "host is unreachable"),
        Some(101) => ("ENETUNREACH", "network is unreachable"),
        Some(107) => ("ENOTCONN", "socket is not connected"),
        Some(20) => ("ENOTDIR", "not a directory"),
        Some(91) => ("EPROTOTYPE", "protocol wrong type for socket"),
        Some(88) => ("ENOTSOCK", "socket operation on non-socket"),
        Some(36) => ("ENAMETOOLONG", "name too long"),
        Some(24) => ("EMFILE", "too many open files"),
        Some(22) => ("EINVAL", "invalid argument"),
        Some(17) => ("EEXIST", "file already exists"),
        Some(21) => ("EISDIR", "illegal operation on a directory"),
        Some(39) => ("ENOTEMPTY", "directory not empty"),
        Some(18) => ("EXDEV", "cross-device link not permitted"),
        Some(40) => ("ELOOP", "too many symbolic links encountered"),
        Some(28) => ("ENOSPC", "no space left on device"),
        Some(libc::EBADF) => ("EBADF", "bad file descriptor"),
        Some(libc::ESPIPE) => ("ESPIPE", "invalid seek"),
        Some(libc::ENXIO) => ("ENXIO", "no such device or address"),
        Some(libc::EAGAIN) => ("EAGAIN", "resource temporarily unavailable"),
        Some(libc::EFBIG) => ("EFBIG", "file too large"),
        Some(libc::EROFS) => ("EROFS", "read-only file system"),
        Some(libc::ETXTBSY) => ("ETXTBSY", "text file is busy"),
        _ => ("EIO", "i/o error"),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OsInfo {
    hostname: String,
    release: String,
    arch: &'static str,
    platform: &'static str,
    homedir: String,
    tmpdir: String,
    cpus: usize,
    totalmem: u64,
    freemem: u64,
    uptime: f64,
    loadavg: Vec<f64>,
    username: String,
    uid: u32,
    gid: u32,
    shell: Option<String>,
}

fn read_trimmed(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn meminfo(key: &str) -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .unwrap_or(0)
        * 1024
}

fn ids() -> (u32, u32) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |k: &str| {
        status
            .lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    };
    (field("Uid:"), field("Gid:"))
}

#[op2]
#[serde]
fn op_os_info() -> OsInfo {
    let (uid, gid) = ids();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/".into());
    OsInfo {
        hostname: read_trimmed("/proc/sys/kernel/hostname"),
        release: read_trimmed("/proc/sys/kernel/osrelease"),
        arch: match std::env::consts::ARCH {
            "x86_64" => "x64",
            "aarch64" => "arm64",
            "x86" => "ia32",
            other => other,
        },
        platform: std::env::consts::OS,
        tmpdir: std::env::var("TMPDIR")
            .ok()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "/tmp".into()),
        cpus: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        totalmem: meminfo("MemTotal:"),
        freemem: meminfo("MemAvailable:"),
        uptime: read_trimmed("/proc/uptime")
            .split_whitespace()
            .next()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0),
        loadavg: read_trimmed("/proc/loadavg")
            .split_whitespace()
            .take(3)
            .filter_map(|s| s.parse().ok())
            .collect(),
        username: std::env::var("USER")
            .or_else(|_| std::env::var("LOGNAME"))
            .unwrap_or_else(|_| {
                std::path::Path::new(&home)
                    .file_name()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            }),
        homedir: home,
        uid,
        gid,
        shell: std::env::var("SHELL").ok(),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProcessInfo {
    env: std::collections::BTreeMap<String, String>,
    pid: u32,
    ppid: u32,
    exec_path: String,
    cwd: String,
}

/// Throws Node's `ERR_ACCESS_DENIED` when the plugin's policy does not grant host information
/// (`sys`); `what` names the `os` function asked.
#[op2(fast)]
fn op_os_check_sys(state: &mut OpState, #[string] what: &str) -> Result<(), JsErrorBox> {
    permission::sys(state, what)
}

/// The process's facts; `env` holds the variables the plugin's policy lets it see (all without
/// one).
#[op2]
#[serde]
fn op_process_info(state: &mut OpState) -> ProcessInfo {
    ProcessInfo {
        env: std::env::vars()
            .filter(|(name, _)| permission::env_visible(state, name))
            .collect(),
        pid: std::process::id(),
        ppid: read_trimmed("/proc/self/stat")
            .split_whitespace()
            .nth(3)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        exec_path: std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default(),
        cwd: current_dir(),
    }
}

fn current_dir() -> String {
    std::env::current_dir()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "/".into())
}

#[op2]
#[string]
fn op_process_cwd() -> String {
    current_dir()
}

#[op2]
#[serde]
fn op_process_memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0);
    (rss * 1024, 0)
}

#[derive(Serialize)]
struct UrlParts {
    href: String,
    origin: String,
    protocol: String,
    username: String,
    password: String,
    host: String,
    hostname: String,
    port: String,
    pathname: String,
    search: String,
    hash: String,
}

fn url_parts(url: &Url) -> UrlParts {
    let search = url
        .query()
        .filter(|q| !q.is_empty())
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    let hash = url
        .fragment()
        .filter(|f| !f.is_empty())
        .map(|f| format!("#{f}"))
        .unwrap_or_default();
    UrlParts {
        href: url.as_str().to_string(),
        origin: url.origin().ascii_serialization(),
        protocol: format!("{}:", url.scheme()),
        username: url.username().to_string(),
        password: url.password().unwrap_or_default().to_string(),
        host: match (url.host_str(), url.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => String::new(),
        },
        hostname: url.host_str().unwrap_or_default().to_string(),
        port: url.port().map(|p| p.to_string()).unwrap_or_default(),
        pathname: url.path().to_string(),
        search,
        hash,
    }
}

#[op2]
#[serde]
fn op_url_parse(#[string] href: &str, #[string] base: Option<String>) -> Option<UrlParts> {
    let url = match base {
        Some(base) => Url::parse(&base).ok()?.join(href).ok()?,
        None => Url::parse(href).ok()?,
    };
    Some(url_parts(&url))
}

/// Applies a URL setter; `None` when the standard says to ignore the new value.
#[op2]
#[serde]
fn op_url_set(
    #[string] href: &str,
    #[string] field: &str,
    #[string] value: &str,
) -> Option<UrlParts> {
    let mut url = Url::parse(href).ok()?;
    let ok = match field {
        "protocol" => url.set_scheme(value.trim_end_matches(':')).is_ok(),
        "username" => url.set_username(value).is_ok(),
        "password" => url
            .set_password(Some(value).filter(|v| !v.is_empty()))
            .is_ok(),
        "host" => {
            let (host, port) = value
                .rsplit_once(':')
                .map_or((value, None), |(h, p)| (h, p.parse().ok()));
            url.set_host(Some(host)).is_ok() && url.set_port(port).is_ok()
        }
        "hostname" => url.set_host(Some(value)).is_ok(),
        "port" => url
            .set_port(if value.is_empty() {
                None
            } else {
                value.parse().ok()
            })
            .is_ok(),
        "pathname" => {
            url.set_path(value);
            true
        }
        "search" => {
            let q = value.trim_start_matches('?');
            url.set_query(if q.is_empty() { None } else { Some(q) });
            true
        }
        "hash" => {
            let f = value.trim_start_matches('#');
            url.set_fragment(if f.is_empty() { None } else { Some(f) });
            true
        }
        _ => false,
    };
    ok.then(|| url_parts(&url))
}

/// The `node:` builtins this host implements (for `module.builtinModules`).
#[op2]
#[serde]
fn op_node_builtins() -> Vec<&'static str> {
    crate::engine::modules::NODE_BUILTINS.to_vec()
}

/// What `name` is to `require` and `process.getBuiltinModule`: 0 not a Node builtin, 1 a
/// builtin this host lacks, 2 implemented, and so loadable synchronously on first use
/// (js/runtime/core.js `BuiltinKind`).
#[op2(fast)]
fn op_node_builtin_kind(#[string] name: &str) -> u32 {
    use crate::engine::modules;
    if modules::NODE_BUILTINS.contains(&name) {
        2
    } else if modules::is_node_builtin(name) {
        1
    } else {
        0
    }
}

#[op2(fast)]
fn op_crypto_fill_random(#[buffer] out: &mut [u8]) -> Result<(), JsErrorBox> {
    getrandom::fill(out).map_err(|e| JsErrorBox::generic(format!("Cannot read random bytes: {e}")))
}

/// The node capability: every extension behind the `node:` builtins and the web globals.
pub fn extensions() -> Vec<deno_core::Extension> {
    vec![
        paseo_node::init(),
        crypto::paseo_crypto::init(),
        child_process::paseo_child_process::init(),
        net::paseo_net::init(),
        dgram::paseo_dgram::init(),
        fetch::paseo_fetch::init(),
        sqlite::paseo_sqlite::init(),
        zlib::paseo_zlib::init(),
        tls::paseo_tls::init(),
        fs::paseo_fs_files::init(),
        fs_watch::paseo_fs_watch::init(),
    ]
}

deno_core::extension!(
    paseo_node,
    ops = [
        op_os_info,
        op_process_info,
        op_process_cwd,
        op_process_memory,
        op_url_parse,
        op_url_set,
        op_crypto_fill_random,
        op_node_builtins,
        op_node_builtin_kind,
        op_os_check_sys,
        permission::op_permission_has,
        permission::op_permission_auditing,
        permission::op_permission_note_env,
        fs::op_fs_read,
        fs::op_fs_write,
        fs::op_fs_stat,
        fs::op_fs_readdir,
        fs::op_fs_mkdir,
        fs::op_fs_remove,
        fs::op_fs_rename,
        fs::op_fs_copy,
        fs::op_fs_realpath,
        fs::op_fs_access,
        fs::op_fs_chmod,
        fs::op_fs_symlink,
        fs::op_fs_readlink,
        fs::op_fs_link,
        fs::op_fs_mkdtemp,
        fs::op_fs_truncate,
        fs::op_fs_utimes,
        fs::op_fs_futimes,
    ],
);
