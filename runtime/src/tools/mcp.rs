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
use tokio_util::sync::CancellationToken;

use super::{ToolError, ToolInfo, ToolResult, TOOL_TIMEOUT};
use crate::host::PluginHost;

pub const SERVER_NAME: &str = "paseo-plugin-tools";

/// The MCP server behind one agent's URL; rmcp builds one per session (or per stateless request).
#[derive(Clone)]
struct AgentTools {
    host: Arc<PluginHost>,
    agent_id: Arc<str>,
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
        match self.host.call_tool(&self.agent_id, &request.name, input, context.ct.cancelled()).await {
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

type AgentService = StreamableHttpService<AgentTools, LocalSessionManager>;

struct Shared {
    host: Arc<PluginHost>,
    config: StreamableHttpServerConfig,
    /// One service (and session manager) per agent, made on first use: a session opened at one
    /// agent's URL is unknown at another's.
    services: Mutex<HashMap<String, AgentService>>,
}

impl Shared {
    fn service(&self, agent_id: &str) -> AgentService {
        let mut services = self.services.lock().unwrap();
        if let Some(service) = services.get(agent_id) {
            return service.clone();
        }
        let tools = AgentTools { host: self.host.clone(), agent_id: agent_id.into() };
        let mut sessions = LocalSessionManager::default();
        // A session is closed after this long without traffic; a call may run for TOOL_TIMEOUT.
        sessions.session_config.keep_alive = Some(TOOL_TIMEOUT + Duration::from_secs(60));
        let service = StreamableHttpService::new(move || Ok(tools.clone()), Arc::new(sessions), self.config.clone());
        services.insert(agent_id.to_string(), service.clone());
        service
    }
}

async fn serve_agent(State(shared): State<Arc<Shared>>, Path(agent_id): Path<String>, request: Request) -> Response {
    shared.service(&agent_id).handle(request).await.map(axum::body::Body::new)
}

/// The MCP endpoint for every agent's plugin tools.
pub struct McpServer {
    addr: SocketAddr,
    stop: CancellationToken,
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
        let shared = Arc::new(Shared { host, config, services: Mutex::default() });
        let router = axum::Router::new().route("/agents/{agent_id}/mcp", axum::routing::any(serve_agent)).with_state(shared);
        let shutdown = stop.clone();
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).with_graceful_shutdown(shutdown.cancelled_owned()).await {
                tracing::warn!("MCP server stopped: {e}");
            }
        });
        Ok(McpServer { addr, stop, task })
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
        self.stop.cancel();
        let mut task = self.task;
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
