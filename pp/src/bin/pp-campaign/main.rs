//! The `pp-campaign` command line: parse arguments, run the campaign (pp's `campaign`
//! module), write the records, print the summary; exit codes 1 = bad input, 2 = usage.

mod cli;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use pp::campaign::{records::write_records, CampaignError};

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
    let points = campaign.grid.points().len();
    let mut progress = |round: usize| {
        if !quiet {
            eprintln!(
                "[{:6.1}s] round {round} of {points} points done",
                start.elapsed().as_secs_f64()
            );
        }
    };
    let outcome = match pp::campaign::run(&campaign, &mut progress) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("pp-campaign: {e}");
            return ExitCode::from(match e {
                CampaignError::Usage(_) => 2,
                _ => 1,
            });
        }
    };
    let mut header = format!(
        "pp-campaign records (docs/records.md): {command}\n\
         counted (quiet) repetitions, one record per profile; pc/ml from the p = 1 point"
    );
    if let Some(d) = &campaign.per_execution {
        let tags: String = d
            .per_iteration
            .iter()
            .map(|t| format!(" and {t}'s"))
            .collect();
        header.push_str(&format!(
            "\nper execution (docs/campaigns.md): each fragment's amounts over its executions, \
             the session's{tags} over {}",
            d.iterations.describe()
        ));
    }
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
