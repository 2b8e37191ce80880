//! Command-line arguments (clap derive) turned into a plain configuration.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  lca -c li -v p -f runfast.pp                     default forms for li(p), Figure 5.2 style
  lca -c li -v p -f runfast.pp -x \"n=1024 && tag=cols\" -g li.svg
  lca -c rt -v n -f fft.pp \"n^2*log2(n) + n; n^2\"   user formulae (one coefficient per term)
  lca -c li -v n,p -f fft.pp --auto                search c0 + sum c_k x^i log2(x)^j
  lca -c li -v n,p -f fft.pp --auto --emit annotation --tag cols
  lca -c ip -v p -f runfast.pp --auto --zero-at p=1   no constant: the model is 0 at p = 1
  lca model -f fft.pp -v n,p --tag cols            every category, T(n,p) = sum C(n,p)/p
  lca model -f fft.pp -v n,p --tag cols --emit annotation > cols.lcm

Categories: li ip sl wc cl rc ml os pc rt tt (any record key), or `time` (= tt/p).
Exit status: 0 ok, 1 bad input (the message names file and line), 2 usage error.
Plots: .svg (with text) or .png (drawn without text: plotters has no system fonts here).";

/// Fit lost-cycles models to profile records (Crovella's lca).
#[derive(Debug, Parser)]
#[command(name = "lca", version, after_help = EXAMPLES, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Subcommand (`model`); without one, fit one category.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Category to model (record key, or `time` = tt/p).
    #[arg(short = 'c', long = "category")]
    pub category: Option<String>,
    #[command(flatten)]
    pub common: Common,
    /// Plot file (.svg or .png): data, each model's curve, residuals.
    #[arg(short = 'g', long = "plot")]
    pub plot: Option<PathBuf>,
    /// Search the normal form c0 + Σ c_k x^i log2(x)^j (up to 3 terms).
    #[arg(long)]
    pub auto: bool,
    /// With --auto: the quantity is known to be 0 where VAR = VALUE (`p=1` for ip, li, sl,
    /// ml): the search fits no free constant and the model vanishes there.
    #[arg(long = "zero-at", value_name = "VAR=VALUE", requires = "auto")]
    pub zero_at: Option<String>,
    /// Forms file replacing the shipped default forms (not with --auto, which searches its
    /// own forms).
    #[arg(long, conflicts_with = "auto")]
    pub forms: Option<PathBuf>,
    /// Formulae separated by `;` (variables by name or x0, x1, …): each additive term gets
    /// a coefficient.
    pub formulae: Vec<String>,
}

/// Options shared by fitting and `model`.
#[derive(Debug, clap::Args)]
pub struct Common {
    /// Variables, comma or space separated (`n,p`).
    #[arg(short = 'v', long = "vars")]
    pub vars: Option<String>,
    /// Data file of profile records (`pp -l` output); `-` reads standard input.
    #[arg(short = 'f', long = "file")]
    pub file: Option<PathBuf>,
    /// Extraction: comparisons joined by && / || (`n=1024 && tag=cols`), or `k=v k=v`.
    #[arg(short = 'x', long = "extract")]
    pub extract: Option<String>,
    /// JSON output (fields documented in lca::report and lca::runtime).
    #[arg(long)]
    pub json: bool,
    /// Write `// lcm:` annotation lines instead of the table.
    #[arg(long, value_enum)]
    pub emit: Option<Emit>,
    /// Fragment: selects `tag=NAME` records and names the emitted fragment.
    #[arg(long)]
    pub tag: Option<String>,
}

/// What `--emit` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// `// lcm: fragment NAME` and `// lcm: CATEGORY = EXPR` lines.
    Annotation,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Auto-fit every category and print T(n,p) = Σ C(n,p)/p with predicted vs measured.
    #[command(after_help = EXAMPLES)]
    Model {
        #[command(flatten)]
        common: Common,
    },
}
