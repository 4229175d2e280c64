//! What `paseo` accepts on its command line: every command, its flags and its `--help`, as
//! `clap` types. `paseo help` (and `paseo`, `-h`, `--help`) prints [`USAGE`], the overview of
//! every command; `paseo COMMAND --help` prints that command's own help.

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

mod grants;
pub use grants::{AllowFlags, GrantFlags, InspectFlags};
use serde_json::Value;

pub(crate) const USAGE: &str = "\
usage:
  paseo hook run --plugin DIR [--plugin DIR ...] [--timeout-ms N] HOOK [INPUT]
      Loads the plugins into a throwaway host, dispatches HOOK once and prints
      {\"ok\":true,\"output\":...} or {\"ok\":false,\"error\":\"...\"} (exit 1).
      INPUT is JSON, @FILE or - (stdin); for request hooks it is the request.
      Plugin log lines go to stderr as [<plugin-id>] <line>.
  paseo plugin inspect DIR [--json]
      Loads a plugin and prints what it registered, or its load error.
  paseo rpc call --plugin DIR [--plugin DIR ...] PLUGIN-ID METHOD [INPUT]
      Loads the plugins and invokes one of their RPC methods; prints the JSON result.
  paseo tool list --plugin DIR [--plugin DIR ...] [--agent JSON]
  paseo tool call --plugin DIR [--plugin DIR ...] [--agent JSON] NAME [INPUT]
      Opens an agent session (agent.open.before with --agent merged over a default
      agent-1 in the current directory), then lists the plugin tools attached to it, or
      calls one (INPUT: JSON, @FILE or -) and prints {\"ok\":true,\"output\":{text,structuredContent,isError}}.

Daemon and its CLI ($PASEO_HOME, default ~/.paseo; control socket $PASEO_HOME/daemon.sock):
  paseo daemon                      run the daemon in the foreground;  paseo daemon stop
  paseo plugin ls [ID] | enable ID | disable ID | reload ID | remove ID
  paseo plugin install SOURCE [--id ID] [--ref GIT_REF] [--path SUBDIR]
      SOURCE: a directory (runs in place), owner/slug or host/owner/slug (the plugin registry,
      $PASEO_PLUGIN_REGISTRY or https://plugins.paseo.sh), npm:<package>[@version], github:owner/repo
      or git:<url>; append :sub/dir for a subfolder. Managed sources are fetched, built and
      placed under $PASEO_HOME/plugins/<id>/ first.
  paseo plugin update ID|--all [--check] [--yes] [--ref GIT_REF | --version NPM_SELECTOR]
      fetches a managed plugin again and swaps the new version in; a failed update keeps the old
      one; --check only says what an update would install; without --ref/--version it asks
      first (--yes answers for scripts)
  paseo plugin logs ID [--follow] | init DIR [--id ID]          (all take --json)
  paseo plugin types DIR            (re)writes the engine's declarations into DIR/.paseo/types
  paseo plugins enable | disable    the global switch (\"pluginsEnabled\" in config.json), applied at once
  paseo plugin dev DIR [--home DIR]  a daemon with that plugin, reloaded on every file change
  paseo demo                         the whole mission in a temporary home, as a readable trace
  paseo workspace create --dir DIR [--title T] [--worktree BRANCH] | ls | archive ID
  paseo agent create [--workspace ID | --cwd DIR] [--provider P] [--title T] [--label K=V]...
                     [--env K=V]... [--prompt TEXT]
      --env applies to the first launch only and is not saved (as in Paseo), so a
      reload or a restart launches without it; plugins add env on every open.
  paseo agent send ID TEXT [--wait] | wait ID | cancel ID | show ID | ls | archive ID | reload ID
                   | close ID      reload and close interrupt a running turn; close keeps the agent
  paseo permission respond AGENT-ID REQUEST-ID allow|deny [--message TEXT]
  paseo provider ls                 built-in agent providers and the ones plugins provide
      (`agent create --provider ID` runs an agent on a plugin's provider)
  paseo forge ls | call PROVIDER METHOD [INPUT]   plugin forge providers (180 s per call)
  paseo usage ls | fetch SOURCE [INPUT] | discover SOURCE [SCOPE]   plugin usage sources
  paseo attachment search PLUGIN METHOD QUERY   an attachment source's search RPC, checked
  The built-in scripted provider reads each message line as a step: say TEXT, run COMMAND
  (asks permission), ask COMMAND (asks and goes on), tool NAME JSON (over MCP), env NAME,
  credits, fail MESSAGE, sleep MS.

The throwaway host answers context.paseo from memory and prints every SDK call a plugin
makes on stderr as [paseo] sdk <method> <json arguments>. Plugin settings and secrets live in
$PASEO_HOME/plugin-settings ($PASEO_HOME defaults to ~/.paseo).

  paseo COMMAND --help              one command's help;  paseo --version
  paseo completions bash|zsh|fish   a completion script for the shell, on stdout
";

/// `paseo`: the plugin engine's command line.
#[derive(Parser, Debug)]
#[command(
    name = "paseo",
    version,
    about = "The plugin engine's command line: a throwaway host, the daemon and its client",
    override_help = USAGE,
    subcommand_value_name = "COMMAND"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The process's arguments. `--version` also names the JavaScript engine this binary runs
    /// ("paseo 0.1.0 (V8 15.0.…)"), which is known only at run time.
    pub fn from_env() -> Cli {
        let engine = paseo_plugin_runtime::engine::backend::describe();
        let version = format!("{} ({engine})", env!("CARGO_PKG_VERSION"));
        let matches = Cli::command()
            .version(&*Box::leak(version.into_boxed_str()))
            .get_matches();
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Runs a hook in a throwaway host
    Hook {
        #[command(subcommand)]
        command: HookCommand,
    },
    /// Inspects, installs, updates and manages plugins
    Plugin(PluginArgs),
    /// The global plugin switch ("pluginsEnabled" in config.json), applied at once
    Plugins(Group<SwitchCommand>),
    /// Calls a plugin's RPC method in a throwaway host
    Rpc {
        #[command(subcommand)]
        command: RpcCommand,
    },
    /// Lists or calls the tools plugins attach to an agent session, in a throwaway host
    Tool {
        #[command(subcommand)]
        command: ToolCommand,
    },
    /// Runs the daemon in the foreground ($PASEO_HOME, default ~/.paseo; control socket
    /// $PASEO_HOME/daemon.sock); `paseo daemon stop` stops it
    Daemon {
        #[command(subcommand)]
        command: Option<DaemonCommand>,
        /// Also serves the plugins' stats to Prometheus at http://ADDR/metrics (loopback only;
        /// each request needs `Authorization: Bearer` and the token in $PASEO_HOME/metrics.token)
        #[arg(long, value_name = "127.0.0.1:PORT")]
        metrics: Option<std::net::SocketAddr>,
        #[command(flatten)]
        inspect: InspectFlags,
        /// With --inspect: only this plugin's isolate is inspected; repeat for several
        /// (default: every plugin's)
        #[arg(long = "inspect-plugin", value_name = "ID")]
        inspect_plugin: Vec<String>,
        /// Records every hook call each plugin receives, and what it answered, as JSON lines in
        /// DIR/<plugin-id>.jsonl (env values and secrets redacted; 0600) for `paseo hook replay`
        #[arg(long, value_name = "DIR")]
        record: Option<PathBuf>,
    },
    /// The whole mission in a temporary home, as a readable trace
    Demo,
    /// What the embedded host costs per plugin
    #[command(long_about = BENCH_ABOUT)]
    Bench(BenchArgs),
    /// Creates, lists and archives workspaces
    Workspace(Group<WorkspaceCommand>),
    /// Creates and drives agents
    Agent(Group<AgentCommand>),
    /// Answers an agent's permission request
    Permission(Group<PermissionCommand>),
    /// Built-in agent providers and the ones plugins provide
    Provider(Group<ListCommand>),
    /// Plugin forge providers (180 s per call)
    Forge(Group<ForgeCommand>),
    /// Plugin usage sources
    Usage(Group<UsageCommand>),
    /// Plugin attachment sources
    Attachment(Group<AttachmentCommand>),
    /// Prints a completion script for the shell on stdout
    #[command(
        long_about = "Prints a completion script for the shell on stdout, e.g.\n  \
                      paseo completions bash > ~/.local/share/bash-completion/completions/paseo"
    )]
    Completions {
        /// bash, zsh, fish, elvish or powershell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// A group of client commands, all of which take `--json`.
#[derive(Args, Debug)]
pub struct Group<C: Subcommand> {
    #[command(subcommand)]
    pub command: C,
    #[command(flatten)]
    pub out: JsonFlag,
}

#[derive(Args, Debug)]
pub struct JsonFlag {
    /// Prints the daemon's answer (or error) as JSON on stdout
    #[arg(long, global = true)]
    pub json: bool,
}

/// The plugins a throwaway host loads (`hook run`, `rpc call`, `tool list|call`).
#[derive(Args, Debug)]
pub struct HostFlags {
    /// A plugin directory to load; repeat for several
    #[arg(long = "plugin", value_name = "DIR")]
    pub plugins: Vec<PathBuf>,
    /// How long a hook may run, in milliseconds
    #[arg(long, value_name = "N")]
    pub timeout_ms: Option<u64>,
    #[command(flatten)]
    pub allow: AllowFlags,
}

#[derive(Subcommand, Debug)]
pub enum HookCommand {
    /// Loads the plugins into a throwaway host, dispatches HOOK once and prints
    /// {"ok":true,"output":...} or {"ok":false,"error":"..."} (exit 1)
    #[command(long_about = "\
Loads the plugins into a throwaway host, dispatches HOOK once and prints
{\"ok\":true,\"output\":...} or {\"ok\":false,\"error\":\"...\"} (exit 1).
INPUT is JSON, @FILE or - (stdin); for request hooks it is the request.
Plugin log lines go to stderr as [<plugin-id>] <line>.

The throwaway host answers context.paseo from memory and prints every SDK call a plugin
makes on stderr as [paseo] sdk <method> <json arguments>. Plugin settings and secrets live in
$PASEO_HOME/plugin-settings ($PASEO_HOME defaults to ~/.paseo).")]
    Run {
        #[command(flatten)]
        host: HostFlags,
        /// The hook, e.g. agent.open.before
        hook: String,
        /// JSON, @FILE or - (stdin); for request hooks, the request
        input: Option<String>,
    },
    /// Plays a recording (`paseo daemon --record DIR`) against a plugin folder and reports,
    /// call by call, where the plugin now answers differently (exit 1 when one does)
    #[command(long_about = "\
Plays a recording made by `paseo daemon --record DIR` (DIR/<plugin-id>.jsonl) against the
plugin folder given with --plugin, in a throwaway host: each recorded hook call's input, in
order, to the plugin's handlers of that hook. Prints each call whose answer differs from the
recorded one, field by field (output.env.X: recorded …, now …), then a summary; exit 1 when
any call differs. Env values and secrets are compared as the recording holds them: redacted.")]
    Replay {
        #[command(flatten)]
        host: HostFlags,
        /// A recording: DIR/<plugin-id>.jsonl
        file: PathBuf,
        /// One JSON line per call instead of the report
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum RpcCommand {
    /// Loads the plugins and invokes one of their RPC methods; prints the JSON result
    Call {
        #[command(flatten)]
        host: HostFlags,
        #[arg(value_name = "PLUGIN-ID")]
        plugin_id: String,
        method: String,
        /// JSON, @FILE or - (stdin)
        input: Option<String>,
    },
}

#[derive(Args, Debug)]
pub struct ToolFlags {
    #[command(flatten)]
    pub host: HostFlags,
    /// The agent, merged over a default agent-1 in the current directory (JSON, @FILE or -)
    #[arg(long, value_name = "JSON")]
    pub agent: Option<String>,
}

/// `paseo bench --help`: what the bench measures (the synopsis is clap's).
const BENCH_ABOUT: &str = "\
Loads N copies of the plugin (ids <manifest-id>-<i>) into one host and prints one JSON
object: cold_start_ms_per_plugin, rss_kb_per_plugin, before_rtt_us_p50/p99 (200 warm-up
then M waiting-hook calls on the first copy), events_per_s (K agent.turn.before
notifications fired together as the daemon fires them, until all are settled),
run_hook_events_per_s (the same as K awaited run_hook calls in their own tasks), reload_ms
(median of 10 reloads of the first copy), chain_rtt_us_p50/p99 and chain_us_per_plugin_p50
(one request through all N copies in plugin-ID order, as a daemon runs a waiting hook; M
requests, at most 200,000/N, after 200 unmeasured), rss_kb_process (the whole process after
the loads).
The host keeps a standby isolate as the daemon does (each load or reload binds the isolate
booted ahead, then the next one boots); timings start once it is ready. --no-standby boots
every isolate on demand. --spin-us sets HostOptions::spin (0: threads sleep at once).
--snapshot-cache (V8) keeps the startup snapshot in DIR, as the daemon does in its home:
the first run makes and writes it, later runs read it; without it each run makes it.
Defaults: N=1, M=2000, K=5000, HOOK=agent.open.before, bytecode cache off, snapshot made
in memory, spin 100 µs.";

const TOOL_ABOUT: &str = "\
Opens an agent session (agent.open.before with --agent merged over a default
agent-1 in the current directory), then lists the plugin tools attached to it, or
calls one (INPUT: JSON, @FILE or -) and prints {\"ok\":true,\"output\":{text,structuredContent,isError}}.";

#[derive(Subcommand, Debug)]
pub enum ToolCommand {
    /// Lists the plugin tools attached to an agent session
    #[command(long_about = TOOL_ABOUT)]
    List {
        #[command(flatten)]
        flags: ToolFlags,
    },
    /// Calls a plugin tool attached to an agent session
    #[command(long_about = TOOL_ABOUT)]
    Call {
        #[command(flatten)]
        flags: ToolFlags,
        name: String,
        /// JSON, @FILE or - (stdin)
        input: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum DaemonCommand {
    /// Stops the running daemon
    Stop,
}

#[derive(Args, Debug)]
pub struct PluginArgs {
    #[command(subcommand)]
    pub command: PluginCommand,
    #[command(flatten)]
    pub out: JsonFlag,
}

#[derive(Subcommand, Debug)]
pub enum PluginCommand {
    /// Loads a plugin and prints what it registered, or its load error
    Inspect { dir: PathBuf },
    /// Lists the daemon's plugins, or the one with ID
    #[command(visible_alias = "status")]
    Ls { id: Option<String> },
    /// Installs a plugin from a directory, the plugin registry, npm or Git
    #[command(
        visible_alias = "add",
        long_about = "\
Installs a plugin. Plugin code is trusted: its server code and preparation commands run
unsandboxed on the daemon host.

SOURCE: a directory (runs in place), owner/slug or host/owner/slug (the plugin registry,
$PASEO_PLUGIN_REGISTRY or https://plugins.paseo.sh), npm:<package>[@version], github:owner/repo
or git:<url>; append :sub/dir for a subfolder. Managed sources are fetched, built and
placed under $PASEO_HOME/plugins/<id>/ first."
    )]
    Install {
        /// A directory, owner/slug, npm:<package>, github:owner/repo or git:<url>
        source: String,
        /// The plugin's id
        #[arg(long)]
        id: Option<String>,
        /// A Git branch, tag or commit (Git sources)
        #[arg(long = "ref", value_name = "GIT_REF")]
        git_ref: Option<String>,
        /// A subfolder of the source
        #[arg(long, value_name = "SUBDIR")]
        path: Option<String>,
        /// Runs it under the baseline policy: read its own folder, read and write its data,
        /// nothing else (`paseo plugin allow` grants more)
        #[arg(long)]
        sandbox: bool,
    },
    /// Fetches a managed plugin again and swaps the new version in
    #[command(long_about = "\
Fetches a managed plugin again and swaps the new version in; a failed update keeps the old
one; --check only says what an update would install; without --ref/--version it asks
first (--yes answers for scripts).")]
    Update {
        /// The plugin to update (or --all)
        id: Option<String>,
        /// Updates every managed plugin
        #[arg(long)]
        all: bool,
        /// Only says what an update would install
        #[arg(long)]
        check: bool,
        /// Answers the confirmation for scripts
        #[arg(long)]
        yes: bool,
        /// A Git branch, tag or commit to update to
        #[arg(long = "ref", value_name = "GIT_REF")]
        git_ref: Option<String>,
        /// An npm version or range to update to
        #[arg(long, value_name = "NPM_SELECTOR")]
        version: Option<String>,
    },
    /// Enables a plugin
    Enable { id: String },
    /// Disables a plugin
    Disable { id: String },
    /// Reloads a plugin
    Reload { id: String },
    /// Removes a plugin
    Remove { id: String },
    /// Prints a plugin's logs
    Logs {
        id: String,
        /// Goes on printing new lines
        #[arg(long)]
        follow: bool,
    },
    /// Prints what each plugin costs: heap, CPU, calls, errors, latency
    #[command(long_about = "\
Prints what each plugin costs: its state and uptime, heap in use and its cap, CPU time of its
isolate's thread, and its calls by kind and name (hook, RPC method, tool, daemon event,
provider call) with their count, errors, timeouts and latency from queued to answered (p50 and
p99 over each name's latest 1,024 calls, max over all). Counts start with the daemon and survive
reloads. With ID, one plugin and a line per kind of call.")]
    Stats {
        id: Option<String>,
        /// Prints again every second until interrupted (with --json: a JSON line each time)
        #[arg(long)]
        watch: bool,
    },
    /// Shows what a plugin may touch: its policy, or full access
    Permissions { id: String },
    /// Grants a plugin access and applies it at once (a reload)
    #[command(long_about = "\
Grants a plugin access and applies it at once (a reload). A plugin with full access (no
policy, as on Paseo's Node host) gets a policy of just these grants, so allowing is also how a
policy starts. Paths may use $PLUGIN (its folder), $DATA (its settings and data), $WORKSPACES
(the daemon's workspaces, as they come and go), $TMP and ~; relative paths are taken from here.
A program a plugin may run runs with your rights; so does a shell (sh) it may run, whatever the
command line.")]
    Allow {
        id: String,
        #[command(flatten)]
        grants: GrantFlags,
    },
    /// Takes grants back from a plugin's policy and applies it at once (a reload)
    Deny {
        id: String,
        #[command(flatten)]
        grants: GrantFlags,
    },
    /// Shows a plugin's quotas on what it writes through the SDK, or changes them
    #[command(long_about = "\
Shows a plugin's quotas on what it writes through the SDK, per agent per minute: timeline rows,
their bytes, and the messages it sends to agents. With flags, changes those (kept in
config.json, plugins.<id>.quotas) and applies them to its next call; the rest stay.")]
    Quotas {
        id: String,
        /// Timeline rows it may append per agent per minute
        #[arg(long, value_name = "N")]
        timeline_rows: Option<u64>,
        /// Bytes of timeline rows it may append per agent per minute
        #[arg(long, value_name = "N")]
        timeline_bytes: Option<u64>,
        /// Messages it may send per agent per minute
        #[arg(long, value_name = "N")]
        sends: Option<u64>,
    },
    /// Audits a plugin to write its policy: starts the audit, shows what it saw, or applies it
    #[command(long_about = "\
Audits a plugin to write its policy. The first call starts the audit: the plugin runs with full
access and every access it makes (files, hosts, programs, environment variables, host
information) is recorded in its data folder, across reloads and restarts. Later calls print the
smallest policy that covers what it did so far, generalised (a folder, not each file; $PLUGIN,
$DATA, $WORKSPACES, $TMP, ~ where they apply). --apply writes that policy and reloads the plugin
under it: from then on it can do exactly that and no more.")]
    Audit {
        id: String,
        /// Writes the policy the audit saw and ends the audit
        #[arg(long)]
        apply: bool,
    },
    /// Creates a plugin to start from in DIR
    Init {
        dir: PathBuf,
        /// The plugin's id (default: DIR's name)
        #[arg(long)]
        id: Option<String>,
    },
    /// (Re)writes the engine's declarations into DIR/.paseo/types
    Types { dir: PathBuf },
    /// A daemon with that plugin, reloaded on every file change
    Dev {
        dir: PathBuf,
        /// The daemon's home (default: a temporary one)
        #[arg(long, value_name = "DIR")]
        home: Option<PathBuf>,
        #[command(flatten)]
        inspect: InspectFlags,
    },
}

#[derive(Subcommand, Debug)]
pub enum SwitchCommand {
    /// Turns plugins on
    Enable,
    /// Turns plugins off
    Disable,
}

#[derive(Subcommand, Debug)]
pub enum WorkspaceCommand {
    /// Creates a workspace
    Create {
        #[arg(long)]
        dir: String,
        #[arg(long, value_name = "T", allow_hyphen_values = true)]
        title: Option<String>,
        /// Creates a Git worktree on BRANCH for it
        #[arg(long, value_name = "BRANCH")]
        worktree: Option<String>,
    },
    /// Lists workspaces
    Ls,
    /// Archives a workspace
    Archive { id: String },
}

#[derive(Subcommand, Debug)]
pub enum AgentCommand {
    /// Creates an agent
    #[command(long_about = "\
Creates an agent. --env applies to the first launch only and is not saved (as in Paseo), so a
reload or a restart launches without it; plugins add env on every open.

The built-in scripted provider reads each message line as a step: say TEXT, run COMMAND
(asks permission), ask COMMAND (asks and goes on), tool NAME JSON (over MCP), env NAME,
credits, fail MESSAGE, sleep MS.")]
    Create {
        #[arg(long, value_name = "ID")]
        workspace: Option<String>,
        #[arg(long, value_name = "DIR")]
        cwd: Option<String>,
        /// scripted (the default), another built-in one or a plugin's (`paseo provider ls`)
        #[arg(long, value_name = "P")]
        provider: Option<String>,
        #[arg(long, value_name = "T", allow_hyphen_values = true)]
        title: Option<String>,
        /// A label, K=V; repeat for several
        #[arg(long, value_name = "K=V")]
        label: Vec<String>,
        /// An environment variable for the first launch, K=V; repeat for several
        #[arg(long, value_name = "K=V")]
        env: Vec<String>,
        /// The first message
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        prompt: Option<String>,
    },
    /// Sends a message to an agent
    Send {
        id: String,
        /// The message; the scripted provider reads each line as a step
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// Waits for the turn to finish
        #[arg(long)]
        wait: bool,
    },
    /// Waits for an agent's turn to finish
    Wait { id: String },
    /// Cancels an agent's running turn
    Cancel { id: String },
    /// Shows an agent and its timeline
    Show { id: String },
    /// Lists agents
    Ls,
    /// Archives an agent
    Archive { id: String },
    /// Reloads an agent; interrupts a running turn
    Reload { id: String },
    /// Closes an agent; interrupts a running turn and keeps the agent
    Close { id: String },
}

#[derive(Subcommand, Debug)]
pub enum PermissionCommand {
    /// Answers an agent's pending permission request: allow or deny
    Respond {
        #[arg(value_name = "AGENT-ID")]
        agent_id: String,
        #[arg(value_name = "REQUEST-ID")]
        request_id: String,
        /// allow or deny
        #[arg(value_name = "allow|deny")]
        behavior: String,
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        message: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum ListCommand {
    /// Lists the built-in agent providers and the ones plugins provide
    /// (`agent create --provider ID` runs an agent on a plugin's provider)
    Ls,
}

#[derive(Subcommand, Debug)]
pub enum ForgeCommand {
    /// Lists the forge providers plugins provide
    Ls,
    /// Calls a forge provider's method (180 s per call)
    Call {
        provider: String,
        method: String,
        /// JSON, @FILE or - (stdin)
        input: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum UsageCommand {
    /// Lists the usage sources plugins provide
    Ls,
    /// Fetches a usage source's report
    Fetch {
        source: String,
        /// JSON, @FILE or - (stdin)
        input: Option<String>,
    },
    /// Discovers a usage source's accounts
    Discover {
        source: String,
        /// JSON, @FILE or - (stdin); default {"kind":"global"}
        scope: Option<String>,
    },
    /// Identifies a usage source's account
    Identify {
        source: String,
        /// JSON, @FILE or - (stdin)
        input: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum AttachmentCommand {
    /// Runs an attachment source's search RPC with { query } and checks its result
    Search {
        plugin: String,
        method: String,
        #[arg(allow_hyphen_values = true)]
        query: String,
    },
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The plugin to load
    #[arg(long, value_name = "DIR")]
    pub plugin: PathBuf,
    /// How many copies of the plugin to load
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = positive)]
    pub plugins: usize,
    /// Waiting-hook calls to time
    #[arg(long, value_name = "M", default_value_t = 2000, value_parser = positive)]
    pub iterations: usize,
    /// Notifications to fire together
    #[arg(long, value_name = "K", default_value_t = 5000, value_parser = positive)]
    pub events: usize,
    /// The waiting request hook to time
    #[arg(long, value_name = "NAME", default_value = "agent.open.before")]
    pub hook: String,
    /// Also time calls of this agent tool (attached by the plugin in agent.open.before)
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,
    /// The tool's input
    #[arg(long, value_name = "JSON", value_parser = json_value)]
    pub tool_input: Option<Value>,
    /// Keeps QuickJS bytecode in DIR
    #[arg(long, value_name = "DIR")]
    pub bytecode_cache: Option<PathBuf>,
    /// Keeps V8's startup snapshot in DIR
    #[arg(long, value_name = "DIR")]
    pub snapshot_cache: Option<PathBuf>,
    /// Boots every isolate on demand
    #[arg(long)]
    pub no_standby: bool,
    /// HostOptions::spin in microseconds (0: threads sleep at once)
    #[arg(long, value_name = "N")]
    pub spin_us: Option<u64>,
    /// Prints one JSON object instead of a table
    #[arg(long)]
    pub json: bool,
    /// Runs the plugins under a policy (what its checks cost)
    #[command(flatten)]
    pub allow: AllowFlags,
}

fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("needs a positive number".into()),
    }
}

fn json_value(s: &str) -> Result<Value, String> {
    serde_json::from_str(s).map_err(|e| format!("not JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
