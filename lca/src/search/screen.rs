//! Screening: fast approximate scoring of candidate term sets by incremental Gram-Schmidt
//! and hat-matrix leave-one-out errors (see the parent module's docs, step 2).
#![allow(clippy::needless_range_loop)] // index loops over parallel arrays read best here

use super::CV_FLOOR;
use crate::linear::relative_scale;

/// Mean squared LOO residual `r_i / (1 − h_ii)` (residuals are already relative); `None`
/// when a point determines the fit on its own.
fn loo_mean_square(r: &[f64], h: &[f64]) -> Option<f64> {
    let mut s = 0.0;
    for i in 0..r.len() {
        let g = 1.0 - h[i];
        if g < 1e-9 {
            return None;
        }
        let e = r[i] / g;
        s += e * e;
    }
    Some(s / r.len() as f64)
}

/// Screening state: an orthonormal basis of the constant and chosen columns.
#[derive(Clone)]
struct Basis {
    q: Vec<Vec<f64>>,
    resid: Vec<f64>,
    hat: Vec<f64>,
}

struct Screen {
    /// The measured values, divided by their scale when weighted.
    y: Vec<f64>,
    /// Row weights (1 / scale) applied to every column, or ones.
    w: Vec<f64>,
}

impl Screen {
    /// Rows are weighted by `1 / d_i` ([`relative_scale`]): residuals are relative, as in
    /// the final weighted fit.
    fn new(y: &[f64]) -> Screen {
        let d = relative_scale(y);
        Screen {
            y: y.iter().zip(&d).map(|(v, s)| v / s).collect(),
            w: d.iter().map(|s| 1.0 / s).collect(),
        }
    }

    /// `col` with the row weights applied.
    fn weigh(&self, col: &[f64]) -> Vec<f64> {
        col.iter().zip(&self.w).map(|(a, b)| a * b).collect()
    }

    fn constant(&self) -> Basis {
        self.push(&self.empty(), &self.w)
            .unwrap_or_else(|| self.empty())
    }

    /// The basis of a model without constant.
    fn empty(&self) -> Basis {
        Basis {
            q: Vec::new(),
            resid: self.y.to_vec(),
            hat: vec![0.0; self.y.len()],
        }
    }

    /// Orthogonalizes `col` against the basis into `out`; false when dependent.
    fn orthogonalize(b: &Basis, col: &[f64], out: &mut [f64]) -> bool {
        out.copy_from_slice(col);
        let n0: f64 = out.iter().map(|v| v * v).sum::<f64>().sqrt();
        if n0 == 0.0 || !n0.is_finite() {
            return false;
        }
        // Gram-Schmidt, repeated only when the first pass cancelled most of the column
        // (Kahan-Parlett "twice is enough").
        let mut n = n0;
        for _ in 0..2 {
            for q in &b.q {
                let d: f64 = q.iter().zip(out.iter()).map(|(a, b)| a * b).sum();
                for (o, qi) in out.iter_mut().zip(q) {
                    *o -= d * qi;
                }
            }
            let n1: f64 = out.iter().map(|v| v * v).sum::<f64>().sqrt();
            let done = n1 > 0.5 * n;
            n = n1;
            if done {
                break;
            }
        }
        if n < 1e-9 * n0 {
            return false;
        }
        out.iter_mut().for_each(|v| *v /= n);
        true
    }

    /// CV error of the basis extended by `col` (None when dependent or undefined).
    fn score_with(&self, b: &Basis, col: &[f64], scratch: &mut [f64]) -> Option<f64> {
        if !Screen::orthogonalize(b, col, scratch) {
            return None;
        }
        let d: f64 = scratch.iter().zip(&b.resid).map(|(a, r)| a * r).sum();
        let mut s = 0.0;
        for i in 0..scratch.len() {
            let r = b.resid[i] - d * scratch[i];
            let h = b.hat[i] + scratch[i] * scratch[i];
            if 1.0 - h < 1e-9 {
                return None;
            }
            let e = r / (1.0 - h);
            s += e * e;
        }
        Some((s / scratch.len() as f64).sqrt())
    }

    fn score(&self, b: &Basis) -> Option<f64> {
        loo_mean_square(&b.resid, &b.hat).map(f64::sqrt)
    }

