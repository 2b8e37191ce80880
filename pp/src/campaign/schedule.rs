//! How often and in which order the points of a campaign run.
//!
//! Round robin: one repetition of every point, then the next round, each round in the
//! opposite order of the one before (0, 1, 2, then 2, 1, 0, ...), so that the repetitions of
//! every point are spread over the whole campaign and a disturbance from other load, or a
//! drift of the machine's speed, hits all points alike instead of one point wholesale; the
//! reversal keeps a point from always following the same neighbour. Warm-up rounds (run
//! first, unrecorded) absorb thread creation, page faults and the clock ramp.

use std::time::Duration;

/// How often to repeat, and how long to wait for quiet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Repeats {
    /// Quiet repetitions wanted per point.
    pub quiet: usize,
    /// Most rounds (repetitions per point, quiet or not).
    pub most: usize,
    /// Fewest rounds, whatever the budget and however many are quiet.
    pub min_rounds: usize,
    /// Time for the whole campaign: no round starts after it has passed, once
    /// `min_rounds` are done (None: no limit).
    pub budget: Option<Duration>,
    /// Keep running rounds (up to `most`) while the budget lasts even when every point has
    /// its quiet repetitions: the repetitions of two campaigns meant to be compared then
    /// span the same time. False: stop as soon as every point has `quiet` quiet ones.
    pub fill_budget: bool,
    /// Unrecorded warm-up rounds before the first recorded one.
    pub warmup: usize,
    /// Longest wait for quiet before the first round; a third of it after every round and
    /// after every disturbed repetition.
    pub wait: Duration,
}

impl Repeats {
    /// `quiet` quiet repetitions per point, at most three times as many rounds, one warm-up
    /// round, up to 2 s of waiting for quiet before the campaign, no time budget.
    pub fn new(quiet: usize) -> Repeats {
        let quiet = quiet.max(1);
        Repeats {
            quiet,
            most: 3 * quiet,
            min_rounds: quiet,
            budget: None,
            fill_budget: false,
            warmup: 1,
            wait: Duration::from_secs(2),
        }
    }

    /// The most rounds that can run: `most`, but never fewer than `min_rounds` or 1.
    pub fn most_rounds(&self) -> usize {
        self.most.max(self.min_rounds).max(1)
    }

    /// Whether another round should start after `done` rounds, `elapsed` time, with
    /// `quiet_counts` quiet repetitions of each point so far.
    pub fn another_round(&self, done: usize, elapsed: Duration, quiet_counts: &[usize]) -> bool {
        if done >= self.most_rounds() {
            return false;
        }
        if done < self.min_rounds.max(1) {
            return true;
        }
        if self.budget.is_some_and(|b| elapsed > b) {
            return false;
        }
        self.fill_budget || quiet_counts.iter().any(|&q| q < self.quiet)
    }
}

/// The order of the points (by index, of `count`) in round `round` (0-based).
pub fn round_order(count: usize, round: usize) -> Vec<usize> {
    if round.is_multiple_of(2) {
        (0..count).collect()
    } else {
        (0..count).rev().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_alternate_direction() {
        assert_eq!(round_order(3, 0), [0, 1, 2]);
        assert_eq!(round_order(3, 1), [2, 1, 0]);
        assert_eq!(round_order(3, 2), [0, 1, 2]);
        assert!(round_order(0, 1).is_empty());
    }

    #[test]
    fn stops_once_every_point_has_its_quiet_repetitions() {
        let r = Repeats::new(3);
        let t = Duration::ZERO;
        assert!(r.another_round(0, t, &[0, 0]));
        // Fewer rounds than the quiet ones wanted: go on whatever the counts say.
        assert!(r.another_round(2, t, &[2, 2]));
        assert!(!r.another_round(3, t, &[3, 3]));
        // One point still short: another round, up to `most`.
        assert!(r.another_round(3, t, &[3, 2]));
        assert!(r.another_round(8, t, &[9, 2]));
        assert!(!r.another_round(9, t, &[9, 2]));
        assert_eq!(r.most_rounds(), 9);
    }

    #[test]
    fn a_budget_ends_rounds_after_the_minimum_and_filling_uses_it_all() {
        let mut r = Repeats::new(2);
        r.budget = Some(Duration::from_secs(10));
        r.min_rounds = 3;
        let (before, after) = (Duration::from_secs(5), Duration::from_secs(11));
        assert!(r.another_round(2, after, &[0]));
        assert!(!r.another_round(3, after, &[0]));
        assert!(r.another_round(3, before, &[0]));
        assert!(!r.another_round(3, before, &[2]));
        r.fill_budget = true;
        assert!(r.another_round(3, before, &[2]));
        assert!(!r.another_round(3, after, &[2]));
        assert!(!r.another_round(6, before, &[2]));
    }
}
