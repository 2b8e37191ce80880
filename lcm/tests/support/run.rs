//! Runs the `lcm` binary of this build in a given directory (so that relative paths in its
//! arguments and messages are those the test wrote), for the CLI test files.

use std::path::Path;
use std::process::Command;

/// Exit code (-1 when killed by a signal), stdout and stderr of `lcm ARGS` run in `dir`.
pub fn lcm(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lcm"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run lcm");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
