//! The one rule that sums a window's categories into its processor-time (and so its time
//! `T = processor-time / p`), used by `pp`'s invariant check, `lca`'s run-time model and
//! evaluation, `lcm`'s fragment terms and the study.
//!
//! How the categories relate (docs/predicates.md):
//! - `tt = li + ip + sl + wc + rt` exactly: the five partition the processor-time
//!   ([`TT_PARTITION`]).
//! - `rt = pc + ml` where a baseline was given ([`RT_SPLIT`]): pure computation plus memory
//!   loss.
//! - `ml` is the memory-system part of the work; `cl` and `rc` describe it from counters
//!   (`rc = max(0, ml − cl)`, so `cl + rc = ml` whenever `ml ≥ cl`).
//! - `fj` is a part of `li`; `os` is time inside the busy time (`rt`, or `pc + ml`);
//!   `over` is thread-time beyond `tt`. None of the three is ever added.
//!
//! # The rule
//! A window's processor-time is `li + ip + sl + wc` (those known) plus its busy time:
//! `rt` when known; else `pc` plus the memory part (`ml`, else `cl + rc`); else the memory
//! part alone. When none of these is known, `tt` itself. A category that is not known (not
//! measured, or left out of a fitted model) counts as absent, not as an error.
//!
//! ```
//! use category::{time, Category};
//! let t = time::time_terms(|c| matches!(c, Category::Li | Category::Rt | Category::Tt | Category::Os));
//! assert_eq!(t, [Category::Li, Category::Rt]);
//! let v = time::sum(&t, |c| Some(if c == Category::Li { 1.0 } else { 3.0 }), |a, b| a + b);
//! assert_eq!(v, Some(4.0));
//! ```

use crate::Category;

/// The categories that partition the processor-time: `li + ip + sl + wc + rt = tt`.
pub const TT_PARTITION: [Category; 5] = [
    Category::Li,
    Category::Ip,
    Category::Sl,
    Category::Wc,
    Category::Rt,
];

/// The split of `rt` with a baseline: `rt = pc + ml`.
pub const RT_SPLIT: [Category; 2] = [Category::Pc, Category::Ml];

/// The idle and spinning categories of [`TT_PARTITION`] (all but `rt`), always summed when
/// known.
pub const LOSSES: [Category; 4] = [Category::Li, Category::Ip, Category::Sl, Category::Wc];

/// The memory-system part of the work, of the categories `known`: `ml`, else `cl` and `rc`
/// (those known), else none.
pub fn memory_terms(known: impl Fn(Category) -> bool) -> Vec<Category> {
    if known(Category::Ml) {
        vec![Category::Ml]
    } else {
        [Category::Cl, Category::Rc]
            .into_iter()
            .filter(|c| known(*c))
            .collect()
    }
}

/// The categories whose sum is the processor-time (the module's rule), of the categories
/// `known`, in the rule's order: the losses `li ip sl wc`, then the busy time (`rt`, or
/// `pc` and the memory part, or the memory part), or `tt` alone when none of these is known;
/// empty when not even `tt` is.
pub fn time_terms(known: impl Fn(Category) -> bool) -> Vec<Category> {
    let mut terms: Vec<Category> = LOSSES.into_iter().filter(|c| known(*c)).collect();
    if known(Category::Rt) {
        terms.push(Category::Rt);
    } else {
        if known(Category::Pc) {
            terms.push(Category::Pc);
        }
        terms.extend(memory_terms(&known));
    }
    if terms.is_empty() && known(Category::Tt) {
        terms.push(Category::Tt);
    }
    terms
}

/// [`time_terms`] of the categories named by `keys` (keys that name no category are
/// ignored: a models file may carry other values).
pub fn time_terms_of_keys<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<Category> {
    let known: Vec<Category> = keys.into_iter().filter_map(Category::from_key).collect();
    time_terms(|c| known.contains(&c))
}

/// Whether the category with record key `key` is one of `terms` (false for keys that name
/// no category).
pub fn counts(terms: &[Category], key: &str) -> bool {
    Category::from_key(key).is_some_and(|c| terms.contains(&c))
}

/// The sum of `terms`' values, left to right with `add` (values of any kind: seconds,
/// model expressions); `None` when `terms` is empty or a term has no value.
pub fn sum<T>(
    terms: &[Category],
    value: impl Fn(Category) -> Option<T>,
    add: impl FnMut(T, T) -> T,
) -> Option<T> {
    terms
        .iter()
        .map(|c| value(*c))
        .collect::<Option<Vec<T>>>()?
        .into_iter()
        .reduce(add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Category::*;

    fn terms(known: &[Category]) -> Vec<Category> {
        time_terms(|c| known.contains(&c))
    }

    #[test]
    fn a_measured_window_sums_to_tt() {
        // What pp measures without a baseline or counters.
        assert_eq!(terms(&[Li, Fj, Ip, Sl, Wc, Rt, Tt]), TT_PARTITION);
        assert_eq!(Tt.sum_of(), TT_PARTITION);
        // With a baseline and every counter, rt still carries the busy time: pc, ml, cl,
        // rc and os are inside it, fj inside li, over outside tt.
        assert_eq!(terms(&Category::ALL), TT_PARTITION);
    }

    #[test]
    fn pc_and_the_memory_part_stand_for_a_missing_rt() {
        assert_eq!(Rt.sum_of(), RT_SPLIT);
        assert_eq!(terms(&[Pc, Ml, Li, Os]), [Li, Pc, Ml]);
        assert_eq!(terms(&[Pc, Cl, Rc, Sl]), [Sl, Pc, Cl, Rc]);
        assert_eq!(terms(&[Pc, Ml, Cl, Rc]), [Pc, Ml]);
        assert_eq!(terms(&[Pc]), [Pc]);
        assert_eq!(terms(&[Ml, Ip]), [Ip, Ml]);
        assert_eq!(memory_terms(|c| c == Rc), [Rc]);
    }

    #[test]
    fn tt_only_when_nothing_else_and_parts_never() {
        assert_eq!(terms(&[Tt, Over, Os, Fj]), [Tt]);
        assert_eq!(terms(&[Li, Tt]), [Li]);
        assert!(terms(&[Over, Os, Fj]).is_empty());
        assert!(terms(&[]).is_empty());
    }

    #[test]
    fn keys_and_sums() {
        let t = time_terms_of_keys(["rt", "bytes", "li", "tt"]);
        assert_eq!(t, [Li, Rt]);
        assert!(counts(&t, "rt") && !counts(&t, "tt") && !counts(&t, "bytes"));
        // The partition of a consistent profile adds up to its tt.
        let v = |c: Category| match c {
            Li => Some(0.5),
            Ip => Some(0.25),
            Sl => Some(0.125),
            Wc => Some(0.0),
            Rt => Some(3.125),
            _ => None,
        };
        assert_eq!(sum(&TT_PARTITION, v, |a, b| a + b), Some(4.0));
        assert_eq!(sum(&[Li, Pc], v, |a, b| a + b), None);
        assert_eq!(sum::<f64>(&[], v, |a, b| a + b), None);
        let text = sum(
            &[Li, Ip, Rt],
            |c| Some(c.key().to_string()),
            |a, b| format!("({a} + {b})"),
        );
        assert_eq!(text.as_deref(), Some("((li + ip) + rt)"));
    }
}
