//! `lca -c CATEGORY`: one category of one fragment, fitted to given formulae, to the
//! forms file, or by the fitting policy (`--auto`), and printed as a ranking.

use crate::cli::{Cli, Emit};
use crate::{inputs, read_text, Failure, Inputs};
use anyhow::anyhow;
use lca::annotation::Annotation;
use lca::dataset::Dataset;
use lca::fit::{fit, FittedModel};
use lca::forms::FormsFile;
use lca::hypothesis::Hypothesis;
use lca::record::Record;
use lca::report::{self, Header, Ranking};
use lca::search::{auto_fit, term_penalty, SearchOptions, ZeroAt};

pub fn run_fit(cli: &Cli) -> Result<(), Failure> {
    let category = cli
        .category
        .clone()
        .ok_or_else(|| Failure::Usage("expected a category: -c CATEGORY".into()))?;
    if cli.common.emit == Some(Emit::Extrap) {
        return Err(Failure::Usage(
            "--emit extrap writes records: use it with `lca model`".into(),
        ));
    }
    if cli.common.emit.is_some() && cli.common.tag.is_none() {
        return Err(Failure::Usage(
            "--emit annotation needs --tag NAME (the fragment the lines annotate)".into(),
        ));
    }
    let inp = inputs(&cli.common)?;
    // User formulae (command-line text: errors are usage errors).
    let mut hyps = Vec::new();
    for group in &cli.formulae {
        for f in group.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            hyps.push(
                Hypothesis::formula(f, &inp.vars).map_err(|e| Failure::Usage(e.to_string()))?,
            );
        }
    }
    let data = Dataset::from_records(
        &inp.records,
        &inp.source,
        &category,
        &inp.vars,
        &inp.extraction,
    )
    .map_err(anyhow::Error::from)?;
    let mut header = Header {
        datafile: inp.source.clone(),
        category: category.clone(),
        variables: inp.vars.clone(),
        extraction: inp.extraction.to_string(),
        points: data.len(),
        zero_at: cli.zero_at.clone(),
    };
    let (ranking, notes) = match (cli.auto, &cli.zero_at) {
        (true, None) => {
            let (r, notes, observations) = policy_ranking(&inp, &category, &hyps)?;
            header.points = observations;
            (r, notes)
        }
        (true, Some(z)) => {
            let zero_at = parse_zero_at(z, &inp.vars).map_err(Failure::Usage)?;
            search_ranking(&data, zero_at, &hyps)?
        }
        (false, _) => forms_ranking(cli, &data, &category, hyps)?,
    };
    print_fit(cli, &data, &header, &ranking, notes)
}

/// `--auto`: the fitting policy of `lca model` for one category (its candidates and
/// their held-out scores), with the user's formulae weighed beside them. Returns the
/// ranking, notes and the number of observations fitted.
fn policy_ranking(
    inp: &Inputs,
    category: &str,
    hyps: &[Hypothesis],
) -> Result<(Ranking, Vec<String>, usize), Failure> {
    let selected: Vec<&Record> = inp
        .records
        .iter()
        .filter(|r| inp.extraction.matches(r))
        .collect();
    let f = lca::policy::fit_category(&selected, &inp.source, category, &inp.vars, hyps)
        .map_err(anyhow::Error::from)?;
    let mut notes = f.notes;
    // The same model can come from several candidate sources: list it once, and only the
    // best ones.
    let mut seen = std::collections::HashSet::new();
    let mut ranked: Vec<(FittedModel, f64)> = f
        .ranked
        .into_iter()
        .filter(|(m, _)| seen.insert(m.expr.to_string()))
        .collect();
    if ranked.len() > SHOWN {
        notes.push(format!(
            "{} more candidates weighed, not listed (the {SHOWN} best and the formulae given are)",
            ranked.len() - SHOWN
        ));
        let mut i = 0;
        ranked.retain(|(m, _)| {
            i += 1;
            i <= SHOWN || hyps.iter().any(|h| h.label == m.label)
        });
    }
    notes.push(format!(
        "{} observations (one per configuration: the median of its repetitions) from {} records, over {}",
        f.observations.len(),
        f.observations.records,
        f.observations.data.variables.join(", ")
    ));
    Ok((
        Ranking::policy(ranked, f.penalty),
        notes,
        f.observations.len(),
    ))
}

/// How many of the policy's candidates `--auto` lists.
const SHOWN: usize = 10;

/// `--auto --zero-at VAR=VALUE`: the normal-form search constrained to vanish there,
/// with the user's formulae fitted beside it, ranked by penalized LOO-CV.
fn search_ranking(
    data: &Dataset,
    zero_at: ZeroAt,
    hyps: &[Hypothesis],
) -> Result<(Ranking, Vec<String>), Failure> {
    let opts = SearchOptions {
        zero_at: Some(zero_at),
        ..SearchOptions::default()
    };
    let a = auto_fit(data, &opts).map_err(anyhow::Error::from)?;
    let (mut models, notes) = fit_each(hyps, data)?;
    models.extend(a.ranked);
    Ok((Ranking::new(models, a.penalty), notes))
}

