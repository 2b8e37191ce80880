//! Sorting a merge frontier's transitions by time ([`crate::pipeline`]).
//!
//! The transitions a frontier gathers are sorted runs, one per lane; [`sort_runs`] puts
//! them in time order, stably (equal times keep the lanes' order, then each lane's own),
//! with a least-significant-digit radix sort, or by merging the runs pairwise when the
//! times are too spread or the runs too short. [`gather_runs`] copies the lanes' runs
//! together and makes the histograms, and leaves the radix passes ([`RadixPasses`]) to
//! another thread; [`sort_runs_but_last`] leaves the last pass ([`LastPass`]).

use crate::lane::Transition;

/// Bits per radix digit of [`sort_runs`].
pub const DIGIT: u32 = 11;

/// Most radix passes [`sort_runs`] makes before it merges instead.
pub const PASSES: usize = 3;

/// Reused histograms of [`sort_runs`], one per pass.
#[derive(Debug)]
pub struct RadixCounts(Vec<[u32; 1 << DIGIT]>);

impl RadixCounts {
    /// Histograms for [`PASSES`] passes.
    pub fn new() -> RadixCounts {
        RadixCounts(vec![[0; 1 << DIGIT]; PASSES])
    }
}

impl Default for RadixCounts {
    fn default() -> RadixCounts {
        RadixCounts::new()
    }
}

/// Sorts `items`, made of sorted runs `items[bounds[i]..bounds[i + 1]]`, by time, stably
/// (equal times keep their order: the runs' order, then each run's own).
///
/// Times within a frontier are close together, so a least-significant-digit radix sort
/// on `time - min` ([`DIGIT`] bits a pass, at most [`PASSES`] passes, each stable) costs
/// a few operations per transition and no comparisons; when the times span more than
/// `PASSES * DIGIT` bits, or there are few transitions, it merges the runs
/// ([`merge_runs`]) instead.
pub fn sort_runs(
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
    counts: &mut RadixCounts,
) {
    if let Some(pass) = sort_runs_but_last(items, bounds, scratch, counts) {
        pass.apply(items, scratch);
    }
}

/// The last pass of a radix sort (see [`sort_runs_but_last`]): where each digit's
/// transitions start.
#[derive(Debug)]
pub struct LastPass {
    lo: u64,
    shift: u32,
    starts: Box<[u32; 1 << DIGIT]>,
}

impl LastPass {
    /// Scatters `items` by the pass's digit (stably) through `scratch`.
    pub fn apply(mut self, items: &mut Vec<Transition>, scratch: &mut Vec<Transition>) {
        let mask = (1u64 << DIGIT) - 1;
        scratch.resize(items.len(), Transition::marker(0, 0, 0));
        let starts = &mut *self.starts;
        for tr in items.iter() {
            let d = (((tr.time - self.lo) >> self.shift) & mask) as usize;
            scratch[starts[d] as usize] = *tr;
            starts[d] += 1;
        }
        std::mem::swap(items, scratch);
    }
}

/// What a radix sort of sorted runs needs: the smallest time (keys are times minus it), the
/// bits the time range spans and the passes of [`DIGIT`] bits that covers.
struct RadixPlan {
    lo: u64,
    bits: u32,
    passes: usize,
}

/// The radix sort the runs of `items` (split at `bounds`) need, or `None` when `items` is
/// sorted already: one run, all at one time, or merged here instead (a time range wider
/// than [`PASSES`] passes, or too few items to pay for counting).
fn plan_radix(
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
) -> Option<RadixPlan> {
    if bounds.len() <= 2 {
        return None;
    }
    let lo = bounds[..bounds.len() - 1]
        .iter()
        .map(|&b| items[b].time)
        .min()
        .expect("runs");
    let hi = bounds[1..]
        .iter()
        .map(|&b| items[b - 1].time)
        .max()
        .expect("runs");
    let bits = 64 - (hi - lo).leading_zeros();
    let passes = bits.div_ceil(DIGIT) as usize;
    if passes > PASSES || items.len() < 256 {
        merge_runs(items, bounds, scratch);
        return None;
    }
    if passes == 0 {
        // All at one time: the runs in order are sorted.
        return None;
    }
    Some(RadixPlan { lo, bits, passes })
}

