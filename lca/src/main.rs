//! The `lca` command line: parse arguments (cli.rs), call the library, map errors to exit
//! codes (1 = bad input, 2 = usage).

/// `print!` to standard output, returning [`Failure::Closed`] from the enclosing function
/// when the reader has gone away (`lca ... | head`) instead of panicking.
macro_rules! out {
    ($($t:tt)*) => { $crate::write_out(format_args!($($t)*))? };
}

/// `println!` as [`out!`].
macro_rules! outln {
    () => { $crate::write_out(format_args!("\n"))? };
    ($($t:tt)*) => { $crate::write_out(format_args!("{}\n", format_args!($($t)*)))? };
}

mod cli;
mod eval_cmd;
mod fit_cmd;
mod model_cmd;

use anyhow::Context;
use clap::Parser;
use cli::{Cli, Command, Common};
use lca::extraction::Extraction;
use lca::record::Record;
use std::path::Path;
use std::process::ExitCode;

pub(crate) enum Failure {
    Usage(String),
    Input(anyhow::Error),
    /// Standard output was closed by its reader: stop quietly, exit 0 (as `head` expects).
    Closed,
}

/// Writes to standard output; a closed pipe becomes [`Failure::Closed`], any other write
/// error a bad-input failure naming standard output.
pub(crate) fn write_out(args: std::fmt::Arguments) -> Result<(), Failure> {
    use std::io::Write;
    match std::io::stdout().lock().write_fmt(args) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Failure::Closed),
        Err(e) => Err(Failure::Input(
            anyhow::Error::new(e).context("standard output"),
        )),
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::Input(e)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) | Err(Failure::Closed) => ExitCode::SUCCESS,
        Err(Failure::Usage(m)) => {
            eprintln!("lca: {m}\nTry `lca --help`.");
            ExitCode::from(2)
        }
        Err(Failure::Input(e)) => {
            eprintln!("lca: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match &cli.command {
        Some(Command::Model { common, all_tags }) => model_cmd::run_model(common, *all_tags),
        Some(Command::Eval(args)) => eval_cmd::run(args),
        None => fit_cmd::run_fit(&cli),
    }
}

pub(crate) struct Inputs {
    source: String,
    records: Vec<Record>,
    vars: Vec<String>,
    extraction: Extraction,
}

pub(crate) fn inputs(common: &Common) -> Result<Inputs, Failure> {
    let file = common
        .file
        .as_ref()
        .ok_or_else(|| Failure::Usage("expected a data file: -f DATAFILE".into()))?;
    let vars_text = common
        .vars
        .as_ref()
        .ok_or_else(|| Failure::Usage("expected variables: -v VAR[,VAR...]".into()))?;
    let vars: Vec<String> = vars_text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if vars.is_empty() {
        return Err(Failure::Usage(
            "expected at least one variable after -v".into(),
        ));
    }
    for v in &vars {
        if lca::expr::parse(v) != Ok(lca::expr::Expr::var(v)) {
            return Err(Failure::Usage(format!(
                "-v: expected variable names like `n` or `p`, found `{v}`"
            )));
        }
    }
    let mut extraction = Extraction::parse(common.extract.as_deref().unwrap_or(""))
        .map_err(|e| Failure::Usage(format!("-x: {e}")))?;
    if let Some(tag) = &common.tag {
        let tag_filter = Extraction::parse(&format!("tag={tag}"))
            .map_err(|e| Failure::Usage(format!("--tag: {e}")))?;
        let c = tag_filter.any_of[0][0].clone();
        if extraction.any_of.is_empty() {
            extraction = tag_filter;
        } else {
            extraction.any_of.iter_mut().for_each(|a| a.push(c.clone()));
        }
    }
    let source = file.display().to_string();
    let text = read_text(file)?;
    let records = model_cmd::read_records(&text, &source, common.format)?;
    Ok(Inputs {
        source,
        records,
        vars,
        extraction,
    })
}

/// Reads a data or forms file (`-`: standard input), at most
/// [`lca::record::MAX_DATA_BYTES`] of UTF-8 text.
pub(crate) fn read_text(path: &Path) -> Result<String, Failure> {
    use lca::record::{read_capped, MAX_DATA_BYTES};
    if path == Path::new("-") {
        return Ok(read_capped(std::io::stdin().lock(), MAX_DATA_BYTES)
            .context("reading standard input")?);
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(read_capped(file, MAX_DATA_BYTES)
        .with_context(|| format!("{}: cannot read", path.display()))?)
}
