//! The fitting policy's targets (see `support/targets.rs`) on the 2-core records of the
//! histogram and queens studies, fixtures in `tests/data/` (see `tests/data/README.md`):
//! `HISTOGRAM_SHORTFALLS`, `QUEENS_SHORTFALLS`, and how the policy models the queens work
//! and overheads. Two checks also read the 16-core FFT records where they are present (see
//! `policy_targets_fft16.rs`).

#[path = "support/targets.rs"]
mod targets;

use lca::extraction::Extraction;
use lca::record::{parse_records, Record};
use lca::runtime::fit_runtime;
use lca::search::SearchOptions;
use targets::{assert_targets, checks, fft_16_cores, fixture, value, Shortfall};

/// Histogram on 2 cores (re-recorded on a quiet machine, see `tests/data/README.md`): the
/// p = 2 overheads change regime between n = 2^19 and 2^20. T(p = 2) / T(p = 1) is 1.09 and
/// 1.27 at n = 2^18 and 2^19, then 2.40, 2.42 and 2.49 from 2^20 on: lock waiting (`sl`)
/// goes from 0.1 % and 25 % of the time to 44-49 %, and the memory loss from 0.85 x to
/// 1.5-1.6 x the work. No smooth function of n follows the waits: the policy takes the
/// piecewise law through them at p = 2 (scaled by p − 1), exact at every n, and the
/// in-sample error is 3.4 % (7.8 % with a smooth form, which missed n = 2^20 by 28 %).
/// Fitted without 2^22 the model extrapolates the step's growth: the last piece then runs
/// from 2^20 to 2^21, where the waits still grow 2.1-fold, and misses 2^22 by 17.6 %.
const HISTOGRAM_SHORTFALLS: [Shortfall; 2] = [
    ("(session)", 2, 0.19, LOCK_REGIME),
    ("fill", 2, 0.19, LOCK_REGIME),
];

/// Why the histogram records miss: see [`HISTOGRAM_SHORTFALLS`].
const LOCK_REGIME: &str =
    "p = 2 overheads step up between n = 2^19 and 2^20 (lock waits 0-25 % -> 44-49 %)";

/// Queens on 2 cores (re-recorded on a quiet machine): the work per solution is not a
/// function of k. The search stops after k solutions, wherever they lie, so `pc / k` is
/// 3.1e-7, 4.2e-7, 3.4e-7, 6.7e-7, 5.2e-7, 4.1e-7 and 3.9e-7 s at k = 1, 10, 100, 1000,
/// 10000, 30000 and 73712 (2.2-fold, not monotone): the best smooth form, `c·k`, misses the
/// measurements by 17 % of the time (k = 1000 by 41 %), three times their noise, so the
/// policy takes the piecewise power law through the measured medians, exact at every k.
/// What is left in-sample is the p = 2 overheads: 7.7 % with each fitted alone (the run at
/// k = 1000, p = 2 missed by 43 %: its memory loss); re-estimated together, which the
/// held-out folds keep here (`lca::policy::joint`: ml's coefficient x1.32, li's x1.06),
/// 5.8 %, k = 1000 still missed by 41 % (no smooth form in k has it), and k = 1, p = 1 by
/// 14 %: the idle time at p = 1, which the held-out choice leaves out (see
/// `queens_idle_time_at_p1_is_weighed`). Fitted without the largest k, the piecewise law
/// extrapolates from k = 30000, where the work per solution is 7 % above the trend, with
/// its last piece's exponent (0.78): 12.9 % off at k = 73712, where `c·k` was 2-3 % off by
/// lying near the average (and `lca` and `lcm` warn that the point lies outside the
/// measured points of a piecewise model).
const QUEENS_SHORTFALLS: [Shortfall; 4] = [
    ("(session)", 0, 0.064, P2_OVERHEADS),
    ("(session)", 2, 0.142, END_PIECE),
    ("search", 0, 0.066, P2_OVERHEADS),
    ("search", 2, 0.142, END_PIECE),
];

