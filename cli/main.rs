//! `paseo`: the command line of the plugin engine. A throwaway host for trying plugins (`hook
//! run`, `plugin inspect`, `rpc call`, `tool list|call`), the reference daemon and the commands
//! that drive it over its control socket, `plugin dev`, `demo` and `bench`.

mod args;
mod bench;
mod commands;
mod daemon;
mod demo;
mod dev;
mod output;
mod scaffold;
mod throwaway;

use std::process::ExitCode;

use clap::CommandFactory;

use args::{Cli, Command, DaemonCommand, USAGE};
use daemon::home::paseo_home;

/// The daemon's threads hand memory to one another on every call; see Cargo.toml.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A usage error (exit 2), `--help` or `--version` (exit 0) ends here, before a daemon is
    // asked anything.
    let Some(command) = Cli::from_env().command else {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    };
    // Without PASEO_LOG: errors, and the daemon's own warnings (a torn journal line dropped, a
    // home others may write to, a refused peer), which a user must see to act on.
    let filter = match std::env::var("PASEO_LOG") {
        Ok(directives) => tracing_subscriber::EnvFilter::new(directives),
        Err(_) if matches!(command, Command::Daemon { .. }) => {
            tracing_subscriber::EnvFilter::new("error,paseo::daemon=warn")
        }
        Err(_) => tracing_subscriber::EnvFilter::new("error"),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let home = paseo_home();
    let result = runtime.block_on(async {
        match command {
            Command::Hook { command } => throwaway::hook(command).await,
            Command::Rpc { command } => throwaway::rpc(command).await,
            Command::Tool { command } => throwaway::tool(command).await,
            Command::Bench(args) => bench::run(&args).await,
            Command::Demo => demo::run().await,
            Command::Daemon {
                command,
                metrics,
                inspect,
                inspect_plugin,
                record,
            } => {
                let stop = matches!(command, Some(DaemonCommand::Stop));
                let inspect = inspect.chosen().map(|(addr, brk)| {
                    let plugins = (!inspect_plugin.is_empty()).then_some(inspect_plugin);
                    (addr, paseo_plugin_runtime::InspectOptions { plugins, brk })
                });
                commands::daemon(&home, stop, metrics, inspect, record).await
            }
            Command::Plugin(p) => commands::plugin(&home, p.command, p.out.json).await,
            Command::Plugins(g) => commands::plugins_switch(&home, g.command, g.out.json).await,
            Command::Agent(g) => commands::agent(&home, g.command, g.out.json).await,
            Command::Permission(g) => commands::permission(&home, g.command, g.out.json).await,
            Command::Workspace(g) => commands::workspace(&home, g.command, g.out.json).await,
            Command::Provider(g) => commands::provider(&home, g.command, g.out.json).await,
            Command::Forge(g) => commands::forge(&home, g.command, g.out.json).await,
            Command::Usage(g) => commands::usage(&home, g.command, g.out.json).await,
            Command::Attachment(g) => commands::attachment(&home, g.command, g.out.json).await,
            Command::Completions { shell } => completions(shell),
        }
    });
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("paseo: {message}");
            ExitCode::from(2)
        }
    }
}

/// `paseo completions SHELL`: the script on stdout (a closed pipe is not an error).
fn completions(shell: clap_complete::Shell) -> Result<ExitCode, String> {
    use std::io::Write;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "paseo", &mut script);
    let _ = std::io::stdout().write_all(&script);
    Ok(ExitCode::SUCCESS)
}
