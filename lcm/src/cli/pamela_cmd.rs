//! `lcm pamela` (compile a PAMELA model to its symbolic time model) and `lcm simulate`
//! (discrete-event simulation of the same model).
use std::path::{Path, PathBuf};

use clap::Args;
use lcm::pamela::{self, fmt_num, Arbitration, Bindings, PamelaError, Program, SimOptions};
use serde_json::json;

const PAMELA_EXAMPLES: &str = "\
Examples:
  lcm pamela mrm.pam                               symbolic T_main in the parameters
  lcm pamela mrm.pam --set P=1000 --set N=1000000  last line: T_main = 100000000
  lcm pamela mrm.pam --grid P=1..64 --grid N=1000,2000 [--json]
  lcm pamela mrm.pam --normal-form                 show the substituted model first

Output: phi (critical path), omega (contention bound) and T_main (the lower bound of the
recursive rule, thesis Eq. 3.15), simplified. The last line is `T_main = VALUE` when every
parameter has a value, else `T_main = EXPRESSION`.

--json (single model): {\"file\", \"unset\": [names], \"phi\", \"omega\", \"t_main\" (printed
expressions), \"value\": number or null (T_main when every parameter is set)}.
--json with --grid: {\"file\", \"columns\": [grid names..., \"phi\", \"omega\", \"t_main\"],
\"rows\": [[numbers...]]}.";

const SIMULATE_EXAMPLES: &str = "\
Examples:
  lcm simulate mrm.pam --set P=11 --set N=1000 --runs 20 --seed 7
  lcm simulate pipeline.pam --set N=8 --set M=8 --json
  lcm simulate ring.pam --set P=8 --arbitration fifo    # thesis Table 6.2: T=43

The last line is `simulated: T=MEAN sd=SD runs=K T_lower=TL ratio=R` with R = TL/MEAN.
Equal virtual times are arbitrated randomly from the seed (--arbitration fifo: the PAMELA
run-time library's deterministic order); exp(mean) and uniform(a,b) time arguments are
drawn per execution.

--json: {\"file\", \"mean\", \"sd\", \"runs\", \"seed\", \"t_lower\", \"ratio\", \"events\",
\"samples\": [completion time of each run]}.";

/// Arguments of `lcm pamela`.
#[derive(Args, Debug)]
#[command(after_help = PAMELA_EXAMPLES)]
pub struct PamelaArgs {
    /// The PAMELA model (text, `%` comments).
    pub file: PathBuf,
    /// Give a parameter (or a numeric of the model) a value.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Evaluate on a grid: NAME=A..B (integers, inclusive), NAME=A..B:STEP or NAME=V1,V2,...
    #[arg(long = "grid", value_name = "NAME=VALUES")]
    pub grid: Vec<String>,
    /// Machine-readable output (fields in --help).
    #[arg(long)]
    pub json: bool,
    /// Print the main process in normal form (every equation substituted) before the
    /// time model.
    #[arg(long)]
    pub normal_form: bool,
}

/// `--arbitration` values.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArbitrationArg {
    /// Random order among equal times.
    Random,
    /// The PAMELA run-time library's deterministic order (thesis appendix E): first
    /// enqueued first, a delaying process keeps control unless another is due earlier.
    Fifo,
}

/// Arguments of `lcm simulate`.
#[derive(Args, Debug)]
#[command(after_help = SIMULATE_EXAMPLES)]
pub struct SimulateArgs {
    /// The PAMELA model.
    pub file: PathBuf,
    /// Give a parameter (or a numeric of the model) a value.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Number of replications.
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Random seed (arbitration of equal times, stochastic delays).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Order of events at equal virtual times: random (from the seed; every
    /// arbitration the language allows) or fifo (the PAMELA run-time library's
    /// deterministic order, which gives the thesis's simulated values, e.g. Table 6.2).
    #[arg(long, value_enum, default_value_t = ArbitrationArg::Random)]
    pub arbitration: ArbitrationArg,
    /// Stop after this many events (all runs together).
    #[arg(long, default_value_t = pamela::DEFAULT_MAX_EVENTS)]
    pub max_events: u64,
    /// Machine-readable output (fields in --help).
    #[arg(long)]
    pub json: bool,
}

enum Fail {
    Usage(String),
    Input(String),
}

fn input(file: &Path, e: PamelaError) -> Fail {
    Fail::Input(format!("{}: {e}", file.display()))
}

fn parse_set(s: &str) -> Result<(String, f64), Fail> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| Fail::Usage(format!("--set expects NAME=VALUE, got `{s}`")))?;
    let v: f64 = v
        .trim()
        .parse()
        .map_err(|_| Fail::Usage(format!("--set {k}: expected a number, got `{v}`")))?;
    Ok((k.trim().to_string(), v))
}

/// The most points a grid, and each of its axes, may have.
const MAX_GRID_POINTS: usize = 1_000_000;

fn parse_grid(s: &str) -> Result<(String, Vec<f64>), Fail> {
    let bad = || {
        Fail::Usage(format!(
            "--grid expects NAME=A..B, NAME=A..B:STEP or NAME=V1,V2,..., got `{s}`"
        ))
    };
    let (k, v) = s.split_once('=').ok_or_else(bad)?;
    let values = if let Some((a, rest)) = v.split_once("..") {
        let (b, step) = match rest.split_once(':') {
            Some((b, st)) => (b, st.trim().parse::<f64>().map_err(|_| bad())?),
            None => (rest, 1.0),
        };
        let a: f64 = a.trim().parse().map_err(|_| bad())?;
        let b: f64 = b.trim().parse().map_err(|_| bad())?;
        if !(step > 0.0 && a.is_finite() && b >= a && b.is_finite() && step.is_finite()) {
            return Err(Fail::Usage(format!(
                "--grid {}: expected A..B with A <= B and a positive STEP, got `{v}`",
                k.trim()
            )));
        }
        let points = (b - a) / step + 1.0;
        if points > MAX_GRID_POINTS as f64 {
            return Err(Fail::Usage(format!(
                "--grid {}: `{v}` has {points:.0} points, more than the {MAX_GRID_POINTS} a \
                 grid may have (use a larger :STEP)",
                k.trim()
            )));
        }
        let n = ((b - a) / step + 1e-9).floor() as usize;
        (0..=n).map(|k| a + step * k as f64).collect()
    } else {
        v.split(',')
            .map(|x| x.trim().parse::<f64>().map_err(|_| bad()))
            .collect::<Result<Vec<_>, _>>()?
    };
    if let Some(x) = values.iter().find(|x| !x.is_finite()) {
        return Err(Fail::Usage(format!(
            "--grid {}: expected finite numbers, got {x}",
            k.trim()
        )));
    }
    if values.is_empty() {
        return Err(bad());
    }
    Ok((k.trim().to_string(), values))
}

fn load(file: &Path, sets: &[String]) -> Result<Program, Fail> {
    let text =
        lcm::read_input(file).map_err(|e| Fail::Input(format!("{}: {e}", file.display())))?;
    let mut program = pamela::parse(&text).map_err(|e| input(file, e))?;
    for s in sets {
        let (k, v) = parse_set(s)?;
        program.set(&k, v).map_err(|e| input(file, e))?;
    }
    Ok(program)
}

/// The most characters of an error message printed: a message quotes names and tokens of
/// the input, which a hostile file can make megabytes long.
const MAX_MESSAGE_CHARS: usize = 1000;

/// `m` cut to [`MAX_MESSAGE_CHARS`] characters, saying how much was left out.
pub(super) fn shorten(m: &str) -> std::borrow::Cow<'_, str> {
    match m.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => m.into(),
        Some((cut, _)) => format!("{}… ({} more bytes)", &m[..cut], m.len() - cut).into(),
    }
}

