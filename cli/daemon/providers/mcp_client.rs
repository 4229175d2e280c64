//! How the scripted provider calls its plugin tools: as an MCP client of the daemon's MCP server
//! (the URL and `Authorization` header of the server entry the agent was launched with),
//! exactly as a real provider would.

use std::sync::Arc;

use paseo_plugin_runtime::tools::mcp::SERVER_NAME;
use paseo_plugin_runtime::ToolResult;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::Value;

use crate::daemon::Daemon;

pub(super) async fn call(
    daemon: &Arc<Daemon>,
    agent_id: &str,
    name: &str,
    input: Value,
) -> Result<ToolResult, String> {
    // The MCP server entry the agent was launched with, as a provider reads its config.
    let server = daemon
        .live
        .lock()
        .unwrap()
        .get(agent_id)
        .map(|l| l.launch.provider_mcp_servers()[SERVER_NAME].clone())
        .filter(|s| s["url"].is_string())
        .ok_or_else(|| format!("Agent {agent_id} was launched without plugin tools"))?;
    let url = server["url"].as_str().unwrap_or_default();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = server["headers"]["Authorization"]
        .as_str()
        .and_then(|v| v.strip_prefix("Bearer "))
    {
        config = config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = ()
        .serve(transport)
        .await
        .map_err(|e| format!("MCP connection to {url} failed: {e}"))?;
    let arguments = input.as_object().cloned().unwrap_or_default();
    let result = client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(arguments))
        .await
        .map_err(|e| format!("MCP call of {name} failed: {e}"));
    let _ = client.cancel().await;
    let result = serde_json::to_value(result?).map_err(|e| e.to_string())?;
    let text: Vec<&str> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect();
    Ok(ToolResult {
        text: (!text.is_empty()).then(|| text.join("\n")),
        structured_content: result.get("structuredContent").cloned(),
        is_error: result["isError"] == true,
    })
}
