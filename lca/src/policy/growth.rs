//! Overheads that outgrow the work: whether an overhead's chosen form grows faster in a size
//! variable than the fragment's work, and whether held-out extrapolation along that
//! variable supports it (see the [module docs](super)). `lca model` says so in a note;
//! the choice stays with the held-out score.
//!
//! Why it matters: an overhead per unit of work that keeps growing beyond the measured
//! sizes says that the parallel run gets ever worse relative to the computation it
//! parallelizes. That happens (a serial phase whose cost grows faster than the parallel
//! work), but few sizes rarely show it: a form with a fast-growing term of small
//! coefficient can follow a bump at the largest measured size, or differences of noisy
//! times, and then multiplies that bump beyond it, where it soon dominates the predicted
//! time. The held-out fold that leaves the largest size out is the data's own evidence for
//! the faster growth; the note gives it beside that of the best form whose share of the
//! work does not grow, so that a user knows how far the model can be trusted.

use super::candidates::Candidate;
use super::choose::Ranked;
use super::heldout::extrapolation_along;
use super::observations::Observations;
use crate::expr::Expr;

/// How far beyond the largest measured value of a size variable an overhead's share of the
/// work is followed: the largest value times 2, 4, …, 1024 (the extrapolation range a
/// prediction is trusted to, and the growth that eventually dominates).
pub const GROWTH_FACTORS: [f64; 10] =
    [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0];

/// How much an overhead's share of the work, `|overhead| / work`, may rise beyond its value
/// at the largest measured size before the form counts as outgrowing the work (a fraction:
/// 0.01 = 1 %). Not 0, so that an overhead that grows as the work's leading term does not
/// count as outgrowing a work model with a small constant term (whose share of the work
/// shrinks with the size).
pub const GROWTH_TOLERANCE: f64 = 0.01;

/// The fewest measured values of a size variable whose held-out extrapolation can support
/// faster growth along it (4). With three, the fold that leaves the largest out fits the
/// form on two sizes and one size decides; three sizes allow one growth term
/// ([`super::candidates::coefficient_budget`]), and neighbouring exponents (`n^3·log2(n)`,
/// `n^(11/4)·log2(n)`) of one term cannot be told apart there: serial O(n²) code measured
/// at three sizes was noted as growing as n³·log2(n), 'supported' by 0.1 % against 0.6 %
/// of the time.
pub const MIN_VALUES_TO_SUPPORT: usize = 4;

/// Whether `overhead`'s share of `work` rises beyond the largest measured value of
/// variable `v` of `obs`: at any configuration measured at that value, the share at
/// [`GROWTH_FACTORS`] times it exceeds the share there by more than [`GROWTH_TOLERANCE`]
/// (or the overhead stops being finite). Configurations where the work is not positive
/// and finite are not compared.
pub fn outgrows(overhead: &Expr, work: &Expr, obs: &Observations, v: usize) -> bool {
    let data = &obs.data;
    let Some(&top) = data.distinct(v).last() else {
        return false;
    };
    let name = &data.variables[v];
    let share = |b: &crate::expr::Bindings| -> Option<f64> {
        let w = work.eval(b).ok().filter(|w| w.is_finite() && *w > 0.0)?;
        Some(overhead.eval(b).map_or(f64::INFINITY, |o| o.abs() / w))
    };
    data.points.iter().filter(|pt| pt.x[v] == top).any(|pt| {
        let mut b = data.bindings(pt);
        let Some(at_top) = share(&b).filter(|s| s.is_finite()) else {
            return false;
        };
        GROWTH_FACTORS.iter().any(|k| {
            b.insert(name.clone(), k * top);
            share(&b).is_some_and(|s| !s.is_finite() || s > at_top * (1.0 + GROWTH_TOLERANCE))
        })
    })
}

/// One overhead whose chosen form outgrows the work, and the held-out evidence for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgrowth {
    /// The size variables along which the best form outgrows the work.
    pub variables: Vec<String>,
    /// The chosen form (best held-out score), which outgrows the work.
    pub faster: Expr,
    /// The best form (by held-out score) that outgrows the work along no size variable.
    pub bounded: Expr,
    /// Held-out extrapolation errors along each of `variables` (fractions of the
    /// fragment's time; NaN where the form could not be refitted in a fold): the faster
    /// form's, then the bounded one's.
    pub errors: Vec<(f64, f64)>,
    /// The number of measured values of each of `variables`.
    pub values: Vec<usize>,
    /// True when held-out extrapolation supports the faster form: along every variable it
    /// outgrows the work in, at least [`MIN_VALUES_TO_SUPPORT`] values were measured and
    /// it predicts the largest sizes left out better than the bounded one.
    pub supported: bool,
}

