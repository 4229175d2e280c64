#![allow(dead_code)]
//! A test that cannot run on this machine says so where CI's log shows it: the line goes to
//! stderr (shown only for failing tests) and to the file `scripts/test` names in
//! `PASEO_TEST_SKIP_LOG`, which it prints at the end of the run.

use std::io::Write;

pub fn skipped(test: &str, reason: &str) {
    eprintln!("SKIPPED {test}: {reason}");
    if let Some(path) = std::env::var_os("PASEO_TEST_SKIP_LOG") {
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(file, "SKIPPED {test}: {reason}");
        }
    }
}
