//! The `pp` command line: parse arguments, run, map errors to exit codes
//! (1 = bad input, 2 = usage).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Args::parse(); // clap exits with status 2 on usage errors
    let config = match args.into_config(std::env::var("PPLIB_LOG").ok()) {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("pp: error: {msg}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    match pp::app::run(&config, &mut stdout.lock(), &mut stderr.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pp: {e}");
            ExitCode::from(1)
        }
    }
}
