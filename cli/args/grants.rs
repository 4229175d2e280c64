//! The flags that grant a plugin access (`plugin allow|deny`, the throwaway host's `--allow-*`
//! and `--permissions`, `bench`) and the debugger's `--inspect[-brk]`, with the policy they
//! make.

use clap::Args;
use paseo_plugin_runtime::permissions::Policy;

/// A policy for the throwaway host's plugins, to try a plugin under it: Deno-style `--allow-*`
/// flags, or `--permissions JSON` (as `plugins.<id>.permissions` in config.json). None of them:
/// full access, as the daemon gives a plugin without a policy.
#[derive(Args, Debug, Default)]
pub struct AllowFlags {
    /// Runs the plugins under this policy (JSON: {"read": […], "net": […], …})
    #[arg(long, value_name = "JSON", conflicts_with_all = ["allow_read", "allow_write", "allow_net", "allow_run", "allow_env", "allow_sys"])]
    pub permissions: Option<String>,
    /// A path the plugins may read (repeat for several)
    #[arg(long, value_name = "PATH")]
    pub allow_read: Vec<String>,
    /// A path the plugins may write in
    #[arg(long, value_name = "PATH")]
    pub allow_write: Vec<String>,
    /// A host (host, host:port, *.domain or *) the plugins may connect to
    #[arg(long, value_name = "HOST")]
    pub allow_net: Vec<String>,
    /// A program the plugins may run
    #[arg(long, value_name = "PROGRAM")]
    pub allow_run: Vec<String>,
    /// An environment variable the plugins may see
    #[arg(long, value_name = "NAME")]
    pub allow_env: Vec<String>,
    /// Host information (os.userInfo(), os.hostname(), …)
    #[arg(long)]
    pub allow_sys: bool,
}

impl AllowFlags {
    /// The policy asked for, if any.
    pub fn policy(&self) -> Result<Option<Policy>, String> {
        if let Some(json) = &self.permissions {
            return serde_json::from_str(json)
                .map(Some)
                .map_err(|e| format!("--permissions: {e}"));
        }
        let policy = policy_of(
            &self.allow_read,
            &self.allow_write,
            &self.allow_net,
            &self.allow_run,
            &self.allow_env,
            self.allow_sys,
        )?;
        Ok((policy != Policy::default()).then_some(policy))
    }
}

/// A policy from grants given on the command line: paths that are neither absolute nor
/// placeholders are taken from the working directory here.
fn policy_of(
    read: &[String],
    write: &[String],
    net: &[String],
    run: &[String],
    env: &[String],
    sys: bool,
) -> Result<Policy, String> {
    let path = |p: &String| -> Result<String, String> {
        if p.starts_with('$') || p.starts_with('~') || std::path::Path::new(p).is_absolute() {
            return Ok(p.clone());
        }
        std::path::absolute(p)
            .map(|a| a.display().to_string())
            .map_err(|e| format!("{p}: {e}"))
    };
    let paths = |list: &[String]| list.iter().map(path).collect::<Result<Vec<_>, _>>();
    Ok(Policy {
        read: paths(read)?,
        write: paths(write)?,
        net: net.to_vec(),
        run: run.to_vec(),
        env: env.to_vec(),
        sys,
        ..Policy::default()
    })
}

/// The grants of `paseo plugin allow|deny`, in the spirit of Deno's flags; each may repeat.
#[derive(Args, Debug, Default)]
pub struct GrantFlags {
    /// A path (and what is under it) the plugin may read
    #[arg(long, value_name = "PATH")]
    pub read: Vec<String>,
    /// A path (and what is under it) the plugin may write, create or remove in
    #[arg(long, value_name = "PATH")]
    pub write: Vec<String>,
    /// A host (host, host:port, *.domain or *) it may connect to or listen on
    #[arg(long, value_name = "HOST")]
    pub net: Vec<String>,
    /// A program (a name on PATH, or an absolute path) it may run
    #[arg(long, value_name = "PROGRAM")]
    pub run: Vec<String>,
    /// An environment variable it may see
    #[arg(long, value_name = "NAME")]
    pub env: Vec<String>,
    /// Host information (os.userInfo(), os.hostname(), …)
    #[arg(long)]
    pub sys: bool,
}

impl GrantFlags {
    /// The grants as a policy's fields.
    pub fn policy(&self) -> Result<Policy, String> {
        policy_of(
            &self.read,
            &self.write,
            &self.net,
            &self.run,
            &self.env,
            self.sys,
        )
    }
}

/// `--inspect[=ADDR]` and `--inspect-brk[=ADDR]`, as Node takes them.
#[derive(Args, Debug, Default)]
pub struct InspectFlags {
    /// Serves the V8 inspector (Chrome DevTools Protocol) of the plugin's isolate at ADDR
    /// (default 127.0.0.1:9229): chrome://inspect or VS Code attach to it. V8 only. Anyone
    /// who attaches can run code as you
    #[arg(long, value_name = "ADDR", num_args = 0..=1, require_equals = true,
          default_missing_value = "127.0.0.1:9229")]
    pub inspect: Option<std::net::SocketAddr>,
    /// As --inspect, and the plugin's code waits for a debugger, then stops at its entry's
    /// first line
    #[arg(long = "inspect-brk", value_name = "ADDR", num_args = 0..=1, require_equals = true,
          default_missing_value = "127.0.0.1:9229", conflicts_with = "inspect")]
    pub inspect_brk: Option<std::net::SocketAddr>,
}

impl InspectFlags {
    /// Where to serve the inspector, and whether to break at the first line.
    pub fn chosen(&self) -> Option<(std::net::SocketAddr, bool)> {
        match (self.inspect, self.inspect_brk) {
            (_, Some(addr)) => Some((addr, true)),
            (Some(addr), None) => Some((addr, false)),
            (None, None) => None,
        }
    }
}
