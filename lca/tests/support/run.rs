//! Runs the `lca` binary of this build from the crate's directory (so fixture paths are
//! relative to it), for the CLI test files.

use std::process::Command;

/// Exit code (-1 when killed by a signal), stdout and stderr of `lca ARGS`.
pub fn lca(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lca"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
