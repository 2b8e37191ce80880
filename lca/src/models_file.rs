//! A complete models file from profile records: every fragment's run-time model
//! (`lca model --all-tags --emit annotation`), in the format of [`crate::annotation`] that
//! `lcm predict --models FILE` reads.
//!
//! Each fragment block carries the fragment's measured range (`// lcm: range`, from the
//! records it was fitted on; see [`crate::range`]) and its category models with the digits
//! their intervals justify ([`crate::precision`]). The fragments are the tags of the
//! selected records in order of first appearance; untagged records (the whole session)
//! make the fragment `session`. A fragment that cannot be fitted is left out with a `#`
//! comment saying why.
//!
//! ```
//! use lca::{extraction::Extraction, record::parse_records, search::SearchOptions};
//! use lca::models_file::{fit_all, models_file};
//! let mut text = String::new();
//! for n in [256.0, 512.0, 1024.0, 2048.0, 4096.0] {
//!     for p in [1.0f64, 2.0, 4.0, 8.0, 16.0] {
//!         let rt = 2e-6 * n;
//!         text += &format!("n={n} tag=cols p={p} rt={rt} tt={rt}\nn={n} p={p} rt={} tt={}\n", 2.0 * rt, 2.0 * rt);
//!     }
//! }
//! let records = parse_records(&text).unwrap();
//! let vars = ["n".to_string(), "p".to_string()];
//! let fits = fit_all(&records, "fft.pp", &vars, &Extraction::default(), &SearchOptions::default());
//! let file = models_file(&fits, &records, &vars, &Extraction::default(), "fft.pp").unwrap();
//! let models = lca::annotation::parse_models(&file).unwrap();
//! assert_eq!(models.len(), 2);
//! assert_eq!(models[0].name, "cols");
//! assert_eq!(models[1].name, "session");
//! assert_eq!(models[0].category("rt").unwrap().to_string(), "2e-6*n");
//! assert_eq!(models[0].ranges[0].to_string(), "n = 256..4096");
//! ```

use crate::annotation::FragmentModel;
use crate::expr::{BinOp, Expr};
use crate::extraction::Extraction;
use crate::precision::justified_expr;
use crate::range::{self, VarRange};
use crate::record::{Record, RecordError};
use crate::runtime::{fit_runtime, ModelError, RuntimeModel};
use crate::search::SearchOptions;
use std::fmt::Write;

/// Name of the fragment made of untagged (whole-session) records.
pub const SESSION: &str = "session";

/// The fragments of the records matching `extraction`: their tags in order of first
/// appearance, `None` standing for the untagged session records.
pub fn fragments(records: &[Record], extraction: &Extraction) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = Vec::new();
    for r in records.iter().filter(|r| extraction.matches(r)) {
        let tag = r.tag().map(str::to_string);
        if !out.contains(&tag) {
            out.push(tag);
        }
    }
    out
}

/// Fits the run-time model of every fragment ([`fragments`]).
pub fn fit_all(
    records: &[Record],
    source: &str,
    variables: &[String],
    extraction: &Extraction,
    options: &SearchOptions,
) -> Vec<(Option<String>, Result<RuntimeModel, ModelError>)> {
    fragments(records, extraction)
        .into_iter()
        .map(|tag| {
            let fit = fit_runtime(
                records,
                source,
                tag.as_deref(),
                variables,
                extraction,
                options,
            );
            (tag, fit)
        })
        .collect()
}

/// The category models of `m` as printed ([`justified_expr`]), in record order.
pub fn printed_categories(m: &RuntimeModel) -> Vec<(String, Expr)> {
    m.categories
        .iter()
        .map(|(c, a)| (c.clone(), justified_expr(a.best())))
        .collect()
}

/// `T = (Σ of the printed categories that sum into the time) / p` ([`category::time`]),
/// the run time as printed.
pub fn printed_total(m: &RuntimeModel) -> Expr {
    let printed = printed_categories(m);
    let terms = category::time::time_terms_of_keys(printed.iter().map(|(c, _)| c.as_str()));
    let sum = printed
        .into_iter()
        .filter(|(c, _)| category::time::counts(&terms, c))
        .map(|(_, e)| e)
        .reduce(|a, b| Expr::bin(BinOp::Add, a, b))
        .unwrap_or(Expr::Num(0.0));
    Expr::bin(BinOp::Div, sum, Expr::var("p"))
}

/// The models-file block of one fitted fragment: its name (the tag or [`SESSION`]), the
/// measured `ranges`, the printed category models.
pub fn fragment_block(m: &RuntimeModel, ranges: Vec<VarRange>) -> FragmentModel {
    FragmentModel {
        name: m.tag.clone().unwrap_or_else(|| SESSION.into()),
        categories: printed_categories(m),
        ranges,
    }
}

/// Writes the models file of `fits` (as [`fit_all`] returns them): a `#` header naming the
/// data, one block per fitted fragment separated by blank lines, a `#` line per fragment
/// that could not be fitted. A fragment name that cannot appear in a `// lcm: fragment`
/// line is left out the same way.
pub fn models_file(
    fits: &[(Option<String>, Result<RuntimeModel, ModelError>)],
    records: &[Record],
    variables: &[String],
    extraction: &Extraction,
    source: &str,
) -> Result<String, RecordError> {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# lca {} models of every fragment in {source} over {}",
        env!("CARGO_PKG_VERSION"),
        variables.join(", ")
    );
    for (tag, fit) in fits {
        let name = tag.as_deref().unwrap_or(SESSION);
        match fit {
            Ok(m) if fragment_name_ok(name) => {
                let ranges = range::of_records(records, tag.as_deref(), variables, extraction)?;
                let ranges = crate::extrapolation::with_growths(
                    records,
                    tag.as_deref(),
                    variables,
                    extraction,
                    ranges,
                    &printed_total(m),
                );
                let _ = write!(s, "\n{}", fragment_block(m, ranges));
            }
            Ok(_) => {
                let _ = writeln!(
                    s,
                    "\n# fragment `{name}` left out: its name cannot be written in a `// lcm: fragment` line (letters, digits, `_ . - : /`)"
                );
            }
            Err(e) => {
                let _ = writeln!(s, "\n# fragment `{name}` not fitted: {e}");
            }
        }
    }
    Ok(s)
}

/// True when `name` can follow `// lcm: fragment`.
pub fn fragment_name_ok(name: &str) -> bool {
    matches!(
        crate::annotation::parse_line(&format!("// lcm: fragment {name}")),
        Ok(Some(crate::annotation::Annotation::Fragment(n))) if n == name
    )
}
