//! The `lcm` command line: a thin layer over the `lcm` library.
use clap::Parser;

mod cli;

/// Stack of the thread that runs the command. The parsers refuse nesting beyond fixed
/// depths, and the code that walks what they accept recurses once per level; a known,
/// generous stack makes those limits safe whatever the platform's main-thread default.
/// Only the pages actually used are ever committed.
const STACK_BYTES: usize = 256 << 20;

fn main() {
    let cli = cli::Cli::parse();
    let code = std::thread::Builder::new()
        .name("lcm".into())
        .stack_size(STACK_BYTES)
        .spawn(move || cli::run(cli))
        .expect("spawning the lcm thread")
        .join()
        .unwrap_or(101);
    std::process::exit(code);
}
