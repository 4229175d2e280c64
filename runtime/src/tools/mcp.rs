//! Plugin tools over MCP: each agent's tools are an MCP server (Streamable HTTP, via the official
//! `rmcp` SDK) at `/agents/<agentId>/mcp` on a loopback address, so the agent's provider reaches
//! them like any other MCP server. Listing reads `PluginHost::agent_tools` on every request (the
//! catalogue changes at each session open); calls go through `PluginHost::call_tool`, and the MCP
//! request's cancellation (a `notifications/cancelled`, the session or connection closing) aborts
//! the plugin's `signal`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Request, State};
use axum::http::request::Parts;
use axum::http::Method;
use axum::response::Response;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{ToolError, ToolInfo, ToolResult, TOOL_TIMEOUT};
use crate::host::PluginHost;

pub const SERVER_NAME: &str = "paseo-plugin-tools";

/// The MCP server behind one agent's URL; rmcp builds one per session (or per stateless request).
#[derive(Clone)]
struct AgentTools {
    host: Arc<PluginHost>,
    agent_id: Arc<str>,
    calls: Arc<Calls>,
}

impl ServerHandler for AgentTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
    }

    // rmcp fills in cache hints of ttl 0 / private, so clients do not keep a stale list.
    async fn list_tools(&self, _: Option<PaginatedRequestParams>, _: RequestContext<RoleServer>) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.host.agent_tools(&self.agent_id).into_iter().map(mcp_tool).collect()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.host.agent_tools(&self.agent_id).into_iter().find(|t| t.name == name).map(mcp_tool)
    }

    /// Unknown tools are a JSON-RPC "invalid params" error (as the MCP spec shows for them);
    /// everything the tool itself reports, input validation included, is an `isError` result.
    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let input = Value::Object(request.arguments.unwrap_or_default());
        let session = context.extensions.get::<Parts>().and_then(|p| p.headers.get(SESSION_HEADER)?.to_str().ok());
        let call = self.calls.enter(session);
        let cancel = async {
            tokio::select! {
                _ = context.ct.cancelled() => {}
                _ = call.token.cancelled() => {}
            }
        };
        match self.host.call_tool(&self.agent_id, &request.name, input, cancel).await {
            Ok(result) => Ok(mcp_result(result).into()),
            Err(e @ ToolError::UnknownTool { .. }) => Err(ErrorData::invalid_params(e.to_string(), None)),
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
    let mut out = CallToolResult::success(result.text.into_iter().map(ContentBlock::text).collect());
    out.structured_content = result.structured_content;
    out.is_error = Some(result.is_error);
    out
}

const SESSION_HEADER: &str = "mcp-session-id";

/// One agent's calls running in each MCP session, so that the session's DELETE (the client closing)
/// or the server's shutdown cancels them at once: rmcp lets handlers run on for up to 5 s
/// (2 s on shutdown) after their session ends before it cancels them.
struct Calls {
    stop: CancellationToken,
    sessions: Mutex<HashMap<String, (CancellationToken, usize)>>,
}

struct CallGuard<'a> {
    calls: &'a Calls,
    session: Option<String>,
    token: CancellationToken,
}

impl Calls {
    fn enter(&self, session: Option<&str>) -> CallGuard<'_> {
        let Some(session) = session else {
            // Stateless requests end with their HTTP exchange; rmcp cancels those itself.
            return CallGuard { calls: self, session: None, token: self.stop.clone() };
        };
        let mut sessions = self.sessions.lock().unwrap();
        let entry = sessions.entry(session.to_string()).or_insert_with(|| (self.stop.child_token(), 0));
        entry.1 += 1;
        CallGuard { calls: self, session: Some(session.to_string()), token: entry.0.clone() }
    }

    fn close(&self, session: &str) {
        if let Some((token, _)) = self.sessions.lock().unwrap().remove(session) {
            token.cancel();
        }
    }
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        let Some(session) = &self.session else { return };
        let mut sessions = self.calls.sessions.lock().unwrap();
        if let Some(entry) = sessions.get_mut(session) {
            entry.1 -= 1;
            if entry.1 == 0 {
                sessions.remove(session);
            }
        }
    }
}

