//! The `pp` command line.
fn main() {}
