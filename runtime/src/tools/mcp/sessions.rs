//! An agent's MCP sessions: rmcp's session manager wrapped with the caps (per agent, in all),
//! each session's activity (running calls, last request), the cancellation of its calls when it
//! closes, and the idle expiry the server runs in the background.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::WorkerTransport;
use tokio_util::sync::CancellationToken;

use super::{Grant, McpLimits, Shared};
use crate::tools::TOOL_TIMEOUT;

pub(super) const SESSION_HEADER: &str = "mcp-session-id";

/// Which session limit refused a new session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SessionLimit {
    PerAgent(usize),
    Total(usize),
}

impl std::fmt::Display for SessionLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionLimit::PerAgent(n) => write!(f, "Too many MCP sessions for this agent (limit {n} per agent); close one (DELETE) or let an idle one expire"),
            SessionLimit::Total(n) => write!(f, "Too many MCP sessions on this server (limit {n} in all); close one (DELETE) or let an idle one expire"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub(super) enum SessionsError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    #[error("{0}")]
    Limit(SessionLimit),
}

tokio::task_local! {
    /// Set by `create_session` when a limit refused it, so that the request answers 503 with the
    /// limit's name rather than rmcp's generic 500.
    pub(super) static REFUSED: Cell<Option<SessionLimit>>;
}

/// A session's activity: idle expiry skips sessions with a call running.
struct Activity {
    last_active: Instant,
    running: usize,
    /// Cancels the session's calls at once when it closes: rmcp lets handlers run on for up to
    /// 5 s (2 s on shutdown) after their session ends before it cancels them.
    calls: CancellationToken,
}

#[derive(Default)]
struct SessionTable {
    open: HashMap<SessionId, Activity>,
    /// Sessions being created (counted against the limits already).
    pending: usize,
}

/// One agent's MCP sessions: rmcp's session manager, with the limits and the activity tracking
/// around it. rmcp closes every session through `close_session` (DELETE, idle expiry, the
/// session's worker ending), so the table and the counts stay exact.
pub(super) struct AgentSessions {
    inner: LocalSessionManager,
    limits: Arc<McpLimits>,
    /// Sessions over all agents.
    total: Arc<AtomicUsize>,
    /// The grant's token: revoking the grant cancels every call of the agent.
    revoked: CancellationToken,
    table: Mutex<SessionTable>,
}

pub(super) struct CallGuard<'a> {
    sessions: &'a AgentSessions,
    session: Option<SessionId>,
    pub(super) token: CancellationToken,
}

impl AgentSessions {
    pub(super) fn new(
        limits: Arc<McpLimits>,
        total: Arc<AtomicUsize>,
        revoked: CancellationToken,
    ) -> AgentSessions {
        let mut inner = LocalSessionManager::default();
        // Idle expiry is ours (it knows about running calls); rmcp's own only catches a session
        // whose worker outlived everything, and a call may run for TOOL_TIMEOUT.
        inner.session_config.keep_alive = Some(TOOL_TIMEOUT + Duration::from_secs(60));
        AgentSessions {
            inner,
            limits,
            total,
            revoked,
            table: Mutex::default(),
        }
    }

    fn reserve(&self) -> Result<(), SessionLimit> {
        let mut table = self.table.lock().unwrap();
        if table.open.len() + table.pending >= self.limits.sessions_per_agent {
            return Err(SessionLimit::PerAgent(self.limits.sessions_per_agent));
        }
        let max = self.limits.sessions_total;
        self.total
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| SessionLimit::Total(max))?;
        table.pending += 1;
        Ok(())
    }

    fn touch(&self, id: &SessionId) {
        if let Some(activity) = self.table.lock().unwrap().open.get_mut(id) {
            activity.last_active = Instant::now();
        }
    }

    /// Drops the session from the table and cancels its calls; false if it was not there.
    fn forget(&self, id: &SessionId) -> bool {
        let Some(activity) = self.table.lock().unwrap().open.remove(id) else {
            return false;
        };
        activity.calls.cancel();
        self.total.fetch_sub(1, Ordering::SeqCst);
        true
    }

    pub(super) fn knows(&self, id: &str) -> bool {
        self.table.lock().unwrap().open.contains_key(id)
    }

    pub(super) fn enter(&self, session: Option<&str>) -> CallGuard<'_> {
        // Stateless requests end with their HTTP exchange; rmcp cancels those itself.
        let stateless = CallGuard {
            sessions: self,
            session: None,
            token: self.revoked.clone(),
        };
        let Some(id) = session.map(SessionId::from) else {
            return stateless;
        };
        let mut table = self.table.lock().unwrap();
        let Some(activity) = table.open.get_mut(&id) else {
            return stateless;
        };
        activity.running += 1;
        activity.last_active = Instant::now();
        CallGuard {
            sessions: self,
            token: activity.calls.clone(),
            session: Some(id),
        }
    }

    /// Closes the sessions that had no call running and no request for `session_idle`.
    async fn expire_idle(&self) {
        let idle = self.limits.session_idle;
        let expired: Vec<SessionId> = {
            let table = self.table.lock().unwrap();
            table
                .open
                .iter()
                .filter(|(_, a)| a.running == 0 && a.last_active.elapsed() >= idle)
                .map(|(id, _)| id.clone())
                .collect()
        };
        for id in expired {
            let _ = self.close_session(&id).await;
        }
    }
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        let Some(session) = &self.session else { return };
        if let Some(activity) = self.sessions.table.lock().unwrap().open.get_mut(session) {
            activity.running -= 1;
            // Idle time counts from the end of the last call.
            activity.last_active = Instant::now();
        }
    }
}

impl SessionManager for AgentSessions {
    type Error = SessionsError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), SessionsError> {
        if let Err(limit) = self.reserve() {
            let _ = REFUSED.try_with(|refused| refused.set(Some(limit)));
            return Err(SessionsError::Limit(limit));
        }
        let created = self.inner.create_session().await;
        let mut table = self.table.lock().unwrap();
        table.pending -= 1;
        match created {
            Ok((id, transport)) => {
                let activity = Activity {
                    last_active: Instant::now(),
                    running: 0,
                    calls: self.revoked.child_token(),
                };
                table.open.insert(id.clone(), activity);
                Ok((id, transport))
            }
            Err(e) => {
                self.total.fetch_sub(1, Ordering::SeqCst);
                Err(e.into())
            }
        }
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, SessionsError> {
        self.touch(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, SessionsError> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), SessionsError> {
        self.forget(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        self.touch(id);
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionsError> {
        self.touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        self.touch(id);
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, SessionsError> {
        self.touch(id);
        Ok(self.inner.resume(id, last_event_id).await?)
    }
    // `restore_session` keeps its default (not supported): restoring would bypass the limits.
}

pub(super) async fn expire_idle_sessions(shared: Arc<Shared>, stop: CancellationToken) {
    let tick =
        (shared.limits.session_idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(30));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(tick) => {}
            _ = stop.cancelled() => return,
        }
        let grants: Vec<Arc<Grant>> = shared.grants.lock().unwrap().values().cloned().collect();
        for grant in grants {
            grant.sessions.expire_idle().await;
        }
    }
}
