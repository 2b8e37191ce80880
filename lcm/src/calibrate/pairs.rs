//! A two-processor price over many pairs of processors: each pair's median, then their
//! mean ([`over_pairs`]).
//!
//! What a line costs to move between two processors depends on the pair: on a machine
//! whose processors sit at different distances (two last-level cache slices, two sockets,
//! or on a virtual machine two virtual processors that are hyper-threads of one host core
//! beside two that are not) some pairs are several times dearer than others. A program's
//! threads exchange lines over all their pairs, so the price a prediction needs is the
//! average over the pairs, not the price of one pair drawn at random. A median over a few
//! repetitions, each on a pair drawn anew, lands in whichever mode most draws hit, and two
//! calibrations of one machine can keep prices several times apart. Here each of up to
//! [`MAX_PAIRS`] distinct pairs ([`distinct_pairs`]) is timed [`MIN_PAIR_REPETITIONS`] times
//! or more, the median of its quiet repetitions is the pair's price
//! ([`super::quiet::median_of_quiet`]), and the price kept is the mean of the pairs'
//! prices. How far the pairs lie apart, the largest pair price over the least
//! ([`OverPairs::pair_spread`]), says whether the machine's pairs differ at all.
//!
//! The time stays about that of the plain repetitions: [`plan_pairs`] shares the same
//! updates out among the pairs' runs (never fewer than [`MIN_PAIR_UPDATES`] a run). On a
//! machine with one pair (two processors) the plan is the plain one: that pair, every
//! repetition, every update.

use super::quiet::{median_of_quiet, Kept, LoadProbe};

/// Most distinct pairs of processors one two-processor price visits.
pub const MAX_PAIRS: usize = 12;

/// Least repetitions of each pair (their median is the pair's price).
pub const MIN_PAIR_REPETITIONS: usize = 3;

/// Least updates per thread in one run on a pair (shorter runs time the threads' start).
pub const MIN_PAIR_UPDATES: u64 = 100_000;

/// Which pairs a two-processor price visits, and how long on each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairPlan {
    /// The pairs of processors, each two distinct allowed ones (none when fewer than two
    /// are allowed).
    pub pairs: Vec<[usize; 2]>,
    /// Repetitions of each pair.
    pub repetitions: usize,
    /// Updates per thread in each run.
    pub updates: u64,
}

/// The plan for a price that `repetitions` runs of `updates` each would measure on one
/// pair: up to [`MAX_PAIRS`] distinct pairs of `allowed` ([`distinct_pairs`] with `seed`),
/// each repeated `max(MIN_PAIR_REPETITIONS, repetitions / pairs)` times (rounded up),
/// sharing the same updates in all (at least [`MIN_PAIR_UPDATES`] a run, and never more
/// than `updates`). With one pair: `repetitions` runs of `updates`.
pub fn plan_pairs(allowed: &[usize], repetitions: usize, updates: u64, seed: u64) -> PairPlan {
    let repetitions = repetitions.max(1);
    let updates = updates.max(1);
    let pairs = distinct_pairs(allowed, MAX_PAIRS, seed);
    if pairs.len() <= 1 {
        return PairPlan {
            pairs,
            repetitions,
            updates,
        };
    }
    let per_pair = repetitions.div_ceil(pairs.len()).max(MIN_PAIR_REPETITIONS);
    let runs = (pairs.len() * per_pair) as u64;
    let shared = (updates * repetitions as u64).div_ceil(runs);
    PairPlan {
        pairs,
        repetitions: per_pair,
        updates: shared.max(MIN_PAIR_UPDATES).min(updates),
    }
}

/// Up to `count` distinct pairs of the processors `allowed` (duplicates in `allowed` count
/// once), drawn at random without replacement with `seed` (the same seed, the same pairs);
/// every pair when there are no more than `count`. Each pair is in increasing order.
pub fn distinct_pairs(allowed: &[usize], count: usize, seed: u64) -> Vec<[usize; 2]> {
    let mut cpus = allowed.to_vec();
    cpus.sort_unstable();
    cpus.dedup();
    let mut all: Vec<[usize; 2]> = Vec::new();
    for (i, &a) in cpus.iter().enumerate() {
        for &b in &cpus[i + 1..] {
            all.push([a, b]);
        }
    }
    let take = count.min(all.len());
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for i in 0..take {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = i + (x % (all.len() - i) as u64) as usize;
        all.swap(i, j);
    }
    all.truncate(take);
    all
}

/// One pair's price.
#[derive(Debug, Clone, PartialEq)]
pub struct PairPrice {
    /// The two processors.
    pub pair: [usize; 2],
    /// How the pair's price was kept: the median of its quiet repetitions.
    pub kept: Kept,
}

