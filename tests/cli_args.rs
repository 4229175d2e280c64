//! `paseo`'s command line (issue 31): `--version`, `--help` on every command, usage errors
//! (exit 2) before any daemon is asked, suggestions for a mistyped command, shell completions.

use std::process::{Command, Output};

/// `paseo ARGS` with a home where no daemon runs: anything that reached for the daemon would
/// say "The Paseo daemon is not running".
fn paseo(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_paseo"))
        .env("PASEO_HOME", home.path())
        .env_remove("PASEO_LOG")
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_no_daemon_asked(out: &Output) {
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!all.contains("daemon is not running"), "{all}");
}

#[test]
fn version_prints_the_crate_version_and_the_engine() {
    let engine = if cfg!(feature = "v8") {
        "V8 "
    } else {
        "QuickJS-NG (v8x, V8's API over QuickJS)"
    };
    for flag in ["--version", "-V"] {
        let out = paseo(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let line = text(&out.stdout);
        let prefix = format!("paseo {} ({engine}", env!("CARGO_PKG_VERSION"));
        assert!(
            line.starts_with(&prefix),
            "{line:?} should start {prefix:?}"
        );
        assert!(line.trim_end().ends_with(')'), "{line:?}");
    }
    if cfg!(feature = "v8") {
        // A version of V8 itself ("15.0.245.4-rusty"), not the crate's.
        let line = text(&paseo(&["--version"]).stdout);
        let v8 = line.split("(V8 ").nth(1).unwrap();
        let numbers: Vec<&str> = v8.split('.').take(3).collect();
        assert!(
            numbers.len() == 3 && numbers.iter().all(|p| p.parse::<u32>().is_ok()),
            "{line:?}"
        );
    }
}

#[test]
fn help_on_a_command_shows_its_help_without_a_daemon() {
    let out = paseo(&["plugin", "install", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let help = text(&out.stdout);
    assert!(
        help.contains("Usage: paseo plugin install [OPTIONS] <SOURCE>"),
        "{help}"
    );
    // The text `paseo help` gives the command.
    assert!(
        help.contains("npm:<package>[@version], github:owner/repo"),
        "{help}"
    );
    for flag in ["--id", "--ref", "--path", "--json"] {
        assert!(help.contains(flag), "{flag} in {help}");
    }
    assert_no_daemon_asked(&out);
    assert!(
        !text(&out.stderr).contains("Trusting plugin code"),
        "nothing was installed"
    );

    // `help COMMAND` is the same help; `-h` a summary.
    let out = paseo(&["help", "plugin", "install"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), help);
    let out = paseo(&["agent", "create", "-h"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("--prompt <TEXT>"));
}

#[test]
fn help_without_a_command_prints_the_usage_of_every_command() {
    let usage = text(&paseo(&["help"]).stdout);
    assert!(
        usage.starts_with("usage:\n  paseo hook run --plugin DIR"),
        "{usage}"
    );
    for line in [
        "  paseo plugin install SOURCE [--id ID] [--ref GIT_REF] [--path SUBDIR]",
        "  paseo attachment search PLUGIN METHOD QUERY",
        "  paseo completions bash|zsh|fish",
    ] {
        assert!(usage.contains(line), "{line} in {usage}");
    }
    for args in [&[][..], &["--help"], &["-h"]] {
        let out = paseo(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(text(&out.stdout), usage, "{args:?}");
    }
}

#[test]
fn an_unknown_flag_is_refused_before_the_daemon_is_asked() {
    let out = paseo(&["agent", "create", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("error: unexpected argument '--bogus' found"),
        "{stderr}"
    );
    assert!(stderr.contains("Usage: paseo agent create"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_no_daemon_asked(&out);
}

#[test]
fn a_missing_argument_is_a_usage_error() {
    let out = paseo(&["agent", "send", "agent-1", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the following required arguments were not provided"),
        "{stderr}"
    );
    assert!(stderr.contains("<TEXT>"), "{stderr}");
    assert_no_daemon_asked(&out);
}

#[test]
fn a_mistyped_command_gets_a_suggestion() {
    let out = paseo(&["plgin", "ls"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("error: unrecognized subcommand 'plgin'"),
        "{stderr}"
    );
    assert!(stderr.contains("'plugin'"), "{stderr}");
    assert!(stderr.contains("tip:"), "{stderr}");
    assert!(
        !stderr.contains("paseo hook run"),
        "not the whole usage: {stderr}"
    );

    let stderr = text(&paseo(&["agent", "craete"]).stderr);
    assert!(stderr.contains("'create'"), "{stderr}");
}

#[test]
fn a_flag_still_goes_after_the_arguments_and_text_may_start_with_a_hyphen() {
    // Parsed, so the daemon is asked (and is not there): exit 1 with the JSON error.
    for args in [
        &[
            "agent",
            "send",
            "agent-1",
            "- a list item",
            "--wait",
            "--json",
        ][..],
        &["agent", "create", "--prompt", "-x", "--json"],
        &[
            "plugin",
            "update",
            "greeter",
            "--version",
            "1.0.0",
            "--json",
        ],
        &["plugin", "ls", "--json"],
    ] {
        let out = paseo(args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .starts_with("The Paseo daemon is not running"),
            "{args:?}: {answer}"
        );
    }
}

#[test]
fn completions_print_a_script_for_the_shell() {
    for (shell, marker) in [
        ("bash", "_paseo()"),
        ("zsh", "#compdef paseo"),
        ("fish", "complete -c paseo"),
    ] {
        let out = paseo(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("paseo"), "{shell}");
        assert!(
            script.contains("install"),
            "{shell}: the commands are in it"
        );
    }
    let out = paseo(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}
