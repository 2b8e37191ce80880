//! Correctness of both histogram versions: same histogram as the serial fill, total n.

use examples::histogram::{self, histogram_serial, HistogramImpl};

#[test]
fn both_versions_count_every_key_once() {
    for imp in [HistogramImpl::Locked, HistogramImpl::Sharded] {
        for n in [0u64, 1, 4095, 4097, 50_000] {
            for p in [1, 2] {
                let run = histogram::run(imp, n, p, None).unwrap();
                assert_eq!(run.counts.iter().sum::<u64>(), n, "{imp:?} n={n} p={p}");
                assert_eq!(run.counts, histogram_serial(n), "{imp:?} n={n} p={p}");
            }
        }
    }
}

#[test]
fn keys_spread_over_many_buckets() {
    let h = histogram_serial(100_000);
    assert!(h.iter().filter(|&&c| c > 0).count() > histogram::BUCKETS / 2);
}
