//! `paseo daemon --metrics 127.0.0.1:PORT`: what each plugin costs (`PluginHost::stats`, as
//! `paseo plugin stats` prints it) in Prometheus's text format at `GET /metrics`, for owners who
//! collect metrics.
//!
//! Any local user can reach a loopback port, and the stats name the owner's plugins and what they
//! do, so the server listens on loopback only and answers only requests that carry the token in
//! `$PASEO_HOME/metrics.token` (made on first use, 0600) as `Authorization: Bearer <token>`
//! (Prometheus: `authorization: { credentials_file: … }`); it is compared in constant time and
//! never logged. hyper serves HTTP, with a header-read timeout and a connection limit.

use std::convert::Infallible;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use paseo_plugin_runtime::{CallStats, PluginStatsReport};
use tokio::sync::Semaphore;

use super::Daemon;

/// The token's file in the daemon's home.
pub const TOKEN_FILE: &str = "metrics.token";
/// Connections served at once; more are closed at once.
const CONNECTIONS: usize = 16;
/// How long a client may take to send its request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Binds `addr` (loopback only; port 0 picks one) and serves the metrics until the process
/// ends. Returns the address bound and where the token is.
pub async fn serve(
    daemon: Arc<Daemon>,
    home: &Path,
    addr: SocketAddr,
) -> Result<(SocketAddr, PathBuf), String> {
    check(addr)?;
    let token_file = home.join(TOKEN_FILE);
    let token: Arc<str> = token(&token_file)?.into();
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("--metrics {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    let connections = Arc::new(Semaphore::new(CONNECTIONS));
    tokio::spawn(async move {
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!("metrics server cannot accept connections: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            // Over the limit: closed at once, so that it holds no descriptor.
            let Ok(permit) = connections.clone().try_acquire_owned() else {
                continue;
            };
            let (daemon, token) = (daemon.clone(), token.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let (daemon, token) = (daemon.clone(), token.clone());
                    async move { Ok::<_, Infallible>(answer(&daemon, &token, request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_TIMEOUT)
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                drop(permit);
            });
        }
    });
    Ok((bound, token_file))
}

/// Refuses an address that is not loopback; the daemon checks before it starts.
pub fn check(addr: SocketAddr) -> Result<(), String> {
    if addr.ip().is_loopback() {
        return Ok(());
    }
    Err(format!(
        "--metrics {addr}: not a loopback address; the metrics server listens on 127.0.0.1 or \
         [::1] only (put a proxy with its own authentication in front to reach it from elsewhere)"
    ))
}

/// The token in `file`, made there first if there is none (0600, written atomically).
fn token(file: &Path) -> Result<String, String> {
    match std::fs::read_to_string(file) {
        Ok(text) if text.trim().len() >= 32 => Ok(text.trim().to_string()),
        Ok(_) => Err(format!(
            "{} holds no token (at least 32 characters); delete it to have a new one made",
            file.display()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Two v4 UUIDs: 244 random bits from the OS.
            let token = format!(
                "{}{}",
                uuid::Uuid::new_v4().simple(),
                uuid::Uuid::new_v4().simple()
            );
            paseo_plugin_runtime::private_files::write_atomic(file, token.as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            Ok(token)
        }
        Err(e) => Err(format!("cannot read {}: {e}", file.display())),
    }
}

async fn answer(daemon: &Daemon, token: &str, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let reply = |status: StatusCode, body: String| {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        response
    };
    if request.uri().path() != "/metrics" {
        return reply(
            StatusCode::NOT_FOUND,
            "Not found: the metrics are at /metrics\n".into(),
        );
    }
    if request.method() != Method::GET {
        return reply(StatusCode::METHOD_NOT_ALLOWED, "Only GET\n".into());
    }
    let given = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !same(given.as_bytes(), token.as_bytes()) {
        let mut response = reply(
            StatusCode::UNAUTHORIZED,
            format!("The metrics need `Authorization: Bearer <the token in $PASEO_HOME/{TOKEN_FILE}>`\n"),
        );
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, "Bearer".parse().unwrap());
        return response;
    }
    match daemon.host.stats(None).await {
        Ok(reports) => {
            let mut response = reply(StatusCode::OK, render(&reports));
            response.headers_mut().insert(
                CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8".parse().unwrap(),
            );
            response
        }
        Err(e) => reply(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    }
}

/// Equal bytes, compared in time that depends on their lengths only.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The reports in Prometheus's text exposition format (version 0.0.4).
pub fn render(reports: &[PluginStatsReport]) -> String {
    let mut out = Exposition::default();
    let plugin = |r: &PluginStatsReport| format!("plugin=\"{}\"", escape(&r.id));
    let each = |f: &dyn Fn(&PluginStatsReport) -> Option<String>| -> Samples {
        reports
            .iter()
            .filter_map(|r| Some((plugin(r), f(r)?)))
            .collect()
    };
    let seconds = |ms: f64| (ms / 1000.0).to_string();
    out.family(
        "paseo_plugin_up",
        "gauge",
        "1 if the plugin is running, else 0; its status and engine as labels.",
        reports
            .iter()
            .map(|r| {
                let status = serde_json::to_value(r.status).unwrap_or_default();
                let status = status.as_str().unwrap_or("");
                let labels = format!("{},status=\"{status}\",engine=\"{}\"", plugin(r), r.engine);
                (labels, u8::from(status == "running").to_string())
            })
            .collect(),
    );
    out.family(
        "paseo_plugin_uptime_seconds",
        "gauge",
        "Time since the plugin's current code loaded.",
        each(&|r| r.uptime_ms.map(|ms| seconds(ms as f64))),
    );
    out.family(
        "paseo_plugin_heap_used_bytes",
        "gauge",
        "JS heap in use by the plugin's isolate.",
        each(&|r| r.heap_used_bytes.map(|b| b.to_string())),
    );
    out.family(
        "paseo_plugin_heap_total_bytes",
        "gauge",
        "JS heap the engine allocated for the plugin's isolate.",
        each(&|r| r.heap_total_bytes.map(|b| b.to_string())),
    );
    out.family(
        "paseo_plugin_heap_limit_bytes",
        "gauge",
        "The heap cap the plugin is stopped at.",
        each(&|r| Some(r.heap_limit_bytes.to_string())),
    );
    out.family(
        "paseo_plugin_cpu_seconds_total",
        "counter",
        "CPU time of the plugin's isolate threads, boots included.",
        each(&|r| Some(seconds(r.cpu_ms))),
    );
    out.family(
        "paseo_plugin_reloads_total",
        "counter",
        "Reloads of the plugin.",
        each(&|r| Some(r.reloads.to_string())),
    );
    out.family(
        "paseo_plugin_notifications_total",
        "counter",
        "Notifications delivered to the plugin, held while it reloaded, or dropped then.",
        reports
            .iter()
            .flat_map(|r| {
                let n = &r.notifications;
                [
                    ("delivered", n.delivered),
                    ("held", n.held),
                    ("dropped", n.dropped),
                ]
                .map(|(outcome, count)| {
                    (
                        format!("{},outcome=\"{outcome}\"", plugin(r)),
                        count.to_string(),
                    )
                })
            })
            .collect(),
    );
    // One sample per kind and name of call, `f` giving extra labels and the value.
    let calls = |f: &dyn Fn(&CallStats) -> Samples| -> Samples {
        let mut samples = Samples::new();
        for r in reports {
            for c in &r.calls {
                let labels = format!(
                    "{},kind=\"{}\",name=\"{}\"",
                    plugin(r),
                    c.kind,
                    escape(&c.name)
                );
                for (extra, value) in f(c) {
                    samples.push((format!("{labels}{extra}"), value));
                }
            }
        }
        samples
    };
    let us = |us: u64| (us as f64 / 1e6).to_string();
    out.family(
        "paseo_plugin_calls_total",
        "counter",
        "Calls into the plugin by kind and name, by how they ended.",
        calls(&|c| {
            let ok = c.count - c.errors - c.timeouts - c.cancelled;
            [
                ("ok", ok),
                ("error", c.errors),
                ("timeout", c.timeouts),
                ("cancelled", c.cancelled),
            ]
            .into_iter()
            .map(|(outcome, n)| (format!(",outcome=\"{outcome}\""), n.to_string()))
            .collect()
        }),
    );
    out.family(
        "paseo_plugin_call_duration_seconds",
        "summary",
        "Calls from queued to answered; quantiles over each name's latest 1,024 calls.",
        calls(&|c| {
            vec![
                (",quantile=\"0.5\"".into(), us(c.p50_us)),
                (",quantile=\"0.99\"".into(), us(c.p99_us)),
            ]
        }),
    );
    out.samples(
        "paseo_plugin_call_duration_seconds_sum",
        calls(&|c| vec![(String::new(), us(c.total_us))]),
    );
    out.samples(
        "paseo_plugin_call_duration_seconds_count",
        calls(&|c| vec![(String::new(), c.count.to_string())]),
    );
    out.family(
        "paseo_plugin_call_duration_max_seconds",
        "gauge",
        "The longest call by kind and name since the daemon started.",
        calls(&|c| vec![(String::new(), us(c.max_us))]),
    );
    out.text
}

/// (labels, value) pairs of one metric.
type Samples = Vec<(String, String)>;

#[derive(Default)]
struct Exposition {
    text: String,
}

impl Exposition {
    /// A metric family: its help and type lines, then its samples.
    fn family(&mut self, name: &str, kind: &str, help: &str, samples: Samples) {
        let _ = writeln!(self.text, "# HELP {name} {help}");
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
        self.samples(name, samples);
    }

    fn samples(&mut self, name: &str, samples: Samples) {
        for (labels, value) in samples {
            let _ = writeln!(self.text, "{name}{{{labels}}} {value}");
        }
    }
}

/// A label value as the format escapes it: backslash, double quote, line feed.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use paseo_plugin_runtime::{NotificationStats, PluginStatus};

    #[test]
    fn renders_the_text_format_with_escaped_labels() {
        let report = PluginStatsReport {
            id: "notes".into(),
            engine: "v8",
            status: PluginStatus::Running,
            uptime_ms: Some(1500),
            heap_total_bytes: Some(4096),
            heap_used_bytes: Some(2048),
            heap_limit_bytes: 1 << 27,
            cpu_ms: 250.0,
            reloads: 2,
            notifications: NotificationStats {
                delivered: 7,
                held: 1,
                dropped: 0,
            },
            calls: vec![CallStats {
                kind: "rpc",
                name: "say \"hi\"\\\n".into(),
                count: 4,
                errors: 1,
                timeouts: 1,
                cancelled: 0,
                p50_us: 40,
                p99_us: 1_500,
                max_us: 2_000_000,
                total_us: 2_001_600,
            }],
        };
        let text = render(&[report]);
        let name = r#"name="say \"hi\"\\\n""#;
        for line in [
            "# TYPE paseo_plugin_up gauge".to_string(),
            r#"paseo_plugin_up{plugin="notes",status="running",engine="v8"} 1"#.into(),
            r#"paseo_plugin_uptime_seconds{plugin="notes"} 1.5"#.into(),
            r#"paseo_plugin_cpu_seconds_total{plugin="notes"} 0.25"#.into(),
            r#"paseo_plugin_notifications_total{plugin="notes",outcome="held"} 1"#.into(),
            format!(
                r#"paseo_plugin_calls_total{{plugin="notes",kind="rpc",{name},outcome="ok"}} 2"#
            ),
            format!(
                r#"paseo_plugin_calls_total{{plugin="notes",kind="rpc",{name},outcome="timeout"}} 1"#
            ),
            format!(
                r#"paseo_plugin_call_duration_seconds{{plugin="notes",kind="rpc",{name},quantile="0.99"}} 0.0015"#
            ),
            format!(
                r#"paseo_plugin_call_duration_seconds_sum{{plugin="notes",kind="rpc",{name}}} 2.0016"#
            ),
            format!(
                r#"paseo_plugin_call_duration_seconds_count{{plugin="notes",kind="rpc",{name}}} 4"#
            ),
            format!(
                r#"paseo_plugin_call_duration_max_seconds{{plugin="notes",kind="rpc",{name}}} 2"#
            ),
        ] {
            assert!(text.lines().any(|l| l == line), "no {line} in\n{text}");
        }
        // Every sample line is `name{labels} value`, one per line.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (_, value) = line.rsplit_once(' ').unwrap();
            value.parse::<f64>().unwrap();
        }
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
        assert!(!same(b"", b"abc"));
    }
}
