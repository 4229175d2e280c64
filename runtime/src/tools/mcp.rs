//! Plugin tools over MCP: each agent's tools are an MCP server (Streamable HTTP, via the official
//! `rmcp` SDK) at `/agents/<agentId>/mcp` on a loopback address, so the agent's provider reaches
//! them like any other MCP server. Listing reads `AgentToolbox::agent_tools` on every request (the
//! catalogue changes at each session open); calls go through `AgentToolbox::call_tool`, and the MCP
//! request's cancellation (a `notifications/cancelled`, the session or connection closing) aborts
//! the plugin's `signal`.
//!
//! Plugin tools run plugin code with the embedder's rights, so only the agent gets in. The
//! embedder calls [`McpServer::grant`] when it attaches an agent's tools and hands the returned
//! [`AgentSecret`] to that agent's provider as an `Authorization: Bearer …` header in the MCP
//! server entry (never in the URL, which ends up in logs); [`McpServer::revoke`] when the agent
//! closes. Every request is checked before rmcp sees it and before anything is kept for it: an
//! `Origin` or `Host` that is not loopback is 403, an agent without a grant 404, a missing or
//! wrong secret 401 (compared in constant time). [`McpLimits`] bounds what a client can hold.

use std::cell::Cell;
use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::Stream;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{
    HeaderMap, HeaderValue, AUTHORIZATION, CONTENT_TYPE, HOST, ORIGIN, WWW_AUTHENTICATE,
};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientJsonRpcMessage, ContentBlock,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    ServerJsonRpcMessage, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::transport::WorkerTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::AgentToolbox;
use super::{ToolError, ToolInfo, ToolResult, TOOL_TIMEOUT};

pub const SERVER_NAME: &str = "paseo-plugin-tools";

/// What `agent show` and other views print instead of an agent's `Authorization` header.
pub const REDACTED_AUTHORIZATION: &str = "Bearer <redacted>";

/// Limits on what clients of the MCP endpoint can hold, each enforced where the input enters.
/// Over a limit the client gets a 503 whose JSON-RPC error names the limit.
#[derive(Debug, Clone)]
pub struct McpLimits {
    /// Open MCP sessions per agent (default 16).
    pub sessions_per_agent: usize,
    /// Open MCP sessions over all agents (default 256).
    pub sessions_total: usize,
    /// A session with no call running is closed after this long without a request (default
    /// 5 min); a running call keeps its session open for as long as it runs (up to 10 min).
    pub session_idle: Duration,
    /// Concurrent TCP connections (default 256); one over it is answered 503 and closed at once.
    pub connections: usize,
    /// Longest wait for a request's headers, and for the next request on an idle keep-alive
    /// connection (default 10 s): a client that sends half a header is disconnected.
    pub header_timeout: Duration,
}

impl Default for McpLimits {
    fn default() -> Self {
        McpLimits {
            sessions_per_agent: 16,
            sessions_total: 256,
            session_idle: Duration::from_secs(5 * 60),
            connections: 256,
            header_timeout: Duration::from_secs(10),
        }
    }
}

/// Pause after a failed `accept` (out of descriptors, say) before the next, instead of spinning.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(200);

/// An agent's credential for its MCP endpoint: 256 bits from the OS CSPRNG, hex-encoded. Its
/// `Debug` is redacted and it has neither `Display` nor `Serialize`, so it cannot slip into a log
/// line or a serialized view by accident; [`AgentSecret::expose`] is the one way to read it.
#[derive(Clone)]
pub struct AgentSecret(Arc<str>);

impl AgentSecret {
    fn generate() -> std::io::Result<AgentSecret> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| {
            std::io::Error::other(format!("The OS random number generator failed: {e}"))
        })?;
        Ok(AgentSecret(
            bytes
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
                .into(),
        ))
    }

    /// The token itself, for the provider's MCP configuration only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The `Authorization` header value the agent's MCP client sends.
    pub fn authorization(&self) -> String {
        format!("Bearer {}", self.0)
    }

    /// Constant-time: how much of a guess matches must not show in the answer's timing.
    fn matches(&self, token: &[u8]) -> bool {
        let secret = self.0.as_bytes();
        if token.len() != secret.len() {
            return false;
        }
        let diff = secret
            .iter()
            .zip(token)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(diff) == 0
    }
}

