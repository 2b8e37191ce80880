//! Command-line arguments (clap derive) and dispatch. Each subcommand's arguments and its
//! translation into a library call live in a module of their own.
use clap::{Parser, Subcommand};

/// `print!` to standard output through [`write_out`].
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::write_out(format_args!($($t)*)) };
}

/// `println!` through [`write_out`].
macro_rules! outln {
    () => { $crate::cli::write_out(format_args!("\n")) };
    ($($t:tt)*) => { $crate::cli::write_out(format_args!("{}\n", format_args!($($t)*))) };
}

/// Writes to standard output. When its reader has gone away (`lcm ... | head`) the command
/// ends quietly with exit 0, as if it had finished; any other write error ends it with exit 1
/// and a message.
pub(crate) fn write_out(args: std::fmt::Arguments) {
    use std::io::Write;
    match std::io::stdout().lock().write_fmt(args) {
        Ok(()) => {}
        Err(e) => closed_or_failed(&e),
    }
}

/// Ends the process after a failed write to standard output: exit 0 for a closed pipe,
/// else exit 1 with the error.
pub(crate) fn closed_or_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("lcm: standard output: {e}");
    std::process::exit(1);
}

mod compare_cmd;
mod compare_times;
mod pamela_cmd;
mod predict_cmd;

/// lcm: lost-cycles modeling with the PAMELA calculus.
#[derive(Parser, Debug)]
#[command(name = "lcm", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse, compile and simplify a PAMELA model; print T_main.
    Pamela(pamela_cmd::PamelaArgs),
    /// Discrete-event simulation of a PAMELA model.
    Simulate(pamela_cmd::SimulateArgs),
    /// Predict the run time of an annotated Rust program.
    Predict(predict_cmd::PredictArgs),
    /// Compare the predictions of two versions of a program.
    Compare(Box<compare_cmd::CompareArgs>),
    /// Show the parallel structure lcm recognized in a Rust program.
    Tree(predict_cmd::TreeArgs),
    /// Measure this machine's costs of fork/join, tasks, items, hand-offs, transfers, shared lines and memory contention.
    Calibrate(predict_cmd::CalibrateArgs),
}

/// Runs the parsed command; returns the process exit status (0 ok, 1 bad input, 2 usage).
pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Pamela(a) => pamela_cmd::run_pamela(a),
        Command::Simulate(a) => pamela_cmd::run_simulate(a),
        Command::Predict(a) => predict_cmd::run_predict(a),
        Command::Compare(a) => compare_cmd::run_compare(*a),
        Command::Tree(a) => predict_cmd::run_tree(a),
        Command::Calibrate(a) => predict_cmd::run_calibrate(a),
    }
}
