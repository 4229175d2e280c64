//! `fs.watch` (and `fs.promises.watch`) on the notify crate. js/node/fs_watch.js makes the
//! `FSWatcher`s; this side keeps, per isolate, one notify watcher (one inotify instance and
//! one thread, made on the first watch and dropped with the last), however many `FSWatcher`s
//! the plugin has: inotify instances are few per user (128 by default) and shared by every
//! plugin of the daemon. Each `FSWatcher` is a [`Route`]: its path, `recursive`, and a queue of
//! `(eventType, filename)` that `op_fs_watch_next` hands to JS.
//!
//! Events are Node's on Linux (libuv's inotify backend): a name created, deleted or moved is
//! `rename`, data or metadata changed is `change`; the file name is relative to the watched
//! directory (`sub/file` with `recursive`), or the watched file's own name.
//!
//! Nothing outlives the isolate: the watcher lives in its `OpState` and its thread ends when it
//! is dropped; the thread only ever touches the queues, never the isolate, and a queue that is
//! closed (`close()`, or the isolate ending) takes nothing more, so a watcher never delivers an
//! event after `close()`.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use deno_core::{op2, OpState};
use deno_error::JsErrorBox;
use notify::event::{ModifyKind, RenameMode};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::fs::node_error;

/// Events a watcher holds for JS at most. Bounded two ways: an event the same as the last one
/// still waiting is dropped (as inotify itself coalesces identical events not yet read), and
/// past this many waiting, new events are dropped until JS catches up (as inotify drops them
/// when its own queue overflows; Node reports neither).
const MAX_PENDING: usize = 1024;

/// What one `FSWatcher` has seen and JS has not taken yet.
#[derive(Default)]
struct Pending {
    events: VecDeque<(&'static str, String)>,
    closed: bool,
}

#[derive(Default)]
struct Queue {
    pending: Mutex<Pending>,
    wake: tokio::sync::Notify,
}

impl Queue {
    fn push(&self, event_type: &'static str, filename: String) {
        let mut pending = self.pending.lock().unwrap();
        let event = (event_type, filename);
        if pending.closed
            || pending.events.len() >= MAX_PENDING
            || pending.events.back() == Some(&event)
        {
            return;
        }
        pending.events.push_back(event);
        drop(pending);
        self.wake.notify_one();
    }

    fn close(&self) {
        let mut pending = self.pending.lock().unwrap();
        pending.closed = true;
        pending.events.clear();
        drop(pending);
        self.wake.notify_one();
    }
}

/// One `FSWatcher`: what it watches and where its events go.
struct Route {
    root: PathBuf,
    recursive: bool,
    is_dir: bool,
    queue: Arc<Queue>,
}

impl Route {
    /// The file name Node reports for an event on `path`, if this watcher sees it.
    fn filename(&self, path: &Path) -> Option<String> {
        let own_name = || {
            self.root
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        };
        if path == self.root {
            return Some(own_name());
        }
        if !self.is_dir {
            return None;
        }
        let relative = path.strip_prefix(&self.root).ok()?;
        if !self.recursive && relative.components().count() != 1 {
            return None;
        }
        Some(relative.to_string_lossy().into_owned())
    }
}

type Routes = Arc<Mutex<HashMap<u32, Route>>>;

/// Node's event type for a notify event; `None` for what libuv does not report (opens and
/// closes, notify's own rescans, and the paired rename whose two halves came already).
fn node_event_type(kind: &EventKind) -> Option<&'static str> {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => Some("rename"),
        EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => None,
        EventKind::Modify(ModifyKind::Name(_)) => Some("rename"),
        EventKind::Modify(_) => Some("change"),
        EventKind::Access(_) | EventKind::Any | EventKind::Other => None,
    }
}

/// The isolate's watching: the notify watcher while any `FSWatcher` is open, the routes its
/// thread delivers to, and what notify is told to watch (path → recursive).
#[derive(Default)]
struct Hub {
    watcher: Option<RecommendedWatcher>,
    routes: Routes,
    watched: HashMap<PathBuf, bool>,
    next_id: u32,
}

