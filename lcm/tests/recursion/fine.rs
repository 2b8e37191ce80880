//! Fixture of lcm/tests/predict_recursion.rs, written by hand: the merge sort of
//! measured.models restructured to a cutoff of 64 keys (many tiny tasks), predicted before
//! it runs. Its rule derives `sort` from the measured models and the machine's `join_s`:
//! the leaves sort 64 keys instead of n/8 (work per key ~ log2 of the leaf size), the
//! merges run log2(n/64) levels instead of 3, and the recursion makes n/64 - 1 joins
//! instead of 7. With machine.txt it must give, at n = 2^20 (log2(n/8) = 17,
//! log2(n/64) = 14): pc = 4.194304e-3 + 1.7825792e-3*(6/17 - 1) + 1.8874368e-3*(14/3 - 1)
//! + 16376*2e-8 = 10.288992e-3 s; T = 10.288992 ms at p = 1 and, with sort's li and ip,
//! (10.288992e-3 + 1e-4 + 1.048576e-3) / 2 = 5.718784 ms at p = 2.

fn msort(v: &mut [u64], buf: &mut [u64]) {
    if v.len() <= 64 {
        pplib::frag_scope("leaf", || v.sort_unstable());
        return;
    }
    let mid = v.len() / 2;
    {
        let (vl, vr) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        pplib::join(|| msort(vl, bl), || msort(vr, br));
    }
    pplib::frag_scope("merge", || merge(v, mid, buf));
}

fn main() {
    // lcm: like sort
    // lcm: pc = sort.pc + leaf.pc*(6/log2(n/8) - 1) + merge.pc*(log2(n/64)/3 - 1) + (n/64 - 8)*join_s
    pplib::frag_scope("sort", || msort(&mut v, &mut buf));
}
