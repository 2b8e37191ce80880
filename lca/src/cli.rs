//! Command-line arguments (clap derive) turned into a plain configuration.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  lca -c li -v p -f runfast.pp                     default forms for li(p), Figure 5.2 style
  lca -c li -v p -f runfast.pp -x \"n=1024 && tag=cols\" -g li.svg
  lca -c rt -v n -f fft.pp \"n^2*log2(n) + n; n^2\"   only these formulae (one coefficient per term)
  lca -c li -v n,p -f fft.pp --tag cols --auto     the fitting policy of `lca model`
  lca -c li -v n,p -f fft.pp --auto --emit annotation --tag cols
  lca -c ip -v p -f runfast.pp --auto --zero-at p=1   plain search c0 + sum c_k x^i log2(x)^j,
                                                      no constant: the model is 0 at p = 1
  lca model -f fft.pp -v n,p --tag cols            every category, T(n,p) = sum C(n,p)/p
  lca model -f fft.pp -v n,p --tag cols --emit annotation > cols.lcm
  lca model -f fft.pp -v n,p --all-tags --emit annotation > fft.models   for lcm --models
  lca model -f fft.pp -v n,p --all-tags --emit extrap > fft.jsonl        Extra-P JSON Lines
  lca model -f runs.txt -v n,p --format extrap-text --tag compute       Extra-P text input
  lca eval --models fft.models --at n=4096,p=32                         evaluate, range check

Input: profile records (`pp -l`), Extra-P text (PARAMETER/POINTS/REGION/METRIC/DATA) or
Extra-P JSON Lines; detected from the first line, or named with --format.

Categories: li fj ip sl wc cl rc ml os pc rt tt (any record key), or `time` (= tt/p).
Which fitting uses what: `lca model` and `lca -c C --auto` choose by the fitting policy
(lca::policy: held-out and extrapolation error, coefficients bounded by the data; work
that no smooth form follows within its noise gets `pw(k, x1, y1, ...)`, the piecewise
power law through the measured points, which warns outside them);
`lca -c C` fits the default forms (or --forms, or the formulae given) and `--auto
--zero-at` the plain normal-form search, both ranked by penalized LOO-CV on every point.
Exit status: 0 ok, 1 bad input (the message names file and line), 2 usage error.
Plots: .svg or .png, with their text on every machine (the font is compiled in).";

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
    /// Choose the model by the fitting policy of `lca model` (lca::policy): one observation
    /// per configuration, pc from the p = 1 records, overheads (ml li sl ip wc) from p > 1
    /// as forms that vanish at p = 1 (also with a p = 1 part where one is material there),
    /// candidates (normal-form search, power law, typical forms) ranked by held-out error
    /// including the largest size and p left out.
    #[arg(long)]
    pub auto: bool,
    /// With --auto: instead of the policy, the plain normal-form search c0 + Σ c_k x^i
    /// log2(x)^j constrained to vanish where VAR = VALUE (no free constant), ranked by
    /// penalized LOO-CV on every point, for a quantity with a known zero the policy does
    /// not know of.
    #[arg(long = "zero-at", value_name = "VAR=VALUE", requires = "auto")]
    pub zero_at: Option<String>,
    /// Forms file replacing the shipped default forms (not with formulae, nor with --auto,
    /// which searches its own forms).
    #[arg(long, conflicts_with_all = ["formulae", "auto"])]
    pub forms: Option<PathBuf>,
    /// Formulae separated by `;` (variables by name or x0, x1, …): each additive term gets
    /// a coefficient. They replace the default forms (only they are fitted); with --auto
    /// they are weighed beside the policy's candidates (with --zero-at, beside the search's).
    pub formulae: Vec<String>,
}

