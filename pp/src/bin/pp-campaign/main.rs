//! The `pp-campaign` command line: parse arguments, run the campaign (pp's `campaign`
//! module), write the records, print the summary; exit codes 1 = bad input, 2 = usage.

mod cli;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use pp::campaign::{records::write_records, CampaignError, RoundDone};

fn main() -> ExitCode {
    let args = cli::Args::parse(); // clap exits with status 2 on usage errors
    let (json, quiet, out) = (args.json, args.quiet, args.out.clone());
    let command = args.command.join(" ");
    let campaign = match args.into_campaign() {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("pp-campaign: error: {msg}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let mut progress = |done: &RoundDone| {
        if !quiet {
            eprintln!("[{:6.1}s] {}", start.elapsed().as_secs_f64(), done.line());
        }
    };
    let outcome = match pp::campaign::run_reporting(&campaign, &mut progress) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("pp-campaign: {e}");
            return ExitCode::from(match e {
                CampaignError::Usage(_) => 2,
                _ => 1,
            });
        }
    };
    let header = pp::campaign::header::records_header(&command, campaign.per_execution.as_ref());
    if let Err(e) = write_records(&out, &header, &outcome.records) {
        eprintln!("pp-campaign: {}: {e}", out.display());
        return ExitCode::from(1);
    }
    if json {
        println!("{}", outcome.summary.to_json());
    } else {
        print!("{}", outcome.summary.text());
        println!(
            "records: {} lines in {}",
            outcome.records.lines.len(),
            out.display()
        );
    }
    ExitCode::SUCCESS
}
