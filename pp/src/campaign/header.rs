//! The `#` header of a campaign's records file: what `pp-campaign` writes above its records
//! ([`records_header`]) and what a reader takes from it ([`division_of`]), kept in one
//! place so that the two cannot drift apart.
//!
//! The header's lines (each written behind `# `, [`super::records::write_records`]):
//!
//! ```text
//! # pp-campaign records (docs/records.md): COMMAND
//! # counted (quiet) repetitions, one record per profile; pc/ml from the p = 1 point
//! # per execution (docs/campaigns.md): each fragment's amounts over its executions, the session's over DIVISOR
//! ```
//!
//! The third line is there only for records per execution (`--iterations`); `DIVISOR` is
//! a whole number (`over 4`) or `the point's NAME` (`over the point's iters`: each record's
//! value of that grid variable). Fragments divided by the iterations instead of their
//! executions are named before ` over ` (`the session's and search's over …`).
//!
//! A reader (`lcm compare --times-*`) multiplies each session record back by its divisor to
//! get a whole run's time: [`division_of`] reads one comment line. A file may hold several
//! sections (files concatenated); each `pp-campaign records` line starts one, of whole runs
//! until its `per execution` line says otherwise.
//!
//! ```
//! use pp::campaign::header::{division_of, records_header, SessionDivision};
//! use pp::campaign::{Iterations, PerExecution};
//!
//! let per = PerExecution::new(Iterations::Variable("iters".into()));
//! let header = records_header("./sort -n {n} --iters {iters}", Some(&per));
//! let divisions: Vec<SessionDivision> = header
//!     .lines()
//!     .filter_map(division_of)
//!     .collect::<Result<_, _>>()
//!     .unwrap();
//! assert_eq!(
//!     divisions,
//!     [SessionDivision::Whole, SessionDivision::Variable("iters".into())]
//! );
//! ```

use super::per_execution::{Iterations, PerExecution};

/// The start of the header's first line; it starts a section of whole runs.
pub const CAMPAIGN_LINE: &str = "pp-campaign records";

/// The start of the header line of records per execution.
pub const PER_EXECUTION_LINE: &str = "per execution";

/// How a section of a records file divided its session records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionDivision {
    /// Whole runs (no `per execution` line).
    Whole,
    /// Every session record divided by this many iterations.
    Count(u64),
    /// Each session record divided by its value of this variable.
    Variable(String),
}

impl From<&Iterations> for SessionDivision {
    fn from(it: &Iterations) -> SessionDivision {
        match it {
            Iterations::Count(k) => SessionDivision::Count(*k),
            Iterations::Variable(v) => SessionDivision::Variable(v.clone()),
        }
    }
}

/// The header of the records of a campaign that ran `command`, divided as `per_execution`
/// says (None: whole runs); lines without their `# `.
pub fn records_header(command: &str, per_execution: Option<&PerExecution>) -> String {
    let mut header = format!(
        "{CAMPAIGN_LINE} (docs/records.md): {command}\n\
         counted (quiet) repetitions, one record per profile; pc/ml from the p = 1 point"
    );
    if let Some(d) = per_execution {
        let tags: String = d
            .per_iteration
            .iter()
            .map(|t| format!(" and {t}'s"))
            .collect();
        header.push_str(&format!(
            "\n{PER_EXECUTION_LINE} (docs/campaigns.md): each fragment's amounts over its \
             executions, the session's{tags} over {}",
            d.iterations.describe()
        ));
    }
    header
}

/// The division a comment line of a records file announces: `Some(Ok(Whole))` for the
/// first line of a campaign's header, `Some(Ok(Count | Variable))` for its `per execution`
/// line (the divisor after its last ` over `), `None` for any other line. Leading `#` and
/// blanks are skipped. A `per execution` line whose divisor is neither a whole number of at
/// least 1 nor `the point's NAME` gives `Some(Err(message))`, the message naming what was
/// expected and the text found.
pub fn division_of(comment: &str) -> Option<Result<SessionDivision, String>> {
    let c = comment.trim_start_matches('#').trim();
    if c.starts_with(CAMPAIGN_LINE) {
        return Some(Ok(SessionDivision::Whole));
    }
    if !c.starts_with(PER_EXECUTION_LINE) {
        return None;
    }
    let divisor = c.rsplit_once(" over ").map(|(_, d)| d.trim()).unwrap_or("");
    if let Some(name) = divisor.strip_prefix("the point's ") {
        let name = name.trim();
        let is_name =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if is_name {
            return Some(Ok(SessionDivision::Variable(name.to_string())));
        }
    }
    match divisor.parse::<u64>() {
        Ok(k) if k >= 1 => Some(Ok(SessionDivision::Count(k))),
        _ => Some(Err(format!(
            "expected the session's divisor at the end of the `# {PER_EXECUTION_LINE}` header \
             (`over the point's NAME` or `over N`, N at least 1), found `{divisor}`"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn divisions(header: &str) -> Vec<SessionDivision> {
        header
            .lines()
            .map(|l| format!("# {l}"))
            .filter_map(|l| division_of(&l))
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn what_is_written_reads_back() {
        assert_eq!(
            divisions(&records_header("./a -n {n}", None)),
            [SessionDivision::Whole]
        );
        let mut per = PerExecution::new(Iterations::Count(4));
        per.per_iteration.push("search".into());
        let h = records_header("./a", Some(&per));
        assert!(h.contains("the session's and search's over 4"), "{h}");
        assert_eq!(
            divisions(&h),
            [SessionDivision::Whole, SessionDivision::Count(4)]
        );
        let per = PerExecution::new(Iterations::Variable("iters".into()));
        assert_eq!(
            divisions(&records_header("./a", Some(&per)))[1],
            SessionDivision::from(&per.iterations)
        );
    }

    #[test]
    fn other_comments_are_no_header() {
        assert_eq!(division_of("# lca 0.1.0 models of every fragment"), None);
        assert_eq!(division_of("n=64 p=2 tt=1"), None);
    }

    #[test]
    fn a_bad_divisor_is_reported_with_the_text_found() {
        for bad in ["over 0", "over the point's", "over many", "no divisor"] {
            let e = division_of(&format!("# per execution (docs/campaigns.md): {bad}"))
                .unwrap()
                .unwrap_err();
            assert!(e.contains("found `"), "{e}");
        }
    }
}
