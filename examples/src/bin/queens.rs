//! Runs one n-queens version at one (n, k, p): `queens --impl tree -n 13 -k 1000 -p 2`.
//! With `PPLIB_LOG=run.pplog` in the environment the run is profiled into that file.

use anyhow::Result;
use clap::Parser;
use examples::queens::{self, QueensImpl};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    about = "Count the first k solutions of n-queens: tree parallelism (one parallel loop over all depth-2 subtrees, speculative) or loop parallelism (depth-1 groups in order)",
    after_help = "Examples:\n  queens --impl tree -n 13 -k 1000 -p 2\n  PPLIB_LOG=loop.pplog queens --impl loop -n 12 -k 14200 -p 2 --iters 10\n\nThe last line is: queens: impl=I n=N k=K p=P iters=R time_s=S solutions=C"
)]
struct Cli {
    /// Parallel structure: tree or loop.
    #[arg(long = "impl", value_parser = ["tree", "loop"], default_value = "tree")]
    imp: String,
    /// Board size n (n×n, 4 to 20).
    #[arg(short, default_value_t = 12)]
    n: u32,
    /// Solutions to find (the search stops after the first k in serial order).
    #[arg(short, default_value_t = 1000)]
    k: u64,
    /// Processors (threads).
    #[arg(short, default_value_t = 2)]
    p: usize,
    /// Repetitions of the whole count (a longer run to time).
    #[arg(long, default_value_t = 1)]
    iters: u64,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let imp = if cli.imp == "tree" {
        QueensImpl::Tree
    } else {
        QueensImpl::Loop
    };
    let log = std::env::var_os("PPLIB_LOG")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let run = queens::run(imp, cli.n, cli.k, cli.p, cli.iters, log.as_deref())?;
    println!(
        "queens: impl={} n={} k={} p={} iters={} time_s={:.6} solutions={}",
        imp.name(),
        cli.n,
        cli.k,
        cli.p,
        cli.iters,
        run.seconds,
        run.solutions
    );
    Ok(())
}