impl std::fmt::Debug for AgentSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AgentSecret(<redacted>)")
    }
}

/// The MCP server behind one agent's URL; rmcp builds one per session (or per stateless request).
#[derive(Clone)]
struct AgentTools {
    host: Arc<dyn AgentToolbox>,
    agent_id: Arc<str>,
    sessions: Arc<AgentSessions>,
}

impl ServerHandler for AgentTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
    }

    // rmcp fills in cache hints of ttl 0 / private, so clients do not keep a stale list.
    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.host
                .agent_tools(&self.agent_id)
                .into_iter()
                .map(mcp_tool)
                .collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.host
            .agent_tools(&self.agent_id)
            .into_iter()
            .find(|t| t.name == name)
            .map(mcp_tool)
    }

    /// Unknown tools are a JSON-RPC "invalid params" error (as the MCP spec shows for them);
    /// everything the tool itself reports, input validation included, is an `isError` result.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let input = Value::Object(request.arguments.unwrap_or_default());
        let session = context
            .extensions
            .get::<Parts>()
            .and_then(|p| p.headers.get(SESSION_HEADER)?.to_str().ok());
        let call = self.sessions.enter(session);
        let cancel = async {
            tokio::select! {
                _ = context.ct.cancelled() => {}
                _ = call.token.cancelled() => {}
            }
        };
        match self
            .host
            .call_tool(&self.agent_id, &request.name, input, Box::pin(cancel))
            .await
        {
            Ok(result) => Ok(mcp_result(result).into()),
            Err(e @ ToolError::UnknownTool { .. }) => {
                Err(ErrorData::invalid_params(e.to_string(), None))
            }
            // rmcp sends nothing for a request it was told to cancel; this only reaches a peer
            // whose connection closed.
            Err(e @ ToolError::Cancelled) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }
}

fn mcp_tool(info: ToolInfo) -> Tool {
    // MCP requires an object schema; zod's converter always gives one.
    let schema = match info.input_schema {
        Value::Object(schema) => schema,
        _ => serde_json::Map::from_iter([("type".to_string(), Value::from("object"))]),
    };
    let mut tool = Tool::new(info.name, info.description, schema);
    tool.title = info.title;
    tool
}

fn mcp_result(result: ToolResult) -> CallToolResult {
    let mut out =
        CallToolResult::success(result.text.into_iter().map(ContentBlock::text).collect());
    out.structured_content = result.structured_content;
    out.is_error = Some(result.is_error);
    out
}

const SESSION_HEADER: &str = "mcp-session-id";

/// Which session limit refused a new session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SessionLimit {
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
enum SessionsError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    #[error("{0}")]
    Limit(SessionLimit),
}

tokio::task_local! {
    /// Set by `create_session` when a limit refused it, so that the request answers 503 with the
    /// limit's name rather than rmcp's generic 500.
    static REFUSED: Cell<Option<SessionLimit>>;
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
struct AgentSessions {
    inner: LocalSessionManager,
    limits: Arc<McpLimits>,
    /// Sessions over all agents.
    total: Arc<AtomicUsize>,
    /// The grant's token: revoking the grant cancels every call of the agent.
    revoked: CancellationToken,
    table: Mutex<SessionTable>,
}

struct CallGuard<'a> {
    sessions: &'a AgentSessions,
    session: Option<SessionId>,
    token: CancellationToken,
}