impl Drop for Hub {
    fn drop(&mut self) {
        // The isolate is ending: its queues take nothing more, even while notify's thread
        // (told to stop as the watcher drops) finishes the events it was handing out.
        for route in self.routes.lock().unwrap().values() {
            route.queue.close();
        }
        self.watcher = None;
    }
}

impl Hub {
    fn new_watcher(&self) -> notify::Result<RecommendedWatcher> {
        let routes = self.routes.clone();
        notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
            // Errors (a recursive watch past the inotify limit) are not reported: the
            // watchers go on with what they have, as Node's recursive watch on Linux does.
            let Ok(event) = result else { return };
            let Some(event_type) = node_event_type(&event.kind) else {
                return;
            };
            let routes = routes.lock().unwrap();
            for path in &event.paths {
                for route in routes.values() {
                    if let Some(filename) = route.filename(path) {
                        route.queue.push(event_type, filename);
                    }
                }
            }
        })
    }

    /// Tells notify what the routes need: each root not inside a recursive one, recursive if
    /// any route on it is. Watches no longer needed (or changing mode) go first, since notify
    /// unwatching a recursive root drops everything under it. Only an error watching `wanted`
    /// (the path just asked for) is returned; others (a path gone since) leave its watcher
    /// without events, as a deleted directory does in Node.
    fn sync(&mut self, wanted: Option<&Path>) -> notify::Result<()> {
        let want: HashMap<PathBuf, bool> = {
            let routes = self.routes.lock().unwrap();
            let mut want = HashMap::new();
            for route in routes.values() {
                let covered = routes.values().any(|other| {
                    other.recursive
                        && other.root != route.root
                        && route.root.starts_with(&other.root)
                });
                if !covered {
                    *want.entry(route.root.clone()).or_insert(false) |= route.recursive;
                }
            }
            want
        };
        if want.is_empty() {
            self.watcher = None;
            self.watched.clear();
            return Ok(());
        }
        if self.watcher.is_none() {
            self.watcher = Some(self.new_watcher()?);
        }
        let watcher = self.watcher.as_mut().unwrap();
        let stale: Vec<PathBuf> = self
            .watched
            .iter()
            .filter(|(path, recursive)| want.get(*path) != Some(recursive))
            .map(|(path, _)| path.clone())
            .collect();
        for path in stale {
            let _ = watcher.unwatch(&path);
            self.watched.remove(&path);
        }
        let mut result = Ok(());
        for (path, recursive) in want {
            if self.watched.contains_key(&path) {
                continue;
            }
            let mode = if recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            match watcher.watch(&path, mode) {
                Ok(()) => {
                    self.watched.insert(path, recursive);
                }
                Err(e) if wanted == Some(path.as_path()) => result = Err(e),
                Err(_) => {}
            }
        }
        result
    }
}

fn hub(state: &mut OpState) -> &mut Hub {
    if !state.has::<Hub>() {
        state.put(Hub::default());
    }
    state.borrow_mut::<Hub>()
}

/// The error of a watch notify refused, as Node's (`ENOSPC: System limit for number of file
/// watchers reached, watch '/x'` when inotify's limit is reached).
fn watch_error(e: notify::Error, path: &str) -> JsErrorBox {
    match e.kind {
        notify::ErrorKind::Io(io) => node_error(io, "watch", path, None),
        notify::ErrorKind::PathNotFound => node_error(
            std::io::Error::from_raw_os_error(libc::ENOENT),
            "watch",
            path,
            None,
        ),
        notify::ErrorKind::MaxFilesWatch => JsErrorBox::from_err(super::fs::FsError::new(
            "ENOSPC",
            format!("ENOSPC: System limit for number of file watchers reached, watch '{path}'"),
            libc::ENOSPC,
            "watch",
            path,
        )),
        other => JsErrorBox::generic(format!("watch '{path}': {other:?}")),
    }
}