    fn push(&self, b: &Basis, col: &[f64]) -> Option<Basis> {
        let mut q = vec![0.0; col.len()];
        if !Screen::orthogonalize(b, col, &mut q) {
            return None;
        }
        let d: f64 = q.iter().zip(&b.resid).map(|(a, r)| a * r).sum();
        let resid = b.resid.iter().zip(&q).map(|(r, qi)| r - d * qi).collect();
        let hat = b.hat.iter().zip(&q).map(|(h, qi)| h + qi * qi).collect();
        let mut nb = b.clone();
        nb.q.push(q);
        nb.resid = resid;
        nb.hat = hat;
        Some(nb)
    }
}

pub(super) fn penalized(cv: f64, terms: usize, penalty: f64) -> f64 {
    (cv + CV_FLOOR) * penalty.powi(terms as i32)
}

/// The `k` best (score, term set) pairs seen, without allocation per candidate.
struct TopK {
    k: usize,
    items: Vec<(f64, [usize; 3], usize)>,
}

impl TopK {
    fn new(k: usize) -> TopK {
        TopK {
            k,
            items: Vec::with_capacity(k + 1),
        }
    }

    fn offer(&mut self, score: f64, set: &[usize]) {
        if self.items.len() == self.k && score >= self.items[self.k - 1].0 {
            return;
        }
        let mut key = [usize::MAX; 3];
        key[..set.len()].copy_from_slice(set);
        key[..set.len()].sort_unstable();
        if self
            .items
            .iter()
            .any(|(_, s, n)| *n == set.len() && *s == key)
        {
            return;
        }
        let pos = self.items.partition_point(|(s, ..)| *s <= score);
        self.items.insert(pos, (score, key, set.len()));
        self.items.truncate(self.k);
    }

    fn sets(&self) -> Vec<(f64, Vec<usize>)> {
        self.items
            .iter()
            .map(|(s, k, n)| (*s, k[..*n].to_vec()))
            .collect()
    }
}

/// One screening run: the weighted columns, the base basis (constant or empty), and the
/// best sets found so far.
struct ScreenRun {
    scr: Screen,
    /// The candidate columns with the row weights applied.
    cols: Vec<Vec<f64>>,
    base: Basis,
    scratch: Vec<f64>,
    penalty: f64,
    exhaustive3: bool,
    max_terms: usize,
    /// The best sets of every size.
    found: TopK,
    /// The best 8 pairs: where the beam search for the third term starts.
    pairs: TopK,
}

impl ScreenRun {
    /// Scores every single term on the base and offers it; returns (CV error, column)
    /// sorted best first.
    fn score_singles(&mut self) -> Vec<(f64, usize)> {
        let mut singles: Vec<(f64, usize)> = Vec::with_capacity(self.cols.len());
        for a in 0..self.cols.len() {
            if let Some(s) = self
                .scr
                .score_with(&self.base, &self.cols[a], &mut self.scratch)
            {
                self.found.offer(penalized(s, 1, self.penalty), &[a]);
                singles.push((s, a));
            }
        }
        singles.sort_by(|x, y| x.0.total_cmp(&y.0));
        singles
    }

    /// Scores the pairs whose first term is among `firsts` (every pair when exhaustive),
    /// and when exhaustive up to 3 terms every triple extending them.
    fn score_pairs(&mut self, firsts: &[bool]) {
        let (cols, exhaustive3) = (&self.cols, self.exhaustive3);
        for a in 0..cols.len() {
            if !firsts[a] && !exhaustive3 {
                continue;
            }
            let Some(ba) = self.scr.push(&self.base, &cols[a]) else {
                continue;
            };
            for b in 0..cols.len() {
                if b == a || (b < a && (exhaustive3 || firsts[b])) {
                    continue;
                }
                if let Some(s) = self.scr.score_with(&ba, &cols[b], &mut self.scratch) {
                    let sc = penalized(s, 2, self.penalty);
                    self.found.offer(sc, &[a, b]);
                    self.pairs.offer(sc, &[a, b]);
                }
                if self.max_terms >= 3 && exhaustive3 {
                    let Some(bb) = self.scr.push(&ba, &cols[b]) else {
                        continue;
                    };
                    for c in b + 1..cols.len() {
                        if let Some(s) = self.scr.score_with(&bb, &cols[c], &mut self.scratch) {
                            self.found.offer(penalized(s, 3, self.penalty), &[a, b, c]);
                        }
                    }
                }
            }
        }
    }