impl AgentSessions {
    fn new(
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

    fn knows(&self, id: &str) -> bool {
        self.table.lock().unwrap().open.contains_key(id)
    }

    fn enter(&self, session: Option<&str>) -> CallGuard<'_> {
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

type AgentService = StreamableHttpService<AgentTools, AgentSessions>;

/// An agent's admission: its secret, and the service (sessions, calls) that exists only while
/// the grant does, so that requests for other paths create nothing.
struct Grant {
    secret: AgentSecret,
    service: AgentService,
    sessions: Arc<AgentSessions>,
    /// Cancels the agent's sessions, their streams and its calls.
    revoked: CancellationToken,
}

struct Shared {
    host: Arc<dyn AgentToolbox>,
    config: StreamableHttpServerConfig,
    limits: Arc<McpLimits>,
    bound: IpAddr,
    grants: Mutex<HashMap<String, Arc<Grant>>>,
    total_sessions: Arc<AtomicUsize>,
    connections: Arc<Semaphore>,
}

type HttpBody = BoxBody<Bytes, Infallible>;

/// A refusal with a JSON-RPC error body (MCP clients show its message).
fn refuse(status: StatusCode, code: i32, message: &str) -> Response<HttpBody> {
    let body =
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message } })
            .to_string();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn unauthorized(message: &str, challenge: &'static str) -> Response<HttpBody> {
    let mut response = refuse(StatusCode::UNAUTHORIZED, -32000, message);
    response
        .headers_mut()
        .insert(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
}

/// `/agents/<agentId>/mcp`, with the id percent-decoded; `None` for any other path.
fn agent_of(path: &str) -> Option<String> {
    let segment = path.strip_prefix("/agents/")?.strip_suffix("/mcp")?;
    if segment.is_empty() || segment.contains('/') {
        return None;
    }
    percent_decode(segment)
}

/// `host[:port]` names this machine's loopback: `127.0.0.1`, `localhost`, `[::1]` or the bound IP.
fn loopback_authority(authority: &str, bound: IpAddr) -> bool {
    let authority = authority.to_ascii_lowercase();
    let bound = match bound {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    };
    ["127.0.0.1", "localhost", "[::1]", bound.as_str()]
        .iter()
        .any(|host| match authority.strip_prefix(host) {
            Some("") => true,
            Some(port) => port.strip_prefix(':').is_some_and(|p| {
                (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())
            }),
            None => false,
        })
}

/// The MCP specification asks servers to validate `Origin` against DNS rebinding: a page in a
/// browser can reach loopback, but its origin is its own.
fn foreign_origin(headers: &HeaderMap, bound: IpAddr) -> bool {
    headers.get_all(ORIGIN).iter().any(|origin| {
        let origin = origin.to_str().unwrap_or_default();
        !origin
            .strip_prefix("http://")
            .is_some_and(|authority| loopback_authority(authority, bound))
    })
}

fn foreign_host(headers: &HeaderMap, bound: IpAddr) -> bool {
    headers
        .get(HOST)
        .is_some_and(|host| !loopback_authority(host.to_str().unwrap_or_default(), bound))
}

/// The token of `Authorization: Bearer <token>`.
fn bearer_token(headers: &HeaderMap) -> Option<&[u8]> {
    let value = headers.get(AUTHORIZATION)?.as_bytes();
    let space = value.iter().position(|b| *b == b' ')?;
    let (scheme, token) = value.split_at(space);
    scheme
        .eq_ignore_ascii_case(b"Bearer")
        .then(|| token.trim_ascii())
}

async fn serve(shared: Arc<Shared>, request: Request<Incoming>) -> Response<HttpBody> {
    // Nothing is kept for a request refused here: grants are made by the embedder only.
    let headers = request.headers();
    if foreign_origin(headers, shared.bound) {
        return refuse(
            StatusCode::FORBIDDEN,
            -32000,
            "Forbidden: the Origin header is not a loopback origin",
        );
    }
    if foreign_host(headers, shared.bound) {
        return refuse(
            StatusCode::FORBIDDEN,
            -32000,
            "Forbidden: the Host header is not a loopback address",
        );
    }
    let Some(agent_id) = agent_of(request.uri().path()) else {
        return refuse(
            StatusCode::NOT_FOUND,
            -32000,
            "Not Found: MCP endpoints are at /agents/<agentId>/mcp",
        );
    };
    let Some(grant) = shared.grants.lock().unwrap().get(&agent_id).cloned() else {
        return refuse(
            StatusCode::NOT_FOUND,
            -32000,
            "Not Found: no open agent session serves plugin tools at this path",
        );
    };
    match bearer_token(headers) {
        None => return unauthorized(
            "Unauthorized: this agent's MCP endpoint needs its Authorization: Bearer credential",
            "Bearer",
        ),
        Some(token) if !grant.secret.matches(token) => {
            return unauthorized(
                "Unauthorized: the bearer credential is not valid for this agent",
                "Bearer error=\"invalid_token\"",
            );
        }
        Some(_) => {}
    }
    if request.method() == Method::DELETE {
        return delete_session(&grant, request.headers()).await;
    }
    let (response, refused) = REFUSED
        .scope(Cell::new(None), async {
            let response = grant.service.handle(request).await;
            (response, REFUSED.with(Cell::get))
        })
        .await;
    match refused {
        Some(limit) => refuse(StatusCode::SERVICE_UNAVAILABLE, -32000, &limit.to_string()),
        None => response,
    }
}

/// The client ends its session. The MCP specification answers an unknown session 404; a
/// closed one gets 200 (some clients treat rmcp's 202 as a failure).
async fn delete_session(grant: &Grant, headers: &HeaderMap) -> Response<HttpBody> {
    let Some(session) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            -32000,
            "Bad Request: DELETE needs an Mcp-Session-Id header",
        );
    };
    if !grant.sessions.knows(session) {
        return refuse(StatusCode::NOT_FOUND, -32001, "Session not found");
    }
    let _ = grant
        .sessions
        .close_session(&SessionId::from(session))
        .await;
    Response::new(Full::new(Bytes::new()).boxed())
}

