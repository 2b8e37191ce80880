//! Block and cyclic partition visit counts (thesis section 5.2.2, appendix B) against
//! brute-force counting, directly and through PAMELA reductions with Iverson brackets.
use lcm::pamela::{self, partition, Bindings};

fn brute(a: i64, b: i64, c: i64, d: i64, m_count: i64, m: i64, block: bool) -> i64 {
    let bs = partition::ceil_div(b - a + 1, m_count);
    (a..=b)
        .filter(|i| {
            let x = c * i + d;
            if block {
                x.div_euclid(bs) == m
            } else {
                x.rem_euclid(m_count) == m
            }
        })
        .count() as i64
}

#[test]
fn block_visit_counts_match_brute_force() {
    let mut checked = 0;
    for a in [0, 1, 3] {
        for b in [a, a + 1, a + 7, a + 20, a + 33] {
            for c in [1, 2, 3] {
                for d in [0, 1, 5] {
                    for mc in [1, 2, 3, 4, 7] {
                        for m in 0..mc {
                            let want = brute(a, b, c, d, mc, m, true);
                            let got = partition::block_visits(a, b, c, d, mc, m);
                            assert_eq!(got, want, "block a={a} b={b} c={c} d={d} M={mc} m={m}");
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn cyclic_visit_counts_match_brute_force() {
    for a in [0, 1, 4] {
        for b in [a, a + 1, a + 9, a + 30] {
            for c in [1, 2, 3, 4, 6] {
                for d in [0, 1, 2, 7] {
                    for mc in [1, 2, 3, 4, 6, 8] {
                        let mut total = 0;
                        for m in 0..mc {
                            let want = brute(a, b, c, d, mc, m, false);
                            let got = partition::cyclic_visits(a, b, c, d, mc, m);
                            assert_eq!(got, want, "cyclic a={a} b={b} c={c} d={d} M={mc} m={m}");
                            total += got;
                        }
                        // appendix B.4: the partitions cover the index set
                        assert_eq!(total, b - a + 1);
                    }
                }
            }
        }
    }
}

#[test]
fn pamela_iverson_sums_count_the_same_visits() {
    // V_m = sum (i = a, b) [pi(c*i + d) == m], evaluated by the PAMELA numerics
    let cyc = pamela::parse_expr("sum (i = a, b) ((c*i + d) mod M == m)").unwrap();
    let blk =
        pamela::parse_expr("sum (i = a, b) ((c*i + d) div ceil((b - a + 1)/M) == m)").unwrap();
    for (a, b, c, d, mc) in [
        (0i64, 20i64, 3i64, 1i64, 4i64),
        (1, 33, 2, 0, 7),
        (2, 9, 1, 5, 3),
    ] {
        for m in 0..mc {
            let bind: Bindings = [("a", a), ("b", b), ("c", c), ("d", d), ("M", mc), ("m", m)]
                .iter()
                .map(|(k, v)| (k.to_string(), *v as f64))
                .collect();
            assert_eq!(
                cyc.eval(&bind).unwrap() as i64,
                partition::cyclic_visits(a, b, c, d, mc, m)
            );
            assert_eq!(
                blk.eval(&bind).unwrap() as i64,
                partition::block_visits(a, b, c, d, mc, m)
            );
        }
    }
}