/// Judges the chosen form of an overhead (the first of `ranked`, candidates fitted on
/// `obs`): when it outgrows `work` along a size variable (every variable but `processors`
/// that takes two or more values), it is compared with the best form that outgrows it along
/// none on the held-out extrapolation folds along each of those variables. None when the
/// chosen form does not outgrow the work, no form could be tested, or every form outgrows
/// it.
pub fn judge(
    ranked: &Ranked,
    obs: &Observations,
    work: &Expr,
    processors: &str,
) -> Option<Outgrowth> {
    if ranked.untested {
        return None;
    }
    let sizes: Vec<usize> = (0..obs.data.variables.len())
        .filter(|&v| obs.data.variables[v] != processors && obs.data.distinct(v).len() >= 2)
        .collect();
    let faster_along = |c: &Candidate| -> Vec<usize> {
        sizes
            .iter()
            .copied()
            .filter(|&v| outgrows(&c.model.expr, work, obs, v))
            .collect()
    };
    let chosen = &ranked.weighed.first()?.candidate;
    let along = faster_along(chosen);
    if along.is_empty() {
        return None;
    }
    let bounded = &ranked
        .weighed
        .iter()
        .find(|w| faster_along(&w.candidate).is_empty())?
        .candidate;
    let errors: Vec<(f64, f64)> = along
        .iter()
        .map(|&v| {
            let e = |c: &Candidate| extrapolation_along(obs, &*c.refit, v).unwrap_or(f64::NAN);
            (e(chosen), e(bounded))
        })
        .collect();
    // Supported: enough sizes along every such variable, and there the faster form could
    // be tested and predicts better than the bounded one (or the bounded one could not be
    // refitted there).
    let values: Vec<usize> = along.iter().map(|&v| obs.data.distinct(v).len()).collect();
    let supported = values.iter().all(|&d| d >= MIN_VALUES_TO_SUPPORT)
        && errors
            .iter()
            .all(|&(f, b)| f.is_finite() && (b.is_nan() || f < b));
    Some(Outgrowth {
        variables: along
            .iter()
            .map(|&v| obs.data.variables[v].clone())
            .collect(),
        faster: chosen.model.expr.clone(),
        bounded: bounded.model.expr.clone(),
        errors,
        values,
        supported,
    })
}

