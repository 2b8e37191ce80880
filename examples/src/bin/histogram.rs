//! Runs one shared-histogram version at one (n, p): `histogram --impl locked -n 1048576 -p 2`.
//! With `PPLIB_LOG=run.pplog` in the environment the run is profiled into that file.

use anyhow::Result;
use clap::Parser;
use examples::histogram::{self, HistogramImpl};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    about = "Fill a shared histogram of n keys from p threads: one pplib::sync::Mutex (locked) or one per shard (sharded)",
    after_help = "Examples:\n  histogram --impl locked -n 1048576 -p 2\n  PPLIB_LOG=sharded.pplog histogram --impl sharded -n 4194304 -p 2\n\nThe last line is: histogram: impl=I n=N p=P time_s=S total=T"
)]
struct Cli {
    /// Locking structure: locked or sharded.
    #[arg(long = "impl", value_parser = ["locked", "sharded"], default_value = "locked")]
    imp: String,
    /// Number of keys (0..n) counted.
    #[arg(short, default_value_t = 1 << 20)]
    n: u64,
    /// Processors (threads).
    #[arg(short, default_value_t = 2)]
    p: usize,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let imp = if cli.imp == "locked" {
        HistogramImpl::Locked
    } else {
        HistogramImpl::Sharded
    };
    let log = std::env::var_os("PPLIB_LOG")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let run = histogram::run(imp, cli.n, cli.p, log.as_deref())?;
    println!(
        "histogram: impl={} n={} p={} time_s={:.6} total={}",
        imp.name(),
        cli.n,
        cli.p,
        run.seconds,
        run.counts.iter().sum::<u64>()
    );
    Ok(())
}