/// [`sort_runs`] but for the last radix pass, which it returns (`None`: `items` is
/// sorted); applying it ([`LastPass::apply`]) sorts `items`. Lets another thread make it.
pub fn sort_runs_but_last(
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
    counts: &mut RadixCounts,
) -> Option<LastPass> {
    let RadixPlan { lo, passes, .. } = plan_radix(items, bounds, scratch)?;
    let mask = (1u64 << DIGIT) - 1;
    let counts = &mut counts.0[..passes];
    for c in counts.iter_mut() {
        c.fill(0);
    }
    // The histograms of all passes in one read (the usual two passes written out).
    let digit = |key: u64, p: usize| ((key >> (DIGIT as usize * p)) & mask) as usize;
    if let [c0, c1] = counts {
        for tr in items.iter() {
            let key = tr.time - lo;
            c0[digit(key, 0)] += 1;
            c1[digit(key, 1)] += 1;
        }
    } else {
        for tr in items.iter() {
            let key = tr.time - lo;
            for (p, c) in counts.iter_mut().enumerate() {
                c[digit(key, p)] += 1;
            }
        }
    }
    for c in counts.iter_mut() {
        // Offsets: where each digit's transitions start.
        let mut at = 0u32;
        for n in c.iter_mut() {
            let here = *n;
            *n = at;
            at += here;
        }
    }
    let (last, first) = counts.split_last_mut().expect("passes > 0");
    if !first.is_empty() {
        scratch.resize(items.len(), Transition::marker(0, 0, 0));
    }
    for (p, c) in first.iter_mut().enumerate() {
        for tr in items.iter() {
            let d = digit(tr.time - lo, p);
            scratch[c[d] as usize] = *tr;
            c[d] += 1;
        }
        std::mem::swap(items, scratch);
    }
    Some(LastPass {
        lo,
        shift: DIGIT * (passes as u32 - 1),
        starts: Box::new(*last),
    })
}

/// The radix passes of a sort that [`gather_runs`] prepared (the runs copied, the
/// histograms made) and left to another thread: [`RadixPasses::apply`] makes them.
#[derive(Debug, Clone, Copy)]
pub struct RadixPasses {
    lo: u64,
    /// Bits per digit (at most [`DIGIT`]).
    digit: u32,
    /// The passes made so far.
    done: usize,
    passes: usize,
}

impl RadixPasses {
    /// Sorts `items` (as [`gather_runs`] left them, with the histograms it left in
    /// `counts`, perhaps after some passes: [`RadixPasses::apply_next`]) with the
    /// remaining radix passes, each a stable scatter through `scratch`.
    pub fn apply(
        mut self,
        items: &mut Vec<Transition>,
        scratch: &mut Vec<Transition>,
        counts: &mut RadixCounts,
    ) {
        while self.apply_next(items, scratch, counts) {}
    }

    /// Makes the next radix pass, if any is left; returns whether one is still left
    /// after it.
    pub fn apply_next(
        &mut self,
        items: &mut Vec<Transition>,
        scratch: &mut Vec<Transition>,
        counts: &mut RadixCounts,
    ) -> bool {
        if self.done == self.passes {
            return false;
        }
        let p = self.done;
        self.done += 1;
        let mask = (1u64 << self.digit) - 1;
        let lo = self.lo;
        scratch.resize(items.len(), Transition::marker(0, 0, 0));
        let c = &mut counts.0[p][..1 << self.digit];
        // Offsets: where each digit's transitions start.
        let mut at = 0u32;
        for n in c.iter_mut() {
            let here = *n;
            *n = at;
            at += here;
        }
        let shift = self.digit as usize * p;
        for tr in items.iter() {
            let d = (((tr.time - lo) >> shift) & mask) as usize;
            scratch[c[d] as usize] = *tr;
            c[d] += 1;
        }
        std::mem::swap(items, scratch);
        self.done < self.passes
    }
}

/// Gathers the sorted runs `runs` (each sorted by time, in run order; empty ones are
/// skipped) into `items` (whose contents it replaces) for a stable sort by time, and
/// makes the part of the sort that reads the runs: the copy, and the radix histograms
/// (into `counts`). Returns the radix passes that sort `items` (`None`: `items` is
/// sorted already: one run, one instant, or times too spread or too few transitions
/// for a radix sort, which it merges here). `bounds` and `scratch` are reused memory.
/// Lets another thread make the passes ([`RadixPasses::apply`]); the order is that of
/// [`sort_runs`].
pub fn gather_runs(
    runs: &[&[Transition]],
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
    counts: &mut RadixCounts,
) -> Option<RadixPasses> {
    items.clear();
    bounds.clear();
    bounds.push(0);
    for r in runs.iter().filter(|r| !r.is_empty()) {
        items.extend_from_slice(r);
        bounds.push(items.len());
    }
    let RadixPlan { lo, bits, passes } = plan_radix(items, bounds, scratch)?;
    // As many bits per pass as the passes need (fewer buckets to clear and sum).
    let width = bits.div_ceil(passes as u32);
    let mask = (1u64 << width) - 1;
    let digit = |key: u64, p: usize| ((key >> (width as usize * p)) & mask) as usize;
    let counts = &mut counts.0[..passes];
    for c in counts.iter_mut() {
        c[..1 << width].fill(0);
    }
    // The histograms of all passes in one read (the usual two passes written out).
    if let [c0, c1] = counts {
        for tr in items.iter() {
            let key = tr.time - lo;
            c0[digit(key, 0)] += 1;
            c1[digit(key, 1)] += 1;
        }
    } else {
        for tr in items.iter() {
            let key = tr.time - lo;
            for (p, c) in counts.iter_mut().enumerate() {
                c[digit(key, p)] += 1;
            }
        }
    }
    Some(RadixPasses {
        lo,
        digit: width,
        done: 0,
        passes,
    })
}