/// The note that says how far the chosen form can be trusted beyond the measured sizes.
pub fn note(o: &Outgrowth) -> String {
    let vars = o.variables.join(", ");
    let errors = o
        .variables
        .iter()
        .zip(&o.errors)
        .map(|(v, (f, b))| format!("{v}: {:.1} % against {:.1} %", 100.0 * f, 100.0 * b))
        .collect::<Vec<_>>()
        .join("; ");
    let evidence = format!(
        "held-out error with the largest measured {vars} left out, {errors} for `{}`, the best form whose share of the work does not grow",
        o.bounded
    );
    let few: Vec<String> = o
        .variables
        .iter()
        .zip(&o.values)
        .filter(|(_, &d)| d < MIN_VALUES_TO_SUPPORT)
        .map(|(v, d)| format!("{d} measured {v}"))
        .collect();
    if !few.is_empty() {
        format!(
            "`{}` grows faster in {vars} than the work, which {} are too few to support ({evidence}; support needs {MIN_VALUES_TO_SUPPORT} or more values): beyond the measured {vars} its growth is not to be trusted",
            o.faster,
            few.join(" and ")
        )
    } else if o.supported {
        format!(
            "`{}` grows faster in {vars} than the work; the largest measured {vars} support it ({evidence})",
            o.faster
        )
    } else {
        format!(
            "`{}` grows faster in {vars} than the work, which the largest measured {vars} do not support ({evidence}): beyond the measured {vars} its growth is not to be trusted",
            o.faster
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{DataPoint, Dataset};
    use crate::expr::parse;
    use crate::hypothesis::Hypothesis;
    use crate::policy::candidates;
    use crate::policy::choose::Weighed;
    use crate::policy::heldout::held_out;

    /// The work of the synthetic fragments: `1e-9·n²` processor-seconds.
    fn work() -> Expr {
        parse("1e-9*n^2").unwrap()
    }

    /// An overhead `y(n, p)` at p = 2, 4, 8, 16 and n = 64 … 1024, each observation's
    /// scale the fragment's processor-time there (work plus overhead).
    fn overhead(y: impl Fn(f64, f64) -> f64) -> Observations {
        overhead_at(&[64.0, 128.0, 256.0, 512.0, 1024.0], y)
    }

    /// The same at the sizes `sizes`.
    fn overhead_at(sizes: &[f64], y: impl Fn(f64, f64) -> f64) -> Observations {
        let mut points = Vec::new();
        let mut scale = Vec::new();
        for &n in sizes {
            for p in [2.0f64, 4.0, 8.0, 16.0] {
                let v = y(n, p);
                points.push(DataPoint {
                    x: vec![n, p],
                    y: v,
                    line: 0,
                });
                scale.push(1e-9 * n * n + v);
            }
        }
        Observations {
            data: Dataset::new("li", &["n", "p"], points),
            scale,
            records: 4 * sizes.len(),
        }
    }

    /// The candidates `(p − 1)·n³` (faster than the work) and `(p − 1)·n²` (bounded by it),
    /// in that order, whatever their held-out scores: the judgement reads the first as the
    /// chosen one.
    fn faster_first(obs: &Observations) -> Ranked {
        let weighed = ["(p - 1)*n^3", "(p - 1)*n^2"]
            .iter()
            .map(|f| {
                let h = Hypothesis::formula(f, &obs.data.variables).unwrap();
                let candidate = candidates::hypothesis(&h, &obs.data, &obs.scale).unwrap();
                let held_out = held_out(obs, &*candidate.refit);
                Weighed {
                    candidate,
                    held_out,
                    score: held_out.score,
                }
            })
            .collect();
        Ranked {
            weighed,
            penalty: 1.0,
            untested: false,
        }
    }

    #[test]
    fn a_share_of_the_work_that_grows_beyond_the_largest_size_outgrows_it() {
        let obs = overhead(|n, p| 1e-12 * n.powi(3) * (p - 1.0));
        let w = work();
        let grows = |e: &str| outgrows(&parse(e).unwrap(), &w, &obs, 0);
        assert!(grows("1e-12*n^3*(p - 1)"));
        // A small fast term beside a constant: its share falls over the measured sizes,
        // then rises beyond them.
        assert!(grows("(p - 1)*(1e-15*n^3 + 1e-4)"));
        assert!(!grows("0.1*1e-9*n^2*(p - 1)"));
        assert!(!grows("(p - 1)*(1e-10*n*log2(n) + 1e-5)"));
        assert!(!grows("-3e-8*n^2*log2(p)"), "ml: by its size, bounded");
        // n² against a work with a constant term: the share rises by under 1 % as the
        // constant's share of the work vanishes.
        let with_constant = parse("1e-9*n^2 + 1e-5").unwrap();
        assert!(!outgrows(
            &parse("1e-10*n^2*(p - 1)").unwrap(),
            &with_constant,
            &obs,
            0
        ));
        assert!(!grows("0"));
    }

    #[test]
    fn faster_growth_that_the_largest_size_shows_is_supported() {
        let obs = overhead(|n, p| 1e-12 * n.powi(3) * (p - 1.0));
        let o = judge(&faster_first(&obs), &obs, &work(), "p").unwrap();
        assert_eq!(o.variables, ["n"]);
        assert!(o.supported, "{o:?}");
        let (f, b) = o.errors[0];
        assert!(f < 1e-9 && b > 0.1, "{o:?}");
        let text = note(&o);
        assert!(
            text.contains("grows faster in n than the work; the largest measured n support it"),
            "{text}"
        );
    }

    #[test]
    fn faster_growth_that_the_largest_size_contradicts_is_warned_about() {
        // The overhead is a share of the work: the faster form, were it chosen, overshoots
        // the largest size when fitted without it.
        let obs = overhead(|n, p| 1e-10 * n * n * (p - 1.0));
        let o = judge(&faster_first(&obs), &obs, &work(), "p").unwrap();
        assert!(!o.supported, "{o:?}");
        let (f, b) = o.errors[0];
        assert!(b < 1e-9 && f > 0.05, "{o:?}");
        assert_eq!(o.bounded.to_string(), "1e-10*(p - 1)*n^2");
        assert!(note(&o).contains("do not support"), "{}", note(&o));
    }

    #[test]
    fn a_chosen_form_bounded_by_the_work_needs_no_judgement() {
        let obs = overhead(|n, p| 1e-10 * n * n * (p - 1.0));
        let mut r = faster_first(&obs);
        r.weighed.reverse();
        assert!(judge(&r, &obs, &work(), "p").is_none());
    }

    /// The same faster growth at three sizes: the fold that leaves the largest out fits on
    /// two, and one size decides; the note must not call the growth supported, however
    /// well that fold predicts.
    #[test]
    fn three_sizes_are_too_few_to_support_faster_growth() {
        let obs = overhead_at(&[256.0, 512.0, 1024.0], |n, p| {
            1e-12 * n.powi(3) * (p - 1.0)
        });
        let o = judge(&faster_first(&obs), &obs, &work(), "p").unwrap();
        assert_eq!(o.values, [3]);
        let (f, b) = o.errors[0];
        assert!(f < b, "the fold alone would support it: {o:?}");
        assert!(!o.supported, "{o:?}");
        let text = note(&o);
        assert!(
            text.contains("which 3 measured n are too few to support (")
                && text.contains("support needs 4 or more values): beyond the measured n its growth is not to be trusted"),
            "{text}"
        );
    }
}