/// What the server holds at a moment, for monitoring (and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpStats {
    /// Agents with a grant (each has a service and a session table).
    pub agents: usize,
    /// Open MCP sessions over all agents (the count `sessions_total` limits), revoked
    /// agents' sessions included until they have closed.
    pub sessions: usize,
    /// Open TCP connections.
    pub connections: usize,
}

/// The MCP endpoint for every agent's plugin tools.
pub struct McpServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// Cancels on drop: a server dropped without `shutdown` stops as well.
    stop: DropGuard,
    task: tokio::task::JoinHandle<()>,
}

impl McpServer {
    /// Binds `addr` (loopback, port 0 allowed) and serves the plugin tools of every agent with a
    /// grant at `/agents/<agentId>/mcp`, with the default [`McpLimits`].
    pub async fn start(
        host: Arc<dyn AgentToolbox>,
        addr: SocketAddr,
    ) -> std::io::Result<McpServer> {
        McpServer::start_with(host, addr, McpLimits::default()).await
    }

    /// [`McpServer::start`] with other limits (tests use small ones).
    pub async fn start_with(
        host: Arc<dyn AgentToolbox>,
        addr: SocketAddr,
        limits: McpLimits,
    ) -> std::io::Result<McpServer> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let stop = CancellationToken::new();
        let mut config =
            StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
        // rmcp accepts only loopback `Host` names by default; also accept the address bound.
        config.allowed_hosts.push(addr.ip().to_string());
        let shared = Arc::new(Shared {
            host,
            config,
            connections: Arc::new(Semaphore::new(limits.connections)),
            limits: Arc::new(limits),
            bound: addr.ip(),
            grants: Mutex::default(),
            total_sessions: Arc::default(),
        });
        let task = tokio::spawn({
            let (shared, stop) = (shared.clone(), stop.clone());
            async move {
                tokio::join!(
                    accept_connections(listener, shared.clone(), stop.clone()),
                    expire_idle_sessions(shared, stop)
                );
            }
        });
        Ok(McpServer {
            addr,
            shared,
            stop: stop.drop_guard(),
            task,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL an agent's provider (or any MCP client) uses for that agent's tools.
    pub fn agent_url(&self, agent_id: &str) -> String {
        format!(
            "http://{}/agents/{}/mcp",
            self.addr,
            percent_encode(agent_id)
        )
    }

    /// Admits an agent: from now on its URL answers requests that carry the returned secret as
    /// `Authorization: Bearer <secret>`, and nothing else. Call it whenever the agent's tools are
    /// attached (each session open); a new grant replaces the old one at once: the old secret
    /// stops working and the sessions opened with it close, their calls cancelled.
    pub fn grant(&self, agent_id: &str) -> std::io::Result<AgentSecret> {
        let secret = AgentSecret::generate()?;
        let revoked = self.shared.config.cancellation_token.child_token();
        let sessions = Arc::new(AgentSessions::new(
            self.shared.limits.clone(),
            self.shared.total_sessions.clone(),
            revoked.clone(),
        ));
        let tools = AgentTools {
            host: self.shared.host.clone(),
            agent_id: agent_id.into(),
            sessions: sessions.clone(),
        };
        // rmcp ties each session and stream to this token: revoking ends them.
        let config = self
            .shared
            .config
            .clone()
            .with_cancellation_token(revoked.clone());
        let service =
            StreamableHttpService::new(move || Ok(tools.clone()), sessions.clone(), config);
        let grant = Arc::new(Grant {
            secret: secret.clone(),
            service,
            sessions,
            revoked,
        });
        if let Some(old) = self
            .shared
            .grants
            .lock()
            .unwrap()
            .insert(agent_id.to_string(), grant)
        {
            old.revoked.cancel();
        }
        Ok(secret)
    }

    /// The agent closed (or lost its tools): its URL answers 404 from now on, its secret is
    /// forgotten, and its sessions close with their calls cancelled.
    pub fn revoke(&self, agent_id: &str) {
        if let Some(grant) = self.shared.grants.lock().unwrap().remove(agent_id) {
            grant.revoked.cancel();
        }
    }

    /// What the server holds now: grants, sessions, connections.
    pub fn stats(&self) -> McpStats {
        let grants = self.shared.grants.lock().unwrap();
        McpStats {
            agents: grants.len(),
            sessions: self.shared.total_sessions.load(Ordering::SeqCst),
            connections: self.shared.limits.connections
                - self.shared.connections.available_permits(),
        }
    }

    /// Ends every session (in-flight calls are cancelled) and stops listening.
    pub async fn shutdown(self) {
        let McpServer { stop, mut task, .. } = self;
        drop(stop);
        // Graceful shutdown waits for open connections; a client that keeps one open idle
        // must not hold the daemon up.
        if tokio::time::timeout(Duration::from_secs(5), &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
    }
}

/// The accept loop: at most `limits.connections` connections, each served by hyper with a
/// header-read timeout (axum's `serve` cannot set one).
async fn accept_connections(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let mut failing = false;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.cancelled() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) =>
            {
                continue
            }
            Err(e) => {
                if !failing {
                    tracing::warn!("MCP server cannot accept connections: {e}");
                }
                failing = true;
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        failing = false;
        let Ok(permit) = shared.connections.clone().try_acquire_owned() else {
            refuse_connection(stream, shared.limits.connections);
            continue;
        };
        let (shared, stop) = (shared.clone(), stop.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(shared.limits.header_timeout);
            let service = hyper::service::service_fn(move |request| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(serve(shared, request).await) }
            });
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(permit);
        });
    }
    // Stop listening, then let the connections finish (`shutdown` waits up to 5 s for this).
    drop(listener);
    let _ = shared
        .connections
        .acquire_many(shared.limits.connections as u32)
        .await;
}

/// Over the connection limit: a 503 written without waiting (the socket is fresh, so its send
/// buffer is empty), then the connection closes, so that it holds no descriptor.
fn refuse_connection(stream: tokio::net::TcpStream, limit: usize) {
    use std::io::Write;
    let body = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32000, "message": format!("Too many connections to the MCP server (limit {limit})") } }).to_string();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    if let Ok(mut stream) = stream.into_std() {
        let _ = stream.write(response.as_bytes());
    }
}

async fn expire_idle_sessions(shared: Arc<Shared>, stop: CancellationToken) {
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

/// Agent ids are opaque: anything outside RFC 3986's unreserved set is escaped.
fn percent_encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn percent_decode(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