/// Starts watching `path`; returns the watcher's id. A missing path fails as Node's
/// (`ENOENT: no such file or directory, watch '/x'`).
#[op2(fast)]
pub fn op_fs_watch(
    state: &mut OpState,
    #[string] path: &str,
    recursive: bool,
) -> Result<u32, JsErrorBox> {
    super::permission::read(state, path)?;
    let md = std::fs::metadata(path).map_err(|e| node_error(e, "watch", path, None))?;
    let root = std::path::absolute(path).map_err(|e| node_error(e, "watch", path, None))?;
    let hub = hub(state);
    hub.next_id += 1;
    let id = hub.next_id;
    hub.routes.lock().unwrap().insert(
        id,
        Route {
            root: root.clone(),
            recursive: recursive && md.is_dir(),
            is_dir: md.is_dir(),
            queue: Arc::default(),
        },
    );
    if let Err(e) = hub.sync(Some(&root)) {
        hub.routes.lock().unwrap().remove(&id);
        let _ = hub.sync(None);
        return Err(watch_error(e, path));
    }
    Ok(id)
}

/// The events seen since the last call, once there is one; `None` once the watcher is closed.
#[op2]
#[serde]
pub async fn op_fs_watch_next(
    state: Rc<RefCell<OpState>>,
    id: u32,
) -> Option<Vec<(&'static str, String)>> {
    let queue = {
        let state = state.borrow();
        let routes = state.try_borrow::<Hub>()?.routes.lock().unwrap();
        routes.get(&id)?.queue.clone()
    };
    loop {
        {
            let mut pending = queue.pending.lock().unwrap();
            if pending.closed {
                return None;
            }
            if !pending.events.is_empty() {
                return Some(pending.events.drain(..).collect());
            }
        }
        queue.wake.notified().await;
    }
}

/// Stops a watcher: nothing more reaches it, and its pending `op_fs_watch_next` ends.
#[op2(fast)]
pub fn op_fs_watch_close(state: &mut OpState, id: u32) {
    let Some(hub) = state.try_borrow_mut::<Hub>() else {
        return;
    };
    let route = hub.routes.lock().unwrap().remove(&id);
    if let Some(route) = route {
        route.queue.close();
        let _ = hub.sync(None);
    }
}

deno_core::extension!(
    paseo_fs_watch,
    ops = [op_fs_watch, op_fs_watch_next, op_fs_watch_close],
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_events_are_coalesced_and_capped() {
        let queue = Queue::default();
        queue.push("change", "a".into());
        queue.push("change", "a".into());
        queue.push("rename", "a".into());
        queue.push("change", "a".into());
        let taken: Vec<_> = queue.pending.lock().unwrap().events.drain(..).collect();
        assert_eq!(
            taken,
            [
                ("change", "a".to_string()),
                ("rename", "a".to_string()),
                ("change", "a".to_string())
            ]
        );
        for i in 0..MAX_PENDING + 10 {
            queue.push("change", i.to_string());
        }
        assert_eq!(queue.pending.lock().unwrap().events.len(), MAX_PENDING);
        queue.close();
        queue.push("change", "late".into());
        assert!(queue.pending.lock().unwrap().events.is_empty());
    }

    #[test]
    fn file_names_are_nodes() {
        let route = |root: &str, recursive, is_dir| Route {
            root: root.into(),
            recursive,
            is_dir,
            queue: Arc::default(),
        };
        let dir = route("/w/d", false, true);
        assert_eq!(dir.filename(Path::new("/w/d/f")), Some("f".into()));
        assert_eq!(dir.filename(Path::new("/w/d")), Some("d".into()));
        assert_eq!(dir.filename(Path::new("/w/d/sub/f")), None);
        assert_eq!(dir.filename(Path::new("/w/dx/f")), None);
        let tree = route("/w/d", true, true);
        assert_eq!(tree.filename(Path::new("/w/d/sub/f")), Some("sub/f".into()));
        let file = route("/w/d/f", false, false);
        assert_eq!(file.filename(Path::new("/w/d/f")), Some("f".into()));
        assert_eq!(file.filename(Path::new("/w/d/g")), None);
    }
}
