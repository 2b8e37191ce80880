//! Sorting a merge frontier's transitions by time ([`crate::pipeline`]).
//!
//! The transitions a frontier gathers are sorted runs, one per lane; [`sort_runs`] puts
//! them in time order, stably (equal times keep the lanes' order, then each lane's own),
//! with a least-significant-digit radix sort, or by merging the runs pairwise when the
//! times are too spread or the runs too short. [`sort_runs_but_last`] leaves the last
//! radix pass ([`LastPass`]) to another thread.

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

/// [`sort_runs`] but for the last radix pass, which it returns (`None`: `items` is
/// sorted); applying it ([`LastPass::apply`]) sorts `items`. Lets another thread make it.
pub fn sort_runs_but_last(
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
    counts: &mut RadixCounts,
) -> Option<LastPass> {
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

/// [`sort_runs_but_last`] of the runs `runs` (each sorted by time, in run order; empty ones
/// are skipped) into
/// `items` (whose contents it replaces), without copying them there first: the first
/// radix pass reads the runs where they are. `bounds` and `scratch` are reused memory.
pub fn sort_slices_but_last(
    runs: &[&[Transition]],
    items: &mut Vec<Transition>,
    bounds: &mut Vec<usize>,
    scratch: &mut Vec<Transition>,
    counts: &mut RadixCounts,
) -> Option<LastPass> {
    let total: usize = runs.iter().map(|r| r.len()).sum();
    let nonempty = runs.iter().filter(|r| !r.is_empty());
    if nonempty.clone().nth(1).is_some() && total >= 256 {
        let lo = nonempty.clone().map(|r| r[0].time).min().expect("runs");
        let hi = nonempty.map(|r| r[r.len() - 1].time).max().expect("runs");
        let bits = 64 - (hi - lo).leading_zeros();
        let passes = bits.div_ceil(DIGIT) as usize;
        // One pass only: it is the last, which reads `items`; so copy (below).
        if (2..=PASSES).contains(&passes) {
            return Some(radix_from(runs, total, lo, passes, items, scratch, counts));
        }
    }
    items.clear();
    bounds.clear();
    bounds.push(0);
    for r in runs.iter().filter(|r| !r.is_empty()) {
        items.extend_from_slice(r);
        bounds.push(items.len());
    }
    sort_runs_but_last(items, bounds, scratch, counts)
}

/// The radix passes of [`sort_slices_but_last`] but the last (`passes` >= 2 of them on
/// `time - lo`): the first scatters from `runs` into `items`.
fn radix_from(
    runs: &[&[Transition]],
    total: usize,
    lo: u64,
    passes: usize,
    items: &mut Vec<Transition>,
    scratch: &mut Vec<Transition>,
    counts: &mut RadixCounts,
) -> LastPass {
    let mask = (1u64 << DIGIT) - 1;
    let digit = |key: u64, p: usize| ((key >> (DIGIT as usize * p)) & mask) as usize;
    let counts = &mut counts.0[..passes];
    for c in counts.iter_mut() {
        c.fill(0);
    }
    if let [c0, c1] = counts {
        for tr in runs.iter().flat_map(|r| r.iter()) {
            let key = tr.time - lo;
            c0[digit(key, 0)] += 1;
            c1[digit(key, 1)] += 1;
        }
    } else {
        for tr in runs.iter().flat_map(|r| r.iter()) {
            let key = tr.time - lo;
            for (p, c) in counts.iter_mut().enumerate() {
                c[digit(key, p)] += 1;
            }
        }
    }
    for c in counts.iter_mut() {
        let mut at = 0u32;
        for n in c.iter_mut() {
            let here = *n;
            *n = at;
            at += here;
        }
    }
    let (last, first) = counts.split_last_mut().expect("passes > 1");
    let (c0, rest) = first.split_first_mut().expect("passes > 1");
    items.resize(total, Transition::marker(0, 0, 0));
    for r in runs {
        for tr in r.iter() {
            let d = digit(tr.time - lo, 0);
            items[c0[d] as usize] = *tr;
            c0[d] += 1;
        }
    }
    if !rest.is_empty() {
        scratch.resize(total, Transition::marker(0, 0, 0));
    }
    for (p, c) in rest.iter_mut().enumerate() {
        for tr in items.iter() {
            let d = digit(tr.time - lo, p + 1);
            scratch[c[d] as usize] = *tr;
            c[d] += 1;
        }
        std::mem::swap(items, scratch);
    }
    LastPass {
        lo,
        shift: DIGIT * (passes as u32 - 1),
        starts: Box::new(*last),
    }
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
    fn sorting_slices_orders_like_a_stable_sort_of_their_concatenation() {
        // Spreads for one, two and three radix passes, the merge, and one instant.
        let cases: [(&[usize], u64); 7] = [
            (&[300, 500, 0, 700, 1], 1 << 10),
            (&[300, 500, 0, 700, 1], 1 << 20),
            (&[400; 8], 1 << 30),
            (&[400; 8], u64::MAX / 4),
            (&[10, 20, 30], 100),
            (&[2000, 10, 2000], 1 << 40),
            (&[600, 600], 1),
        ];
        let mut items = Vec::new();
        let mut scratch = Vec::new();
        let mut counts = RadixCounts::new();
        for (seed, (lengths, spread)) in cases.into_iter().enumerate() {
            let (all, bounds) = runs(seed as u64 + 11, lengths, spread);
            let slices: Vec<&[Transition]> = bounds.windows(2).map(|b| &all[b[0]..b[1]]).collect();
            let mut expected = all.clone();
            expected.sort_by_key(|tr| tr.time);
            // `items` and `scratch` come with leftovers of the previous case (reused memory).
            let last = sort_slices_but_last(
                &slices,
                &mut items,
                &mut Vec::new(),
                &mut scratch,
                &mut counts,
            );
            if let Some(pass) = last {
                pass.apply(&mut items, &mut scratch);
            }
            assert_eq!(items, expected, "case {seed}");
        }
    }
}