type AgentService = StreamableHttpService<AgentTools, LocalSessionManager>;

struct Shared {
    host: Arc<PluginHost>,
    config: StreamableHttpServerConfig,
    /// One service (session manager, calls) per agent, made on first use: a session opened at
    /// one agent's URL is unknown at another's.
    agents: Mutex<HashMap<String, (AgentService, Arc<Calls>)>>,
}

impl Shared {
    fn agent(&self, agent_id: &str) -> (AgentService, Arc<Calls>) {
        let mut agents = self.agents.lock().unwrap();
        if let Some(agent) = agents.get(agent_id) {
            return agent.clone();
        }
        let calls = Arc::new(Calls { stop: self.config.cancellation_token.clone(), sessions: Mutex::default() });
        let tools = AgentTools { host: self.host.clone(), agent_id: agent_id.into(), calls: calls.clone() };
        let mut sessions = LocalSessionManager::default();
        // A session is closed after this long without traffic; a call may run for TOOL_TIMEOUT.
        sessions.session_config.keep_alive = Some(TOOL_TIMEOUT + Duration::from_secs(60));
        let service = StreamableHttpService::new(move || Ok(tools.clone()), Arc::new(sessions), self.config.clone());
        agents.insert(agent_id.to_string(), (service.clone(), calls.clone()));
        (service, calls)
    }
}

async fn serve_agent(State(shared): State<Arc<Shared>>, Path(agent_id): Path<String>, request: Request) -> Response {
    let (service, calls) = shared.agent(&agent_id);
    if request.method() == Method::DELETE {
        if let Some(session) = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
            calls.close(session);
        }
    }
    service.handle(request).await.map(axum::body::Body::new)
}

/// The MCP endpoint for every agent's plugin tools.
pub struct McpServer {
    addr: SocketAddr,
    /// Cancels on drop: a server dropped without `shutdown` stops as well.
    stop: DropGuard,
    task: tokio::task::JoinHandle<()>,
}

impl McpServer {
    /// Binds `addr` (loopback, port 0 allowed) and serves every agent's plugin tools at
    /// `/agents/<agentId>/mcp`.
    pub async fn start(host: Arc<PluginHost>, addr: SocketAddr) -> std::io::Result<McpServer> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let stop = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token());
        // rmcp accepts only loopback `Host` names by default; also accept the address bound.
        config.allowed_hosts.push(addr.ip().to_string());
        let shared = Arc::new(Shared { host, config, agents: Mutex::default() });
        let router = axum::Router::new().route("/agents/{agent_id}/mcp", axum::routing::any(serve_agent)).with_state(shared);
        let shutdown = stop.clone();
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).with_graceful_shutdown(shutdown.cancelled_owned()).await {
                tracing::warn!("MCP server stopped: {e}");
            }
        });
        Ok(McpServer { addr, stop: stop.drop_guard(), task })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL an agent's provider (or any MCP client) uses for that agent's tools.
    pub fn agent_url(&self, agent_id: &str) -> String {
        format!("http://{}/agents/{}/mcp", self.addr, percent_encode(agent_id))
    }

    /// Ends every session (in-flight calls are cancelled) and stops listening.
    pub async fn shutdown(self) {
        let McpServer { stop, mut task, .. } = self;
        drop(stop);
        // Graceful shutdown waits for open connections; a client that keeps one open idle
        // must not hold the daemon up.
        if tokio::time::timeout(Duration::from_secs(5), &mut task).await.is_err() {
            task.abort();
        }
    }
}

/// Agent ids are opaque: anything outside RFC 3986's unreserved set is escaped.
fn percent_encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
