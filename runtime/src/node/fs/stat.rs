//! File metadata as Node shows it: the fields of `fs.Stats` (with the kind of file), and the
//! other way, the times `utimes` and `futimes` take.

use std::os::unix::fs::MetadataExt;
use std::time::UNIX_EPOCH;

use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatInfo {
    kind: &'static str,
    size: u64,
    mode: u32,
    uid: u32,
    gid: u32,
    ino: u64,
    dev: u64,
    nlink: u64,
    rdev: u64,
    blksize: u64,
    blocks: u64,
    atime_ms: f64,
    mtime_ms: f64,
    ctime_ms: f64,
    birthtime_ms: f64,
}

pub(super) fn kind(ft: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_symlink() {
        "symlink"
    } else if ft.is_dir() {
        "dir"
    } else if ft.is_file() {
        "file"
    } else if ft.is_fifo() {
        "fifo"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_block_device() {
        "block"
    } else {
        "char"
    }
}

pub(super) fn stat_info(md: &std::fs::Metadata) -> StatInfo {
    let ms = |s: i64, ns: i64| s as f64 * 1000.0 + ns as f64 / 1e6;
    let birth = md
        .created()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or_else(|| ms(md.ctime(), md.ctime_nsec()));
    StatInfo {
        kind: kind(md.file_type()),
        size: md.size(),
        mode: md.mode(),
        uid: md.uid(),
        gid: md.gid(),
        ino: md.ino(),
        dev: md.dev(),
        nlink: md.nlink(),
        rdev: md.rdev(),
        blksize: md.blksize(),
        blocks: md.blocks(),
        atime_ms: ms(md.atime(), md.atime_nsec()),
        mtime_ms: ms(md.mtime(), md.mtime_nsec()),
        ctime_ms: ms(md.ctime(), md.ctime_nsec()),
        birthtime_ms: birth,
    }
}

/// Seconds since the epoch, as Node's `utimes` family takes them (fractions to the ns).
pub(super) fn timespec(seconds: f64) -> libc::timespec {
    let whole = seconds.floor();
    libc::timespec {
        tv_sec: whole as libc::time_t,
        tv_nsec: ((seconds - whole) * 1e9).round().min(999_999_999.0) as libc::c_long,
    }
}
