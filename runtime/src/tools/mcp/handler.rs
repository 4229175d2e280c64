//! The MCP server behind one agent's URL: rmcp's `ServerHandler` that lists the agent's tools
//! and calls them through the [`AgentToolbox`], tying each call's cancellation to its MCP
//! request, its session and the agent's grant.

use std::sync::Arc;

use hyper::http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::sessions::{AgentSessions, SESSION_HEADER};
use super::SERVER_NAME;
use crate::tools::{AgentToolbox, ToolError, ToolInfo, ToolResult};

/// The MCP server behind one agent's URL; rmcp builds one per session (or per stateless request).
#[derive(Clone)]
pub(super) struct AgentTools {
    pub(super) host: Arc<dyn AgentToolbox>,
    pub(super) agent_id: Arc<str>,
    pub(super) sessions: Arc<AgentSessions>,
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
