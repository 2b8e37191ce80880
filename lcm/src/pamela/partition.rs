//! Visit counts of block and cyclic partitions (thesis section 5.2.2, appendix B).
//!
//! A statement executed for `i = a..=b` references `f(i) = c*i + d`; resource
//! `m in 0..M` owns reference x under block partitioning when `floor(x / B) == m`
//! (block size `B = ceil((b - a + 1) / M)`) and under cyclic partitioning when
//! `x mod M == m`. The visit count `V_m` is the number of i that reference m.

/// `V_m` under block partitioning (Definition 5.1): `max(0, beta - alpha + 1)` with
/// `alpha = max(a, ceil((B*m - d)/c))` and `beta = min(b, ceil((B*(m+1) - d)/c) - 1)`.
/// Requires `c > 0` and `M > 0`.
pub fn block_visits(a: i64, b: i64, c: i64, d: i64, m_count: i64, m: i64) -> i64 {
    assert!(c > 0 && m_count > 0, "block_visits needs c > 0 and M > 0");
    if b < a {
        return 0;
    }
    let bs = ceil_div(b - a + 1, m_count);
    let alpha = a.max(ceil_div(bs * m - d, c));
    let beta = b.min(ceil_div(bs * (m + 1) - d, c) - 1);
    (beta - alpha + 1).max(0)
}

/// `V_m` under cyclic partitioning (Definition 5.2 / B.3): zero when
/// `(m - d) mod gcd(c, M) != 0`, else the number of terms of the series
/// `iota_m, iota_m + delta, ...` in `a..=b`, with `delta = M / gcd(c, M)` and `iota_m` the
/// smallest solution `>= a` of `c*i + k*M = m - d`. Requires `c > 0` and `M > 0`.
pub fn cyclic_visits(a: i64, b: i64, c: i64, d: i64, m_count: i64, m: i64) -> i64 {
    assert!(c > 0 && m_count > 0, "cyclic_visits needs c > 0 and M > 0");
    if b < a {
        return 0;
    }
    let g = gcd(c, m_count);
    let rhs = (m - d).rem_euclid(m_count);
    if rhs % g != 0 {
        return 0;
    }
    let delta = m_count / g;
    // solve (c/g) * i = rhs/g (mod delta)
    let cg = (c / g).rem_euclid(delta);
    let r = (rhs / g).rem_euclid(delta);
    let i0 = if delta == 1 {
        0
    } else {
        (r * mod_inverse(cg, delta)).rem_euclid(delta)
    };
    // smallest solution >= a
    let iota = a + (i0 - a).rem_euclid(delta);
    let alpha = ceil_div(a - iota, delta);
    let beta = ceil_div(b + 1 - iota, delta) - 1;
    (beta - alpha + 1).max(0)
}

/// Ceiling of p/q for q > 0.
pub fn ceil_div(p: i64, q: i64) -> i64 {
    -((-p).div_euclid(q))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

fn mod_inverse(a: i64, m: i64) -> i64 {
    // extended Euclid; a and m are coprime
    let (mut old_r, mut r) = (a, m);
    let (mut old_s, mut s) = (1i64, 0i64);
    while r != 0 {
        let q = old_r / r;
        (old_r, r) = (r, old_r - q * r);
        (old_s, s) = (s, old_s - q * s);
    }
    old_s.rem_euclid(m)
}