/// Without --auto: the formulae, or else the default (or `--forms`) forms of the category,
/// ranked by penalized LOO-CV.
fn forms_ranking(
    cli: &Cli,
    data: &Dataset,
    category: &str,
    mut hyps: Vec<Hypothesis>,
) -> Result<(Ranking, Vec<String>), Failure> {
    if hyps.is_empty() {
        // Formulae on the command line replace the default forms.
        let forms = match &cli.forms {
            Some(p) => {
                let text = read_text(p)?;
                FormsFile::parse(&text, &p.display().to_string()).map_err(anyhow::Error::from)?
            }
            None => FormsFile::shipped(),
        };
        hyps = forms
            .hypotheses(category, &data.variables)
            .map_err(anyhow::Error::from)?;
    }
    if hyps.is_empty() {
        return Err(Failure::Usage(format!(
            "no default forms for `{category}` over {}: give formulae or --auto",
            data.variables.join(", ")
        )));
    }
    let (models, notes) = fit_each(&hyps, data)?;
    if models.is_empty() {
        return Err(Failure::Input(anyhow!("no model could be fitted")));
    }
    let penalty = term_penalty(data.distinct_points(), data.varying_variables());
    Ok((Ranking::new(models, penalty), notes))
}

/// Fits every hypothesis; those that cannot be fitted become notes (bad input when none
/// of several can and nothing else is fitted: the caller decides).
fn fit_each(
    hyps: &[Hypothesis],
    data: &Dataset,
) -> Result<(Vec<FittedModel>, Vec<String>), Failure> {
    let mut models = Vec::new();
    let mut notes = Vec::new();
    let mut first_err = None;
    for h in hyps {
        match fit(h, data) {
            Ok(m) => models.push(m),
            Err(e) => {
                notes.push(format!("skipped: {e}"));
                first_err.get_or_insert(e);
            }
        }
    }
    if models.is_empty() {
        if let Some(e) = first_err {
            return Err(Failure::Input(anyhow::Error::from(e)));
        }
    }
    Ok((models, notes))
}

/// Writes the fit: plot (`-g`), then annotation lines, JSON or the table.
fn print_fit(
    cli: &Cli,
    data: &Dataset,
    header: &Header,
    ranking: &Ranking,
    notes: Vec<String>,
) -> Result<(), Failure> {
    if let Some(path) = &cli.plot {
        // The selected model first, then the next best.
        let mut shown = vec![ranking.selected().clone()];
        shown.extend(
            (0..ranking.models.len())
                .filter(|&i| i != ranking.selected)
                .map(|i| ranking.models[i].clone())
                .take(3),
        );
        // The plot draws residuals at every data point (the policy fits observations).
        for m in &mut shown {
            m.fitted = data
                .points
                .iter()
                .map(|pt| m.expr.eval(&data.bindings(pt)).unwrap_or(f64::NAN))
                .collect();
        }
        lca::plot::plot(path, data, &shown).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    if let Some(Emit::Annotation) = cli.common.emit {
        let name = cli.common.tag.clone().unwrap_or_default();
        outln!("{}", Annotation::Fragment(name));
        let xs = data.points.iter().map(|p| p.x.as_slice());
        outln!(
            "{}",
            Annotation::Range(lca::range::of_points(&data.variables, xs))
        );
        outln!(
            "{}",
            Annotation::Model {
                category: header.category.clone(),
                expr: lca::precision::justified_expr(ranking.selected()),
            }
        );
    } else if cli.common.json {
        let mut j = report::json(header, ranking);
        let (skipped, notes): (Vec<String>, Vec<String>) =
            notes.into_iter().partition(|n| n.starts_with("skipped: "));
        j["skipped"] = serde_json::json!(skipped);
        j["notes"] = serde_json::json!(notes);
        outln!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
    } else {
        out!("{}", report::table(header, ranking));
        for n in notes {
            outln!("{n}");
        }
    }
    Ok(())
}

/// `VAR=VALUE` of `--zero-at`.
fn parse_zero_at(text: &str, vars: &[String]) -> Result<ZeroAt, String> {
    let (var, value) = text
        .split_once('=')
        .ok_or_else(|| format!("--zero-at: expected VAR=VALUE like `p=1`, found `{text}`"))?;
    let var = var.trim();
    if !vars.iter().any(|v| v == var) {
        return Err(format!(
            "--zero-at: expected one of the variables {}, found `{var}`",
            vars.join(", ")
        ));
    }
    let value: f64 = value
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| format!("--zero-at: expected a number after `{var}=`, found `{value}`"))?;
    Ok(ZeroAt::new(var, value))
}