/// A two-processor price over pairs of processors.
#[derive(Debug, Clone, PartialEq)]
pub struct OverPairs {
    /// Every pair visited, in the plan's order.
    pub pairs: Vec<PairPrice>,
    /// The price with how it was kept: `value` the mean of the pairs' prices (over the
    /// pairs that gave one; NaN when none did), `pairs` how many did; the counts summed
    /// over every pair's repetitions; `low` and `high` the least and largest kept
    /// repetition of any pair.
    pub kept: Kept,
}

impl OverPairs {
    /// The pairs that gave a price, least price first.
    pub fn priced(&self) -> Vec<&PairPrice> {
        let mut v: Vec<&PairPrice> = self
            .pairs
            .iter()
            .filter(|p| p.kept.value.is_finite())
            .collect();
        v.sort_by(|a, b| a.kept.value.total_cmp(&b.kept.value));
        v
    }

    /// How far the pairs' prices lie apart: the largest over the least (1 when they
    /// agree; infinite when the least is 0 and the largest is not; NaN with fewer than two
    /// priced pairs).
    pub fn pair_spread(&self) -> f64 {
        let priced = self.priced();
        let (Some(least), Some(most)) = (priced.first(), priced.last()) else {
            return f64::NAN;
        };
        if priced.len() < 2 {
            return f64::NAN;
        }
        let (lo, hi) = (least.kept.value, most.kept.value);
        if lo <= 0.0 {
            return if hi <= 0.0 { 1.0 } else { f64::INFINITY };
        }
        hi / lo
    }
}