/// Why the queens records miss in-sample: see [`QUEENS_SHORTFALLS`].
const P2_OVERHEADS: &str =
    "the work is exact; the p = 2 overheads, fitted together, miss k = 1000 by 41 %";

/// Why the queens records miss beyond the largest k: see [`QUEENS_SHORTFALLS`].
const END_PIECE: &str = "piecewise work extrapolates from k = 30000 with its last piece";

#[test]
fn histogram_2_cores_within_its_bounds() {
    let all = checks(&fixture("histogram-2core.pp"), "n");
    assert_eq!(all.len(), 2);
    assert_targets(
        "histogram, 2 cores (tests/data/histogram-2core.pp)",
        &all,
        &HISTOGRAM_SHORTFALLS,
    );
}

#[test]
fn queens_2_cores_within_its_bounds() {
    let all = checks(&fixture("queens-2core.pp"), "k");
    assert_eq!(all.len(), 2);
    assert_targets(
        "queens, 2 cores (tests/data/queens-2core.pp)",
        &all,
        &QUEENS_SHORTFALLS,
    );
}

/// The queens work changes regime between measured k (see [`QUEENS_SHORTFALLS`]): `lca model`
/// models it as the piecewise power law through the measured points and says where a regime
/// changes (between k = 100 and 1000, the piece of local exponent 1.29 where the others have
/// 0.78-1.14); the FFT's works
/// and the histogram's, which smooth forms fit within their noise, keep smooth forms.
#[test]
fn piecewise_work_only_where_no_smooth_form_fits() {
    let fit = |text: &str, size: &str, tag: &str| {
        let records = parse_records(text).unwrap();
        let vars = vec![size.to_string(), "p".to_string()];
        fit_runtime(
            &records,
            "data",
            Some(tag),
            &vars,
            &Extraction::default(),
            &SearchOptions::default(),
        )
        .unwrap()
    };
    let q = fit(&fixture("queens-2core.pp"), "k", "search");
    let pc = q.fragment_model().to_string();
    assert!(pc.contains("// lcm: pc = pw(k, 1, "), "{pc}");
    let note = q.notes.iter().find(|n| n.contains("piecewise power law"));
    assert!(
        note.is_some_and(|n| n.contains("the piece from k = 100 to 1000 departs most")),
        "{:?}",
        q.notes
    );
    // The histogram's work follows a smooth form; its lock waits at p = 2 step from 0.1 %
    // to 44-49 % of the time between n = 2^18 and 2^20, which no smooth form of n follows:
    // they get the piecewise law at p = 2, scaled by p - 1.
    let h = fit(&fixture("histogram-2core.pp"), "n", "fill");
    let model = h.fragment_model().to_string();
    let line = |c: &str| {
        model
            .lines()
            .find(|l| l.starts_with(&format!("// lcm: {c} = ")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        !line("pc").contains("pw(") && !line("pc").is_empty(),
        "{model}"
    );
    assert!(
        line("sl").contains("(p - 1)*") && line("sl").contains("pw(n, 262144, "),
        "{model}"
    );
    let note = h
        .notes
        .iter()
        .find(|n| n.contains("category sl: at p = 2: no smooth form fits"));
    assert!(note.is_some(), "{:?}", h.notes);
    let Some(text) = fft_16_cores() else {
        return;
    };
    for tag in ["alloc", "init", "cols", "transpose", "rows"] {
        let m = fit(&text, "n", tag).fragment_model().to_string();
        assert!(!m.contains("pw("), "{tag}: {m}");
    }
}

/// The queens overheads at p = 2 are re-estimated together so that their sum follows the
/// time (the held-out folds predict their sum at 5.9 % of the time jointly, 7.2 %
/// separately): `lca model` notes it, each category moves by a small share of the time
/// (ml by 3.3 %, the others by under 1 %), and idle and spinning time stay non-negative.
/// Without the step the in-sample error was 7.79 % (see [`QUEENS_SHORTFALLS`]).
#[test]
fn queens_overheads_are_fitted_together() {
    let records = parse_records(&fixture("queens-2core.pp")).unwrap();
    let vars = vec!["k".to_string(), "p".to_string()];
    let m = fit_runtime(
        &records,
        "data",
        Some("search"),
        &vars,
        &Extraction::default(),
        &SearchOptions::default(),
    )
    .unwrap();
    let step = m.joint.as_ref().expect("the joint step applies to queens");
    assert!(step.joint.score < 0.9 * step.separate.score, "{step:?}");
    assert!(
        m.notes.iter().any(|n| n.contains("re-estimated jointly")),
        "{:?}",
        m.notes
    );
    for moved in &step.moved {
        assert!(moved.time_share < 0.05, "{moved:?}");
    }
    let json = lca::runtime::json(&m);
    assert!(json["joint"]["moved"]
        .as_array()
        .is_some_and(|a| !a.is_empty()));
    for r in records.iter().filter(|r| r.tag() == Some("search")) {
        let b = [
            ("k".to_string(), value(r, "k")),
            ("p".to_string(), value(r, "p")),
        ]
        .into_iter()
        .collect();
        for (c, a) in &m.categories {
            if ["li", "ip", "wc", "sl"].contains(&c.as_str()) {
                let v = a.best().expr.eval(&b).unwrap();
                assert!(v >= 0.0, "{c} = {} is {v} at {b:?}", a.best().expr);
            }
        }
    }
}

/// Queens' idle time at p = 1 (`pp` counts the one thread's waits between task bodies as
/// `li`: 14 % of the time at k = 1 in fragment `search`, under 1.1 % from k = 10 on) is
/// material there, so the policy weighs `li` on every configuration, p = 1 included, and
/// offers each vanishing form also with a p = 1 part (`lca::policy::at_one`). The best such
/// form, `4.3e-8 + (p − 1)·(6.7e-7·k^(1/2))`, predicts the held-out configurations better
/// (1.6 % of the time against 2.2 %), but only k = 1, p = 1 gains and the gain is halved
/// by the extrapolation folds, where p = 1 weighs little: less than its extra
/// coefficient costs (×1.8), so the vanishing `(p − 1)·(7.1e-7·k^(1/2))` stays, and the
/// model misses k = 1, p = 1 by 14 % (part of the in-sample error in
/// [`QUEENS_SHORTFALLS`]). The 16-core FFT's idle time at p = 1 (4.6 % of the time at
/// most, unrepeated records) is within the records' noise: not weighed there.
#[test]
fn queens_idle_time_at_p1_is_weighed() {
    let records = parse_records(&fixture("queens-2core.pp")).unwrap();
    let mine: Vec<&Record> = records
        .iter()
        .filter(|r| r.tag() == Some("search"))
        .collect();
    let vars = vec!["k".to_string(), "p".to_string()];
    let fit = lca::policy::fit_category(&mine, "data", "li", &vars, &[]).unwrap();
    assert_eq!(
        fit.observations.len(),
        14,
        "every configuration, p = 1 included"
    );
    let chosen_cv = fit.chosen.model.quality.cv;
    let kept = fit
        .ranked
        .iter()
        .find(|(m, _)| m.label.contains(" at p = 1 + "))
        .expect("a form with a p = 1 part is weighed");
    println!(
        "queens search li: chosen `{}` held-out {:.2} %; best with a p = 1 part `{}` held-out {:.2} %",
        fit.chosen.model.expr,
        100.0 * chosen_cv,
        kept.0.expr,
        100.0 * kept.0.quality.cv
    );
    assert!(kept.0.quality.cv < chosen_cv);
    let Some(text) = fft_16_cores() else {
        return;
    };
    let records = parse_records(&text).unwrap();
    let vars = vec!["n".to_string(), "p".to_string()];
    for tag in ["cols", "transpose", "rows"] {
        let mine: Vec<&Record> = records.iter().filter(|r| r.tag() == Some(tag)).collect();
        let fit = lca::policy::fit_category(&mine, "data", "li", &vars, &[]).unwrap();
        assert!(
            fit.observations.data.points.iter().all(|pt| pt.x[1] > 1.0),
            "{tag}: li weighed at p = 1"
        );
    }
}