/// Sorts `items`, made of sorted runs `items[bounds[i]..bounds[i + 1]]`, by time, stably
/// (equal times keep the order of the runs), by merging neighbouring runs pairwise
/// (⌈log2 runs⌉ passes, each without branches on the data); `scratch` is reused memory.
pub fn merge_runs(
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
) {
    while bounds.len() > 2 {
        scratch.resize(items.len(), Transition::marker(0, 0, 0));
        let mut merged = Vec::with_capacity(bounds.len() / 2 + 1);
        merged.push(0);
        let mut k = 0;
        while k + 1 < bounds.len() {
            let (a, mid) = (bounds[k], bounds[k + 1]);
            let b = bounds.get(k + 2).copied().unwrap_or(mid);
            merge_two(&items[a..mid], &items[mid..b], &mut scratch[a..b]);
            merged.push(b);
            k += 2;
        }
        std::mem::swap(items, scratch);
        *bounds = merged;
    }
}

/// Merges sorted `a` and `b` into `out` (`a.len() + b.len()` long) by time; on equal
/// times `a` comes first.
#[inline(never)]
fn merge_two(a: &[Transition], b: &[Transition], out: &mut [Transition]) {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        // Which run goes on is data: a select, not a branch.
        let take_b = y.time < x.time;
        out[k] = if take_b { y } else { x };
        j += usize::from(take_b);
        i += usize::from(!take_b);
        k += 1;
    }
    let rest_a = a.len() - i;
    out[k..k + rest_a].copy_from_slice(&a[i..]);
    out[k + rest_a..].copy_from_slice(&b[j..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::ThreadState;
    use pplib::log::EventCode;

    /// Sorted runs of random times (spread `spread` ns, many ties), one run per slot.
    fn runs(seed: u64, lengths: &[usize], spread: u64) -> (Vec<Transition>, Vec<usize>) {
        let mut x = seed | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let base = next() % (u64::MAX / 2);
        let (mut items, mut bounds) = (Vec::new(), vec![0]);
        for (slot, &len) in lengths.iter().enumerate() {
            let mut times: Vec<u64> = (0..len).map(|_| base + next() % spread).collect();
            times.sort_unstable();
            for (i, t) in times.into_iter().enumerate() {
                // The argument numbers the transitions of a run: checks the order of ties.
                let state = ThreadState::Busy;
                items.push(Transition::new(
                    t,
                    slot,
                    EventCode::TaskBegin,
                    i as u32,
                    state,
                ));
            }
            bounds.push(items.len());
        }
        (items, bounds)
    }

    #[test]
    fn sort_runs_orders_by_time_then_run_then_position() {
        let cases: [(&[usize], u64); 6] = [
            (&[300, 500, 0, 700, 1], 1 << 20),
            (&[1000, 1000], 3),
            (&[400; 8], 1 << 30),
            (&[400; 8], u64::MAX / 4),
            (&[10, 20, 30], 100),
            (&[2000, 10, 2000], 1 << 40),
        ];
        for (seed, (lengths, spread)) in cases.into_iter().enumerate() {
            let (mut items, mut bounds) = runs(seed as u64 + 7, lengths, spread);
            let mut expected = items.clone();
            // A stable sort by time keeps ties in run (slot) order, then run order.
            expected.sort_by_key(|tr| tr.time);
            let mut scratch = Vec::new();
            sort_runs(
                &mut items,
                &mut bounds,
                &mut scratch,
                &mut RadixCounts::new(),
            );
            assert_eq!(items, expected, "case {seed}");
        }
    }

    #[test]
    fn gathered_runs_sort_like_a_stable_sort_of_their_concatenation() {
        // Spreads for one, two and three radix passes, the merge, and one instant.
        let cases: [(&[usize], u64); 8] = [
            (&[300, 500, 0, 700, 1], 1 << 10),
            (&[300, 500, 0, 700, 1], 1 << 20),
            (&[400; 8], 1 << 30),
            (&[400; 8], u64::MAX / 4),
            (&[10, 20, 30], 100),
            (&[2000, 10, 2000], 1 << 40),
            (&[600, 600], 1),
            (&[0, 900, 0], 1 << 20),
        ];
        let mut items = Vec::new();
        let mut scratch = Vec::new();
        let mut counts = RadixCounts::new();
        for (seed, (lengths, spread)) in cases.into_iter().enumerate() {
            let (all, bounds) = runs(seed as u64 + 13, lengths, spread);
            let slices: Vec<&[Transition]> = bounds.windows(2).map(|b| &all[b[0]..b[1]]).collect();
            let mut expected = all.clone();
            expected.sort_by_key(|tr| tr.time);
            // `items`, `scratch` and `counts` come with leftovers of the previous case.
            let passes = gather_runs(
                &slices,
                &mut items,
                &mut Vec::new(),
                &mut scratch,
                &mut counts,
            );
            if let Some(mut passes) = passes {
                // Some cases make a pass first (as a helping thread would).
                if seed % 2 == 1 {
                    passes.apply_next(&mut items, &mut scratch, &mut counts);
                }
                passes.apply(&mut items, &mut scratch, &mut counts);
            }
            assert_eq!(items, expected, "case {seed}");
        }
    }
}
