//! What the `pp` command-line test files share: running the `pp` binary of this build, its
//! output as text, the fixtures of `tests/fixtures`, and a small binary log. Each test file
//! uses a part of it, hence `dead_code` is allowed here.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pplib::log::binary::{ChunkEncoder, LogWriter};
use pplib::log::{EventKind, Header, Nanos, ThreadId};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

pub fn pp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pp"))
        .args(args)
        .env_remove("PPLIB_LOG")
        .output()
        .unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The docs/predicates.md example as a binary log (2 threads), bytes.
pub fn binary_example() -> Vec<u8> {
    let header = Header {
        version: pplib::log::binary::VERSION,
        processors: 2,
        clock: "test".to_owned(),
        ..Header::default()
    };
    let mut w = LogWriter::new(Vec::new(), &header).unwrap();
    let mut c0 = ChunkEncoder::new(ThreadId(0));
    for (t, k) in [
        (0, EventKind::SessionBegin),
        (1_000_000, EventKind::ParBegin),
        (1_000_000, EventKind::TaskBegin),
        (2_000_000, EventKind::TaskEnd { wasted: false }),
        (3_000_000, EventKind::ParEnd),
        (3_000_000, EventKind::SessionEnd),
    ] {
        c0.event(Nanos(t), &k);
    }
    let mut c1 = ChunkEncoder::new(ThreadId(1));
    c1.event(Nanos(1_000_000), &EventKind::TaskBegin);
    c1.event(Nanos(3_000_000), &EventKind::TaskEnd { wasted: false });
    w.chunk(&c0).unwrap();
    w.chunk(&c1).unwrap();
    w.finish().unwrap()
}

pub fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}
