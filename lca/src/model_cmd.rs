//! `lca model`: the whole-time model T(vars) of one fragment or the session, or of every
//! fragment (`--all-tags`), as a table, JSON, an annotation block or Extra-P records; and
//! reading any input format.

use crate::cli::{Common, Emit, Format};
use crate::{inputs, Failure, Inputs};
use anyhow::anyhow;
use lca::annotation::FragmentModel;
use lca::extrap::{read_records as read_any, InputError, InputFormat};
use lca::models_file::{fit_all, models_file, SESSION};
use lca::record::Record;
use lca::runtime::fit_runtime;
use lca::search::SearchOptions;

/// Runs `lca model` with `common` options.
pub fn run_model(common: &Common, all_tags: bool) -> Result<(), Failure> {
    let inp = inputs(common)?;
    if common.emit == Some(Emit::Extrap) {
        return emit_extrap(&inp, common.tag.as_deref(), all_tags);
    }
    if all_tags {
        return run_all_tags(&inp, common);
    }
    // The tag is already part of the extraction.
    let m = fit_runtime(
        &inp.records,
        &inp.source,
        common.tag.as_deref(),
        &inp.vars,
        &inp.extraction,
        &SearchOptions::default(),
    )
    .map_err(anyhow::Error::from)?;
    if let Some(Emit::Annotation) = common.emit {
        let name = common.tag.as_deref().unwrap_or(SESSION);
        if !lca::models_file::fragment_name_ok(name) {
            return Err(Failure::Input(anyhow!(
                "{}: expected a fragment name that a `// lcm: fragment` line can hold (letters, digits, `_ . - : /`), found `{name}`: rename the fragment where the program records it",
                inp.source
            )));
        }
        let ranges = lca::range::of_records(
            &inp.records,
            common.tag.as_deref(),
            &inp.vars,
            &inp.extraction,
        )
        .map_err(|e| anyhow!("{}: {e}", inp.source))?;
        let ranges = lca::extrapolation::with_growths(
            &inp.records,
            common.tag.as_deref(),
            &inp.vars,
            &inp.extraction,
            ranges,
            &lca::models_file::printed_total(&m),
        );
        let fm: FragmentModel = lca::models_file::fragment_block(&m, ranges);
        note_on_stderr(common.tag.as_deref().unwrap_or(SESSION), &m);
        out!("{fm}");
    } else if common.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&lca::runtime::json(&m)).unwrap_or_default()
        );
    } else {
        out!("{}", lca::runtime::table(&inp.source, &m));
    }
    Ok(())
}

/// Reads `text` in the named or detected format; errors name `source`, the line and column
/// (`file:line:column: message` for Extra-P input).
pub fn read_records(
    text: &str,
    source: &str,
    format: Option<Format>,
) -> Result<Vec<Record>, Failure> {
    let format = match format {
        Some(Format::Records) => InputFormat::Records,
        Some(Format::ExtrapText) => InputFormat::ExtrapText,
        Some(Format::ExtrapJsonl) => InputFormat::ExtrapJsonl,
        None => InputFormat::detect(text),
    };
    read_any(text, format).map_err(|e| {
        Failure::Input(match e {
            InputError::Records(e) => anyhow!("{source}: {e}"),
            InputError::Extrap(e) => anyhow!("{source}:{e} (reading {format})"),
        })
    })
}

/// `--emit extrap`: the records `lca model` would fit (one fragment, or all with
/// `--all-tags`) as Extra-P JSON Lines.
pub fn emit_extrap(inp: &Inputs, tag: Option<&str>, all_tags: bool) -> Result<(), Failure> {
    let selected: Vec<Record> = inp
        .records
        .iter()
        .filter(|r| inp.extraction.matches(r) && (all_tags || r.tag() == tag))
        .cloned()
        .collect();
    let text = lca::extrap::jsonl::write(&selected, &inp.vars)
        .map_err(|e| anyhow!("{}: {e}", inp.source))?;
    if text.is_empty() {
        return Err(Failure::Input(anyhow!(
            "{}: expected records with {} (after extraction `{}`), found none",
            inp.source,
            inp.vars.join(", "),
            inp.extraction
        )));
    }
    out!("{text}");
    Ok(())
}

/// `--all-tags`: the run-time model of every fragment. Fragments that cannot be fitted are
/// reported (stderr, `skipped` in JSON, `#` lines in the models file); bad input only when
/// none can.
pub fn run_all_tags(inp: &Inputs, common: &Common) -> Result<(), Failure> {
    let fits = fit_all(
        &inp.records,
        &inp.source,
        &inp.vars,
        &inp.extraction,
        &SearchOptions::default(),
    );
    if fits.is_empty() {
        return Err(Failure::Input(anyhow!(
            "{}: expected records (after extraction `{}`), found none",
            inp.source,
            inp.extraction
        )));
    }
    let name = |t: &Option<String>| t.clone().unwrap_or_else(|| SESSION.into());
    if fits.iter().all(|(_, f)| f.is_err()) {
        let errors: Vec<String> = fits
            .iter()
            .filter_map(|(t, f)| f.as_ref().err().map(|e| format!("{}: {e}", name(t))))
            .collect();
        return Err(Failure::Input(anyhow!(
            "no fragment could be fitted:\n  {}",
            errors.join("\n  ")
        )));
    }
    for (t, f) in &fits {
        if let Err(e) = f {
            eprintln!("lca: fragment `{}` skipped: {e}", name(t));
        }
    }
    if common.emit == Some(Emit::Annotation) {
        let text = models_file(&fits, &inp.records, &inp.vars, &inp.extraction, &inp.source)
            .map_err(|e| anyhow!("{}: {e}", inp.source))?;
        for (t, f) in &fits {
            if let Ok(m) = f {
                note_on_stderr(&name(t), m);
            }
        }
        out!("{text}");
    } else if common.json {
        let fragments: Vec<serde_json::Value> = fits
            .iter()
            .filter_map(|(_, f)| f.as_ref().ok().map(lca::runtime::json))
            .collect();
        let skipped: Vec<serde_json::Value> = fits
            .iter()
            .filter_map(|(t, f)| {
                let e = f.as_ref().err()?;
                Some(serde_json::json!({"fragment": name(t), "error": e.to_string()}))
            })
            .collect();
        let doc = serde_json::json!({"fragments": fragments, "skipped": skipped});
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        let mut first = true;
        for (_, f) in &fits {
            if let Ok(m) = f {
                if !first {
                    outln!();
                }
                first = false;
                out!("{}", lca::runtime::table(&inp.source, m));
            }
        }
    }
    Ok(())
}

/// The fitting policy's notes of fragment `fragment` on stderr, for outputs that have no
/// place for them (`--emit annotation`: the models file holds models only).
fn note_on_stderr(fragment: &str, m: &lca::runtime::RuntimeModel) {
    for n in &m.notes {
        eprintln!("lca: fragment `{fragment}`: note: {n}");
    }
}