/// Options shared by fitting and `model`.
#[derive(Debug, clap::Args)]
pub struct Common {
    /// Variables, comma or space separated (`n,p`).
    #[arg(short = 'v', long = "vars")]
    pub vars: Option<String>,
    /// Data file: profile records (`pp -l` output) or Extra-P text / JSON Lines (see
    /// --format); `-` reads standard input.
    #[arg(short = 'f', long = "file")]
    pub file: Option<PathBuf>,
    /// Extraction: comparisons joined by && / || (`n=1024 && tag=cols`), or `k=v k=v`.
    #[arg(short = 'x', long = "extract")]
    pub extract: Option<String>,
    /// JSON output (fields documented in lca::report and lca::runtime; `model --all-tags`:
    /// `{fragments: [one lca model document per fragment], skipped: [{fragment, error}]}`).
    #[arg(long)]
    pub json: bool,
    /// Write `// lcm:` annotation lines (a models file) or Extra-P JSON Lines instead of the
    /// table. `lca model`'s range lines say per variable how fast the models' error grows
    /// beyond the measured range, `(beyond: +G% per 2x)`, from a refit without the values
    /// above half the largest (lca::extrapolation); `lcm compare` widens its ties by it.
    #[arg(long, value_enum)]
    pub emit: Option<Emit>,
    /// Fragment: selects `tag=NAME` records and names the emitted fragment.
    #[arg(long)]
    pub tag: Option<String>,
    /// Input format (default: detected from the first line that is not a comment).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `pp -l` profile records.
    Records,
    /// Extra-P text input (PARAMETER / POINTS / REGION / METRIC / DATA lines).
    ExtrapText,
    /// Extra-P JSON Lines (`{"params": {...}, "callpath": ..., "metric": ..., "value": ...}`).
    ExtrapJsonl,
}

/// What `--emit` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// `// lcm: fragment NAME`, `// lcm: range ...` and `// lcm: CATEGORY = EXPR` lines
    /// (the fitting policy's notes go to stderr, `lca: fragment `NAME`: note: ...`); a
    /// fragment whose name such a line cannot hold (letters, digits, `_ . - : /`) is
    /// refused (exit 1), or left out with a `#` line under `--all-tags`.
    Annotation,
    /// `lca model` only: the selected records as Extra-P JSON Lines (no fitting).
    Extrap,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Auto-fit every category and print T(n,p) = Σ C(n,p)/p with predicted vs measured.
    #[command(after_help = EXAMPLES)]
    Model {
        #[command(flatten)]
        common: Common,
        /// Fit every fragment (every tag, and the untagged session records) in one run.
        #[arg(long = "all-tags", conflicts_with = "tag")]
        all_tags: bool,
    },
    /// Evaluate a models file at points; warn beyond 2x a fragment's measured range.
    #[command(after_help = EVAL_EXAMPLES)]
    Eval(EvalArgs),
}

const EVAL_EXAMPLES: &str = "\
Examples:
  lca eval --models fft.models --at n=1024,p=8
  lca eval --models fft.models --at n=4096,p=32 --at n=8192,p=64 --fragment cols --json

Prints each fragment's category values (processor-seconds) and T = (li+ip+sl+wc+rt)/p.
A point beyond 2x the measured range (`// lcm: range`) of a variable a model uses gets a
warning on stderr naming the fragment and categories, and in --json (`warnings`); a
piecewise model `pw(k, ...)` warns outside its first and last point (`piecewise: true`).
JSON: an array of {fragment, at, categories: [[category, value]], seconds, warnings:
[{fragment, categories, variable, value, min, max, piecewise (only when true)}]}.";

/// `lca eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Models file (`lca model --emit annotation` output).
    #[arg(long, value_name = "FILE")]
    pub models: PathBuf,
    /// A point, NAME=VALUE[,NAME=VALUE...] (repeatable).
    #[arg(long, value_name = "POINT", required = true)]
    pub at: Vec<String>,
    /// Only this fragment.
    #[arg(long, value_name = "NAME")]
    pub fragment: Option<String>,
    /// JSON output: one object per fragment and point (lca::evaluate::Evaluation):
    /// fragment, at, categories, seconds, warnings, negative, extrapolation_error (the
    /// relative error the range line's growth adds beyond the range, a fraction).
    #[arg(long)]
    pub json: bool,
}
