//! The `lca` command line.
fn main() {}