    /// Beam search for the third term: every column added to each of the best pairs.
    fn beam_triples(&mut self) {
        let cols = &self.cols;
        for (_, set) in self.pairs.sets() {
            let mut b = self.base.clone();
            for &i in &set {
                b = match self.scr.push(&b, &cols[i]) {
                    Some(nb) => nb,
                    None => break,
                };
            }
            for c in 0..cols.len() {
                if set.contains(&c) {
                    continue;
                }
                if let Some(s) = self.scr.score_with(&b, &cols[c], &mut self.scratch) {
                    self.found
                        .offer(penalized(s, 3, self.penalty), &[set[0], set[1], c]);
                }
            }
        }
    }
}

/// Screens term sets (indices into `cols`) of size 1..=max_terms with a constant; returns
/// the best sets by penalized score. Exhaustive up to 2 terms (and 3 when `exhaustive3`),
/// beam search from the best 8 pairs for the third otherwise.
pub(super) fn screen(
    cols: &[Vec<f64>],
    y: &[f64],
    max_terms: usize,
    exhaustive3: bool,
    keep: usize,
    with_constant: bool,
    penalty: f64,
) -> Vec<(f64, Vec<usize>)> {
    let m = y.len();
    let max_terms = max_terms.min(m.saturating_sub(3));
    let scr = Screen::new(y);
    let cols: Vec<Vec<f64>> = cols.iter().map(|c| scr.weigh(c)).collect();
    let base = if with_constant {
        scr.constant()
    } else {
        scr.empty()
    };
    let mut run = ScreenRun {
        scr,
        cols,
        base,
        scratch: vec![0.0; m],
        penalty,
        exhaustive3,
        max_terms,
        found: TopK::new(keep),
        pairs: TopK::new(8),
    };
    if with_constant {
        if let Some(s) = run.scr.score(&run.base) {
            run.found.offer(penalized(s, 0, penalty), &[]);
        }
    }
    if max_terms == 0 {
        return run.found.sets();
    }
    // Single terms; pairs are then built from the best 24 first terms (pruning).
    let singles = run.score_singles();
    // The best single terms always reach selection (they may lose the screen to a
    // cancelling pair that selection then rejects).
    let mut best_singles: Vec<(f64, Vec<usize>)> = singles
        .iter()
        .take(4)
        .map(|&(s, a)| (penalized(s, 1, penalty), vec![a]))
        .collect();
    let firsts: Vec<bool> = {
        let mut f = vec![false; run.cols.len()];
        singles.iter().take(24).for_each(|&(_, a)| f[a] = true);
        f
    };
    if max_terms >= 2 {
        run.score_pairs(&firsts);
    }
    if max_terms >= 3 && !exhaustive3 {
        run.beam_triples();
    }
    let mut out = run.found.sets();
    best_singles.retain(|b| !out.iter().any(|o| o.1 == b.1));
    out.append(&mut best_singles);
    out
}

/// One slice prepared for pooled screening: every column orthonormalized against the base
/// once (`u`, column-major, `ok` where it is independent), the base's residual `r0` and
/// hat diagonal `h0`; a single is then scored from `u_a` and a pair (a, b) from `u_b`
/// projected off `u_a`: one projection per candidate.
struct Slice {
    m: usize,
    u: Vec<f64>,
    ok: Vec<bool>,
    r0: Vec<f64>,
    h0: Vec<f64>,
}

fn prepare_slices(
    prepared: &[(Vec<f64>, Vec<Vec<f64>>)],
    np: usize,
    with_constant: bool,
) -> Vec<Slice> {
    prepared
        .iter()
        .map(|(y, cols)| {
            let scr = Screen::new(y);
            let base = if with_constant {
                scr.constant()
            } else {
                scr.empty()
            };
            let m = y.len();
            let mut u = vec![0.0; np * m];
            let mut ok = vec![false; np];
            for a in 0..np {
                let col = scr.weigh(&cols[a]);
                ok[a] = Screen::orthogonalize(&base, &col, &mut u[a * m..(a + 1) * m]);
            }
            Slice {
                m,
                u,
                ok,
                r0: base.resid.clone(),
                h0: base.hat.clone(),
            }
        })
        .collect()
}

/// Sum over points of the squared relative LOO error for residual r and hat h.
fn sq(r: &[f64], h: &[f64]) -> f64 {
    loo_mean_square(r, h).unwrap_or(f64::INFINITY)
}