fn finish(r: Result<(), Fail>, cmd: &str) -> i32 {
    match r {
        Ok(()) => 0,
        Err(Fail::Usage(m)) => {
            eprintln!("lcm {cmd}: {}", shorten(&m));
            2
        }
        Err(Fail::Input(m)) => {
            eprintln!("lcm {cmd}: {}", shorten(&m));
            1
        }
    }
}

/// `lcm pamela`.
pub fn run_pamela(a: PamelaArgs) -> i32 {
    finish(pamela_inner(&a), "pamela")
}

fn pamela_inner(a: &PamelaArgs) -> Result<(), Fail> {
    let program = load(&a.file, &a.set)?;
    let model = program.compile().map_err(|e| input(&a.file, e))?;
    if a.normal_form && !a.json {
        let nf = program.normal_form().map_err(|e| input(&a.file, e))?;
        let params = program.parameters();
        for p in &params {
            if a.set
                .iter()
                .all(|s| s.split('=').next().map(str::trim) != Some(p.as_str()))
            {
                outln!("numeric parameter {p}");
            }
        }
        outln!(
            "process {} = {nf}",
            program.main_name().map_err(|e| input(&a.file, e))?
        );
    }
    if !a.grid.is_empty() {
        return grid(a, &model);
    }
    let unset: Vec<String> = model.parameters().to_vec();
    let value = if unset.is_empty() {
        Some(
            model
                .eval_parts(&Bindings::new())
                .map_err(|e| input(&a.file, e))?,
        )
    } else {
        None
    };
    if a.json {
        let out = json!({
            "file": a.file.display().to_string(),
            "unset": unset,
            "phi": model.phi().to_string(),
            "omega": model.omega().to_string(),
            "t_main": model.t_main().to_string(),
            "value": value.map(|v| v.0),
        });
        outln!("{}", lcm::json_out::pretty(&out));
        return Ok(());
    }
    outln!("model: {}", a.file.display());
    match &value {
        Some((t, phi, omega)) => {
            outln!("phi = {}", fmt_num(*phi));
            outln!("omega = {}", fmt_num(*omega));
            outln!("T_main = {}", fmt_num(*t));
        }
        None => {
            outln!("parameters: {}", unset.join(", "));
            outln!("phi = {}", model.phi());
            outln!("omega = {}", model.omega());
            outln!("T_main = {}", model.t_main());
        }
    }
    Ok(())
}

