//! The `lcm` command line.
fn main() {}