/// Per column: its single-term squared LOO error summed over the slices.
fn single_scores(slices: &[Slice], np: usize) -> Vec<f64> {
    let mut single = vec![0.0f64; np];
    for sl in slices {
        let m = sl.m;
        let mut r = vec![0.0; m];
        let mut h = vec![0.0; m];
        for a in 0..np {
            if !sl.ok[a] {
                single[a] = f64::INFINITY;
                continue;
            }
            let ua = &sl.u[a * m..(a + 1) * m];
            let d: f64 = ua.iter().zip(&sl.r0).map(|(x, y)| x * y).sum();
            for i in 0..m {
                r[i] = sl.r0[i] - d * ua[i];
                h[i] = sl.h0[i] + ua[i] * ua[i];
            }
            single[a] += sq(&r, &h);
        }
    }
    single
}

/// Per first term `firsts[ia]` and column b: the pair's squared LOO error summed over the
/// slices (`ia * np + b`; infinite where b repeats a or is dependent on it).
fn pair_scores(slices: &[Slice], np: usize, firsts: &[usize]) -> Vec<f64> {
    let mut pair = vec![0.0f64; firsts.len() * np];
    for sl in slices {
        let m = sl.m;
        let mut ra = vec![0.0; m];
        let mut ha = vec![0.0; m];
        let mut w = vec![0.0; m];
        let mut r = vec![0.0; m];
        let mut h = vec![0.0; m];
        for (ia, &a) in firsts.iter().enumerate() {
            let ua = &sl.u[a * m..(a + 1) * m];
            let d: f64 = ua.iter().zip(&sl.r0).map(|(x, y)| x * y).sum();
            for i in 0..m {
                ra[i] = sl.r0[i] - d * ua[i];
                ha[i] = sl.h0[i] + ua[i] * ua[i];
            }
            for b in 0..np {
                let cell = &mut pair[ia * np + b];
                if b == a || !sl.ok[b] {
                    *cell = f64::INFINITY;
                    continue;
                }
                let ub = &sl.u[b * m..(b + 1) * m];
                let c: f64 = ua.iter().zip(ub).map(|(x, y)| x * y).sum();
                for i in 0..m {
                    w[i] = ub[i] - c * ua[i];
                }
                let nw = w.iter().map(|x| x * x).sum::<f64>().sqrt();
                if nw < 1e-7 {
                    *cell = f64::INFINITY;
                    continue;
                }
                let dw: f64 = w.iter().zip(&ra).map(|(x, y)| x * y).sum::<f64>() / nw;
                for i in 0..m {
                    let wi = w[i] / nw;
                    r[i] = ra[i] - dw * wi;
                    h[i] = ha[i] + wi * wi;
                }
                *cell += sq(&r, &h);
            }
        }
    }
    pair
}

/// Term sets of one variable (1 or 2 factors) ranked by their score pooled over slices,
/// with or without a constant.
pub(super) fn pooled_rank(
    prepared: &[(Vec<f64>, Vec<Vec<f64>>)],
    np: usize,
    max_terms: usize,
    with_constant: bool,
    penalty: f64,
) -> Vec<(f64, Vec<usize>)> {
    let slices = prepare_slices(prepared, np, with_constant);
    let single = single_scores(&slices, np);
    let n_slices = slices.len().max(1) as f64;
    let mut order: Vec<(f64, usize)> = (0..np)
        .filter(|&a| single[a].is_finite())
        .map(|a| (penalized((single[a] / n_slices).sqrt(), 1, penalty), a))
        .collect();
    order.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut ranked = TopK::new(8);
    for &(sc, a) in order.iter().take(8) {
        ranked.offer(sc, &[a]);
    }
    if max_terms >= 2 {
        let firsts: Vec<usize> = order.iter().take(12).map(|r| r.1).collect();
        let pair = pair_scores(&slices, np, &firsts);
        for (ia, &a) in firsts.iter().enumerate() {
            for b in 0..np {
                let v = pair[ia * np + b];
                // Each unordered pair once: skip (a, b) when b is also a first before a.
                let dup = firsts[..ia].contains(&b);
                if b != a && v.is_finite() && !dup {
                    ranked.offer(penalized((v / n_slices).sqrt(), 2, penalty), &[a, b]);
                }
            }
        }
    }
    ranked.sets()
}
