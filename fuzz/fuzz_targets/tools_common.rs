#![allow(dead_code)] // each target uses part of this module
//! Shared by the lca and lcm fuzz targets: run a check on a thread with the stack the
//! `lcm` binary gives its command (the parsers bound nesting; what walks the trees
//! recurses once per level, and sanitizers enlarge every frame), and what every error
//! message must satisfy.

/// The stack of the `lcm` binary's command thread.
const STACK_BYTES: usize = 256 << 20;

/// Runs `f` on a thread with the binary's stack; a panic there is a panic here.
pub fn on_big_stack(f: impl FnOnce() + Send + 'static) {
    let r = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(f)
        .expect("spawning the fuzz thread")
        .join();
    if let Err(p) = r {
        std::panic::resume_unwind(p);
    }
}

/// An error message is one line, and quotes at most a bounded piece of the input.
pub fn check_message(msg: &str, input_len: usize) {
    assert!(!msg.contains('\n'), "multi-line error: {msg}");
    assert!(
        msg.len() <= 2_000 || msg.len() <= input_len.min(2_000) + 500,
        "a {} byte message",
        msg.len()
    );
}

/// The bytes as text (lossy: invalid UTF-8 becomes U+FFFD, as if a file had it).
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}
