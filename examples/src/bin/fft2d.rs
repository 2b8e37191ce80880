//! Runs one 2D FFT version at one (n, p): `fft2d --impl dp -n 256 -p 2 --iters 4`.
//! With `PPLIB_LOG=run.pplog` in the environment the run is profiled into that file.

use anyhow::Result;
use clap::Parser;
use examples::fft::{self, FftImpl};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    about = "2D FFT of n×n complex matrices, data parallel (dp) or task parallel (tp)",
    after_help = "Examples:\n  fft2d --impl dp -n 256 -p 2 --iters 4\n  PPLIB_LOG=tp.pplog fft2d --impl tp -n 512 -p 2"
)]
struct Cli {
    /// Parallel structure: dp (four parallel loops) or tp (two pipelined tasks, p/2 threads each).
    #[arg(long = "impl", value_parser = ["dp", "tp"], default_value = "dp")]
    imp: String,
    /// Matrix size n (n×n complex values).
    #[arg(short, default_value_t = 256)]
    n: usize,
    /// Processors (threads); tp needs p ≥ 2.
    #[arg(short, default_value_t = 2)]
    p: usize,
    /// Iterations (matrices transformed).
    #[arg(long, default_value_t = 4)]
    iters: usize,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let imp = if cli.imp == "dp" {
        FftImpl::Dp
    } else {
        FftImpl::Tp
    };
    let log = std::env::var_os("PPLIB_LOG")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let run = fft::run(imp, cli.n, cli.p, cli.iters, log.as_deref())?;
    println!(
        "fft2d: impl={} n={} p={} iters={} time_s={:.6} checksum={:.6e}",
        imp.name(),
        cli.n,
        cli.p,
        cli.iters,
        run.seconds,
        run.checksum
    );
    Ok(())
}
