//! The `lcm` command line: a thin layer over the `lcm` library.
use clap::Parser;

mod cli;

fn main() {
    let cli = cli::Cli::parse();
    let code = cli::run(cli);
    std::process::exit(code);
}
