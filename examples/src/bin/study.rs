//! The end-to-end lost-cycles study: measure one parallel structure, fit, predict
//! another with lcm before it runs, run it, compare. See `examples::study`.

use anyhow::{bail, Result};
use clap::Parser;
use examples::study::design::ProgramKind;
use examples::study::{run_study, Config};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    about = "Measure DP 2D FFT, fit its fragments (lca), predict TP (lcm) before running it, then run TP and compare",
    after_help = "Examples:\n  study                      # 2D FFT, full design, report in study-fft/\n  study --quick              # smallest sizes (<= 2 minutes)\n  study --program queens     # n-queens: measure loop parallelism, predict tree parallelism\n  study --program histogram --out /tmp/h   # one lock vs sharded locks\n\nIn the table, `~` after the ranking marks a point where the two predictions differ by less\nthan their uncertainty (too close to call).\n`=` after the ranking marks a measured tie: the two measured times differ by less than\ntheir run-to-run spread (the line before the last counts those apart).\nThe last line is: study: points=N mean_err_pct=X max_err_pct=Y ranking_correct=K/N"
)]
struct Cli {
    /// Smallest sizes, fewer repetitions.
    #[arg(long)]
    quick: bool,
    /// Program: fft, queens or histogram.
    #[arg(long, default_value = "fft", value_parser = ["fft", "queens", "histogram"])]
    program: String,
    /// Report directory (default: study-PROGRAM).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Largest p (default: the available cores).
    #[arg(long)]
    cores: Option<usize>,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// Print the per-point results as JSON (fields: n, p, iters, predicted_s, measured_s,
    /// err_pct, base_predicted_s, base_measured_s (timed round robin with the predicted
    /// version), base_calibrated_s (in the calibration phase), ranking_correct, uncertainty
    /// (relative), too_close_to_call, noise (relative run-to-run spread of the two measured
    /// times), measured_tie) before the summary line.
    #[arg(long)]
    json: bool,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let Some(program) = ProgramKind::parse(&cli.program) else {
        bail!(
            "unknown program {:?}: expected fft, queens or histogram",
            cli.program
        );
    };
    let mut cfg = Config::new(program);
    cfg.quick = cli.quick;
    cfg.verbose = !cli.quiet;
    if let Some(out) = cli.out {
        cfg.out = out;
    }
    if let Some(c) = cli.cores {
        if c == 0 {
            bail!("--cores must be at least 1");
        }
        cfg.cores = c;
    }
    let r = run_study(&cfg)?;
    let (base, other) = (r.case.base.name, r.case.other.name);
    if cli.json {
        let pts: Vec<serde_json::Value> = r
            .points
            .iter()
            .map(|p| {
                serde_json::json!({
                    "n": p.n, "p": p.p, "iters": p.iters,
                    "predicted_s": p.predicted, "measured_s": p.measured, "err_pct": p.err_pct(),
                    "base_predicted_s": p.predicted_base, "base_measured_s": p.measured_base,
                    "base_calibrated_s": p.calibrated_base,
                    "ranking_correct": p.ranking_correct(),
                    "uncertainty": p.uncertainty, "too_close_to_call": p.too_close_to_call(),
                "noise": p.noise, "measured_tie": p.measured_tie(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&pts)?);
    } else {
        println!(
            "{:>8} {:>3} {:>6} {:>12} {:>12} {:>7} {:>12} {:>12} {:>8}",
            r.case.size_var,
            "p",
            "iters",
            format!("{other} pred s"),
            format!("{other} meas s"),
            "err %",
            format!("{base} pred s"),
            format!("{base} meas s"),
            "ranking"
        );
        for p in &r.points {
            println!(
                "{:>8} {:>3} {:>6} {:>12.5} {:>12.5} {:>7.1} {:>12.5} {:>12.5} {:>8}",
                p.n,
                p.p,
                p.iters,
                p.predicted,
                p.measured,
                p.err_pct(),
                p.predicted_base,
                p.measured_base,
                format!(
                    "{}{}{}",
                    if p.ranking_correct() {
                        "right"
                    } else {
                        "WRONG"
                    },
                    if p.too_close_to_call() { "~" } else { "" },
                    if p.measured_tie() { "=" } else { "" }
                )
            );
        }
        for f in &r.findings {
            println!("shortfall: {f}");
        }
    }
    let c = &r.conditions;
    let quiet: usize = c.timings.iter().map(|t| t.quiet).sum();
    let reps: usize = c.timings.iter().map(|t| t.reps).sum();
    let la = |l: Option<(f64, f64, f64)>| l.map_or("?".to_string(), |(a, _, _)| format!("{a:.2}"));
    println!(
        "load: average {} before, {} after; {quiet}/{reps} repetitions quiet; waited {:.1} s for other load; study took {:.1} s",
        la(c.load_before),
        la(c.load_after),
        c.waited,
        r.elapsed
    );
    println!("report: {}", cfg.out.join("README.md").display());
    if let Some(d) = examples::study::compare::drift_line(&r.points, base) {
        println!("{d}");
    }
    println!("{}", r.summary.ties_line());
    println!("{}", r.summary.line());
    Ok(())
}
