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
//!
//! This file is the public API: [`McpServer`] (start, grant, revoke, stats, shutdown), its
//! limits and constants, and the state its parts share. The rest, by job:
//! - `server.rs`: listening, connections, and the HTTP layer (Origin and Host checks, the
//!   bearer check, routing to an agent's service);
//! - `sessions.rs`: an agent's MCP sessions (creation under the caps, activity, idle expiry);
//! - `handler.rs`: the MCP server each session talks to (listing and calling an agent's tools).

mod handler;
mod server;
mod sessions;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::AgentToolbox;
use handler::AgentTools;
use server::{accept_connections, percent_encode};
use sessions::{expire_idle_sessions, AgentSessions};

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
