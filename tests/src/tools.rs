//! The workspace's command-line tools as the end-to-end tests run them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The binaries `names` of the calling test's build profile (`pp`, `pp-campaign`, `lca`,
/// …), in the order given. `cargo test --workspace` builds them with the tests (they are
/// the binaries of workspace members with integration tests); when one is missing (`cargo
/// test -p tests` alone builds no other package's binary) they are built here, once, into
/// the same target directory and profile, so that the libraries' features resolve as in
/// the test's own build. `packages` are the packages that hold them. Panics (failing the
/// test) when the build fails.
pub fn tools(names: &[&str], packages: &[&str]) -> Vec<PathBuf> {
    let exe = std::env::current_exe().expect("the test's path");
    // target/PROFILE/deps/TEST-HASH
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("a profile directory")
        .to_path_buf();
    let paths: Vec<PathBuf> = names.iter().map(|n| profile_dir.join(n)).collect();
    if paths.iter().all(|p| p.is_file()) {
        return paths;
    }
    let target = profile_dir.parent().expect("a target directory");
    let mut build = Command::new(env!("CARGO"));
    build.args(["build", "--quiet", "--bins"]);
    for package in packages {
        build.args(["-p", package]);
    }
    build
        .arg("--target-dir")
        .arg(target)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    let status = build.status().expect("run cargo build");
    assert!(status.success(), "building {packages:?} failed");
    paths
}