/// Times every pair of `plan` ([`PairPlan::repetitions`] times each, judged quiet by
/// `probe`) with `once(pair, updates)`, a run's price or NaN when the run could not judge
/// it, and keeps the mean of the pairs' medians (see the module docs). Without pairs (fewer
/// than two processors allowed) `once` never runs and no repetition gives a number.
pub fn over_pairs(
    plan: &PairPlan,
    probe: &dyn LoadProbe,
    mut once: impl FnMut([usize; 2], u64) -> f64,
) -> OverPairs {
    if plan.pairs.is_empty() {
        let kept = median_of_quiet(plan.repetitions, probe, || f64::NAN);
        return OverPairs {
            pairs: Vec::new(),
            kept,
        };
    }
    let pairs: Vec<PairPrice> = plan
        .pairs
        .iter()
        .map(|&pair| PairPrice {
            pair,
            kept: median_of_quiet(plan.repetitions, probe, || once(pair, plan.updates)),
        })
        .collect();
    let prices: Vec<f64> = pairs
        .iter()
        .map(|p| p.kept.value)
        .filter(|v| v.is_finite())
        .collect();
    let value = if prices.is_empty() {
        f64::NAN
    } else {
        prices.iter().sum::<f64>() / prices.len() as f64
    };
    let kept = Kept {
        value,
        repetitions: pairs.iter().map(|p| p.kept.repetitions).sum(),
        quiet: pairs.iter().map(|p| p.kept.quiet).sum(),
        unknown: pairs.iter().map(|p| p.kept.unknown).sum(),
        measured: pairs.iter().map(|p| p.kept.measured).sum(),
        low: pairs.iter().map(|p| p.kept.low).fold(f64::NAN, f64::min),
        high: pairs.iter().map(|p| p.kept.high).fold(f64::NAN, f64::max),
        pairs: prices.len(),
    };
    OverPairs { pairs, kept }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::quiet::CpuSample;

    /// A probe that cannot read the counters: every repetition counts as quiet.
    struct NoProbe;

    impl LoadProbe for NoProbe {
        fn sample(&self) -> Option<CpuSample> {
            None
        }
    }

    #[test]
    fn pairs_are_distinct_allowed_and_fixed_by_the_seed() {
        let allowed: Vec<usize> = (0..16).collect();
        let pairs = distinct_pairs(&allowed, MAX_PAIRS, 7);
        assert_eq!(pairs.len(), MAX_PAIRS);
        let set: std::collections::BTreeSet<_> = pairs.iter().collect();
        assert_eq!(set.len(), MAX_PAIRS, "{pairs:?}");
        assert!(pairs.iter().all(|[a, b]| a < b && *b < 16));
        assert_eq!(pairs, distinct_pairs(&allowed, MAX_PAIRS, 7));
        assert_ne!(pairs, distinct_pairs(&allowed, MAX_PAIRS, 8));
        // Few processors: every pair once; a duplicate processor is one processor.
        assert_eq!(
            distinct_pairs(&[3, 1, 2, 3], 12, 0).len(),
            3,
            "three processors, three pairs"
        );
        assert_eq!(distinct_pairs(&[4, 5], 12, 9), vec![[4, 5]]);
        assert!(distinct_pairs(&[4], 12, 9).is_empty());
    }

    #[test]
    fn one_pair_keeps_the_plain_plan_and_many_share_its_updates() {
        // Two processors: the one pair, every repetition, every update (as before pairs).
        let two = plan_pairs(&[0, 1], 9, 2_000_000, 1);
        assert_eq!(
            two,
            PairPlan {
                pairs: vec![[0, 1]],
                repetitions: 9,
                updates: 2_000_000
            }
        );
        // Sixteen processors, 9 repetitions of 2 million: 12 pairs of 3 runs of 500 000,
        // the same 18 million updates in all.
        let many = plan_pairs(&(0..16).collect::<Vec<_>>(), 9, 2_000_000, 1);
        assert_eq!((many.pairs.len(), many.repetitions), (12, 3));
        assert_eq!(many.updates, 500_000);
        // Few updates to share: each run still makes MIN_PAIR_UPDATES, never more than
        // asked for.
        let quick = plan_pairs(&(0..16).collect::<Vec<_>>(), 5, 500_000, 1);
        assert_eq!(quick.updates, MIN_PAIR_UPDATES);
        assert_eq!(
            plan_pairs(&(0..4).collect::<Vec<_>>(), 5, 1000, 1).updates,
            1000
        );
        // Three processors, 9 repetitions: 3 pairs of 3.
        let three = plan_pairs(&[0, 1, 2], 9, 900_000, 1);
        assert_eq!((three.pairs.len(), three.repetitions), (3, 3));
        assert_eq!(three.updates, 900_000);
    }

    #[test]
    fn pairs_of_two_kinds_give_their_mean_and_the_spread() {
        // Sixteen processors in two halves: a pair within a half prices 20 ns, a pair
        // across the halves 70 ns (a bimodal machine). Each pair's repetitions scatter a
        // little around its price; the price kept is the mean of the pairs' medians.
        let allowed: Vec<usize> = (0..16).collect();
        let plan = plan_pairs(&allowed, 9, 2_000_000, 3);
        let price = |[a, b]: [usize; 2]| if a / 8 == b / 8 { 20e-9 } else { 70e-9 };
        let mut run = 0usize;
        let over = over_pairs(&plan, &NoProbe, |pair, updates| {
            assert_eq!(updates, plan.updates);
            run += 1;
            price(pair) * (1.0 + 0.01 * (run % 3) as f64)
        });
        assert_eq!(run, 12 * 3);
        let across = plan.pairs.iter().filter(|&&p| price(p) > 50e-9).count();
        assert!(
            across > 0 && across < 12,
            "the draw holds pairs of both kinds: {across}"
        );
        // Each pair's median is its price times 1.01 (its runs: 1.00, 1.01, 1.02 in some
        // order); the mean weighs the two kinds by how many pairs of each were visited.
        let want = (across as f64 * 70e-9 + (12 - across) as f64 * 20e-9) / 12.0 * 1.01;
        assert!(
            (over.kept.value - want).abs() < 1e-15,
            "{}",
            over.kept.value
        );
        assert_eq!(over.kept.pairs, 12);
        assert_eq!((over.kept.repetitions, over.kept.measured), (36, 36));
        assert!(
            (over.pair_spread() - 3.5).abs() < 1e-12,
            "{}",
            over.pair_spread()
        );
        assert!((over.kept.low - 20e-9).abs() < 1e-20);
        assert!((over.kept.high - 70e-9 * 1.02).abs() < 1e-20);
        let priced = over.priced();
        assert_eq!(priced.len(), 12);
        assert!(priced[0].kept.value < priced[11].kept.value);
    }

    #[test]
    fn a_pair_without_a_price_is_left_out_of_the_mean() {
        // Four processors, six pairs; the pairs with processor 3 never run side by side.
        let plan = plan_pairs(&[0, 1, 2, 3], 5, 1000, 0);
        assert_eq!(plan.pairs.len(), 6);
        let over = over_pairs(&plan, &NoProbe, |[a, b], _| {
            if b == 3 {
                f64::NAN
            } else {
                (a + b) as f64
            }
        });
        // Pairs 0-1, 0-2, 1-2: prices 1, 2, 3.
        assert_eq!(over.kept.pairs, 3);
        assert_eq!(over.kept.value, 2.0);
        assert_eq!(over.pair_spread(), 3.0);
        assert_eq!(over.kept.measured, 3 * plan.repetitions);
        // No pair priced: NaN, and no spread.
        let none = over_pairs(&plan, &NoProbe, |_, _| f64::NAN);
        assert!(none.kept.value.is_nan() && none.pair_spread().is_nan());
        assert_eq!((none.kept.measured, none.kept.pairs), (0, 0));
        // One processor: no pair, nothing runs, no number.
        let alone = plan_pairs(&[0], 5, 1000, 0);
        let over = over_pairs(&alone, &NoProbe, |_, _| panic!("no pair to run"));
        assert_eq!((over.kept.repetitions, over.kept.measured), (5, 0));
        assert!(over.kept.value.is_nan());
    }
}
