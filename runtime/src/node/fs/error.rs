//! Node's errors for the fs ops: [`FsError`] carries the JS class, the message
//! (`ENOENT: no such file or directory, open '/x'`) and the `code`, `errno`, `syscall`, `path`
//! and `dest` Node gives an error, so js/node/fs.js adds nothing.

use deno_error::JsErrorBox;

use crate::engine::budget::HeapRoom;

/// An error of an fs op as Node shapes it: its JS class, message and properties.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(crate) struct FsError {
    pub(super) class: &'static str,
    pub(super) message: String,
    pub(super) code: &'static str,
    /// Node's negative errno, for errors from the OS.
    pub(super) errno: Option<i32>,
    pub(super) syscall: Option<&'static str>,
    pub(super) path: Option<String>,
    pub(super) dest: Option<String>,
}

impl FsError {
    /// An OS error whose message is not libuv's usual text for `code`.
    pub(in crate::node) fn new(
        code: &'static str,
        message: String,
        errno: i32,
        syscall: &'static str,
        path: &str,
    ) -> Self {
        FsError {
            class: "Error",
            message,
            code,
            errno: Some(-errno),
            syscall: Some(syscall),
            path: Some(path.to_string()),
            dest: None,
        }
    }
}

impl deno_error::JsErrorClass for FsError {
    fn get_class(&self) -> std::borrow::Cow<'static, str> {
        self.class.into()
    }

    fn get_message(&self) -> std::borrow::Cow<'static, str> {
        self.message.clone().into()
    }

    fn get_additional_properties(&self) -> deno_error::AdditionalProperties {
        use deno_error::PropertyValue;
        // In the order Node sets them (`uvException`).
        let mut properties = Vec::with_capacity(5);
        if let Some(errno) = self.errno {
            properties.push(("errno".into(), PropertyValue::Number(errno.into())));
        }
        properties.push(("code".into(), PropertyValue::String(self.code.into())));
        if let Some(syscall) = self.syscall {
            properties.push(("syscall".into(), PropertyValue::String(syscall.into())));
        }
        for (key, value) in [("path", &self.path), ("dest", &self.dest)] {
            if let Some(value) = value {
                properties.push((key.into(), PropertyValue::String(value.clone().into())));
            }
        }
        Box::new(properties.into_iter())
    }

    fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }
}

/// An OS error of `syscall` on `path` (and `dest`), as Node reports it.
pub(in crate::node) fn node_error(
    e: std::io::Error,
    syscall: &'static str,
    path: &str,
    dest: Option<&str>,
) -> JsErrorBox {
    let (code, text) = crate::node::uv(&e);
    let text = if code == "EIO" {
        e.to_string()
    } else {
        text.to_string()
    };
    let arrow = dest.map(|d| format!(" -> '{d}'")).unwrap_or_default();
    JsErrorBox::from_err(FsError {
        class: "Error",
        message: format!("{code}: {text}, {syscall} '{path}'{arrow}"),
        code,
        errno: Some(-e.raw_os_error().unwrap_or(libc::EIO)),
        syscall: Some(syscall),
        path: Some(path.to_string()),
        dest: dest.map(str::to_string),
    })
}

/// An OS error of a syscall on an open file, which Node reports without a path.
pub(super) fn syscall_error(e: std::io::Error, syscall: &'static str) -> JsErrorBox {
    let (code, text) = crate::node::uv(&e);
    JsErrorBox::from_err(FsError {
        class: "Error",
        message: format!("{code}: {text}, {syscall}"),
        code,
        errno: Some(-e.raw_os_error().unwrap_or(libc::EIO)),
        syscall: Some(syscall),
        path: None,
        dest: None,
    })
}

/// `node_error` for an error the op finds itself (`errno` from libc).
pub(super) fn os_error(
    errno: i32,
    syscall: &'static str,
    path: &str,
    dest: Option<&str>,
) -> JsErrorBox {
    node_error(
        std::io::Error::from_raw_os_error(errno),
        syscall,
        path,
        dest,
    )
}

/// A `RangeError` with one of Node's `ERR_*` codes.
pub(super) fn range_error(code: &'static str, message: String) -> JsErrorBox {
    JsErrorBox::from_err(FsError {
        class: "RangeError",
        message,
        code,
        errno: None,
        syscall: None,
        path: None,
        dest: None,
    })
}

/// Node's `ERR_FS_FILE_TOO_LARGE`, with the plugin's limit in place of Node's 2 GiB.
/// `at_least`: the size is not known (a device, a FIFO, a /proc file), only that more than the
/// limit was there.
pub(super) fn too_large(size: u64, at_least: bool, room: &HeapRoom, parts: usize) -> JsErrorBox {
    let size = if at_least {
        format!("at least {size}")
    } else {
        size.to_string()
    };
    range_error(
        "ERR_FS_FILE_TOO_LARGE",
        format!(
            "File size ({size}) is greater than {}",
            room.describe(parts)
        ),
    )
}