fn grid(a: &PamelaArgs, model: &pamela::CompiledModel) -> Result<(), Fail> {
    let axes = grid_axes(a, model)?;
    let rows = grid_rows(a, model, &axes)?;
    let mut columns: Vec<String> = axes.iter().map(|(k, _)| k.clone()).collect();
    columns.extend(["phi".to_string(), "omega".to_string(), "t_main".to_string()]);
    if a.json {
        let out = json!({ "file": a.file.display().to_string(), "columns": columns, "rows": rows });
        outln!("{}", lcm::json_out::compact(&out));
        return Ok(());
    }
    print_table(&columns, &rows);
    Ok(())
}

/// The `--grid` axes: every one a parameter of the model, together all of them, and at
/// most [`MAX_GRID_POINTS`] points.
fn grid_axes(
    a: &PamelaArgs,
    model: &pamela::CompiledModel,
) -> Result<Vec<(String, Vec<f64>)>, Fail> {
    let axes: Vec<(String, Vec<f64>)> = a
        .grid
        .iter()
        .map(|g| parse_grid(g))
        .collect::<Result<_, _>>()?;
    for (k, _) in &axes {
        if !model.parameters().contains(k) {
            return Err(Fail::Input(format!(
                "{}: --grid {k}: the compiled model has no parameter `{k}` (it has: {})",
                a.file.display(),
                model.parameters().join(", ")
            )));
        }
    }
    let missing: Vec<&String> = model
        .parameters()
        .iter()
        .filter(|p| !axes.iter().any(|(k, _)| k == *p))
        .collect();
    if !missing.is_empty() {
        return Err(Fail::Input(format!(
            "{}: no value for {} (use --set or --grid)",
            a.file.display(),
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let total = axes
        .iter()
        .map(|(_, v)| v.len())
        .fold(1usize, usize::saturating_mul);
    if total > MAX_GRID_POINTS {
        return Err(Fail::Usage(format!(
            "the grid has {total} points, more than {MAX_GRID_POINTS}"
        )));
    }
    Ok(axes)
}

/// One row per grid point (last axis fastest): the axes' values, then phi, omega and T.
fn grid_rows(
    a: &PamelaArgs,
    model: &pamela::CompiledModel,
    axes: &[(String, Vec<f64>)],
) -> Result<Vec<Vec<f64>>, Fail> {
    let total = axes
        .iter()
        .map(|(_, v)| v.len())
        .fold(1usize, usize::saturating_mul);
    let mut rows: Vec<Vec<f64>> = Vec::with_capacity(total);
    let mut idx = vec![0usize; axes.len()];
    let mut b = Bindings::new();
    for _ in 0..total {
        let mut row = Vec::new();
        for (k, (name, vals)) in axes.iter().enumerate() {
            b.insert(name.clone(), vals[idx[k]]);
            row.push(vals[idx[k]]);
        }
        let (t, phi, omega) = model.eval_parts(&b).map_err(|e| input(&a.file, e))?;
        row.extend([phi, omega, t]);
        rows.push(row);
        // odometer: last axis fastest
        for k in (0..axes.len()).rev() {
            idx[k] += 1;
            if idx[k] < axes[k].1.len() {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(rows)
}

/// The grid as right-aligned columns under their names.
fn print_table(columns: &[String], rows: &[Vec<f64>]) {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| r.iter().map(|v| fmt_sig(*v)).collect())
        .collect();
    let mut widths: Vec<usize> = columns.iter().map(|c| c.len()).collect();
    for r in &cells {
        for (k, c) in r.iter().enumerate() {
            widths[k] = widths[k].max(c.len());
        }
    }
    let line = |r: &[String]| {
        r.iter()
            .enumerate()
            .map(|(k, c)| format!("{c:>w$}", w = widths[k]))
            .collect::<Vec<_>>()
            .join("  ")
    };
    outln!("{}", line(columns));
    for r in &cells {
        outln!("{}", line(r));
    }
}

/// Formats with at most 7 significant digits (integers exactly).
fn fmt_sig(v: f64) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e15 {
        return fmt_num(v);
    }
    let s = format!("{:.7e}", v);
    let parsed: f64 = s.parse().unwrap_or(v);
    let mut out = format!("{parsed}");
    if out.len() > 14 {
        out = format!("{:.6e}", v);
    }
    out
}

/// `lcm simulate`.
pub fn run_simulate(a: SimulateArgs) -> i32 {
    finish(simulate_inner(&a), "simulate")
}

fn simulate_inner(a: &SimulateArgs) -> Result<(), Fail> {
    if a.runs == 0 {
        return Err(Fail::Usage("--runs must be at least 1".into()));
    }
    let program = load(&a.file, &a.set)?;
    let options = SimOptions {
        runs: a.runs,
        seed: a.seed,
    };
    let r = pamela::simulate_with(
        &program,
        &Bindings::new(),
        &options,
        match a.arbitration {
            ArbitrationArg::Random => Arbitration::Random,
            ArbitrationArg::Fifo => Arbitration::Fifo,
        },
        a.max_events,
    )
    .map_err(|e| input(&a.file, e))?;
    if a.json {
        let out = json!({
            "file": a.file.display().to_string(),
            "mean": r.mean,
            "sd": r.sd,
            "runs": r.runs,
            "seed": a.seed,
            "t_lower": r.t_lower,
            "ratio": r.ratio(),
            "events": r.events,
            "samples": r.samples,
        });
        outln!("{}", lcm::json_out::pretty(&out));
        return Ok(());
    }
    outln!("model: {}", a.file.display());
    outln!("events: {}", r.events);
    outln!(
        "simulated: T={} sd={} runs={} T_lower={} ratio={}",
        fmt_sig(r.mean),
        fmt_sig(r.sd),
        r.runs,
        fmt_sig(r.t_lower),
        fmt_sig(r.ratio())
    );
    Ok(())
}
