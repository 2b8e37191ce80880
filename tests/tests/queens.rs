//! Correctness of both n-queens versions: counts of the first k solutions.

use examples::queens::{self, count_serial, QueensImpl};

/// Q(n) for n = 4..=10 (OEIS A000170).
const TOTALS: [(u32, u64); 7] = [
    (4, 2),
    (5, 10),
    (6, 4),
    (7, 40),
    (8, 92),
    (9, 352),
    (10, 724),
];

#[test]
fn serial_search_counts_all_solutions() {
    for (n, q) in TOTALS {
        assert_eq!(count_serial(n, u64::MAX), q, "n={n}");
        assert_eq!(count_serial(n, 3), q.min(3), "n={n}");
    }
}

#[test]
fn both_versions_count_the_first_k_solutions() {
    for imp in [QueensImpl::Tree, QueensImpl::Loop] {
        for (n, q) in TOTALS {
            for k in [1, 5, 50, 400, u64::MAX] {
                for p in [1, 2] {
                    let run = queens::run(imp, n, k, p, 1, None).unwrap();
                    assert_eq!(run.solutions, q.min(k), "{imp:?} n={n} k={k} p={p}");
                }
            }
        }
    }
}

#[test]
fn bad_board_size_is_an_error() {
    assert!(queens::run(QueensImpl::Tree, 3, 1, 1, 1, None).is_err());
    assert!(queens::run(QueensImpl::Loop, 21, 1, 1, 1, None).is_err());
}

#[test]
fn groups_needed_is_the_loop_trip_count() {
    // 8-queens solutions per first-row column, in serial order: 4 8 16 18 18 16 8 4.
    assert_eq!(queens::groups_needed(8, 1), 1);
    assert_eq!(queens::groups_needed(8, 4), 1);
    assert_eq!(queens::groups_needed(8, 5), 2);
    assert_eq!(queens::groups_needed(8, 12), 2);
    assert_eq!(queens::groups_needed(8, 13), 3);
    assert_eq!(queens::groups_needed(8, 92), 8);
    assert_eq!(queens::groups_needed(8, u64::MAX), 8);
}

#[test]
fn repetitions_count_the_same_solutions() {
    for imp in [QueensImpl::Tree, QueensImpl::Loop] {
        for k in [1, 30, 92] {
            for p in [1, 2] {
                let run = queens::run(imp, 8, k, p, 5, None).unwrap();
                assert_eq!(run.solutions, k.min(92), "{imp:?} k={k} p={p}");
            }
        }
    }
    assert!(queens::run(QueensImpl::Loop, 8, 1, 1, 0, None).is_err());
}

#[test]
fn serial_work_grows_with_k() {
    let one = queens::serial_work(8, 1);
    let all = queens::serial_work(8, u64::MAX);
    assert!(one > 0 && one < all, "{one} {all}");
    assert!(queens::serial_work(8, 92) <= all);
}

#[test]
fn tree_span_is_one_until_the_second_half_is_needed() {
    // 10 solutions lie in the first items: the thread on the second half only speculates.
    let few = queens::useful_work_per_item(8, 10);
    assert!(few.iter().rev().take(5).all(|&w| w == 0));
    assert_eq!(queens::tree_span(&few, 2), 1.0);
    // All 92 solutions of the 8×8 board: the mirror-symmetric halves hold equal work.
    let all = queens::useful_work_per_item(8, u64::MAX);
    let span = queens::tree_span(&all, 2);
    assert!((span - 0.5).abs() < 0.05, "{span}");
    // One thread does all the useful work; never below 1/p.
    assert_eq!(queens::tree_span(&all, 1), 1.0);
    assert!(queens::tree_span(&[0, 0, 5, 5], 4) >= 0.25);
    assert_eq!(queens::tree_span(&[], 2), 0.5);
}

#[test]
fn loop_span_splits_each_group_apart() {
    let sizes: Vec<usize> = queens::depth2_groups(8).iter().map(Vec::len).collect();
    let all = queens::useful_work_per_item(8, u64::MAX);
    let span = queens::loop_span(&all, &sizes, 2);
    // Each group's halves are unequal: never better than the tree's halves of the board.
    assert!(
        span >= queens::tree_span(&all, 2) - 1e-12 && span <= 1.0,
        "{span}"
    );
    assert_eq!(queens::loop_span(&all, &sizes, 1), 1.0);
}

#[test]
fn items_walked_are_the_board_against_the_groups_visited() {
    // The 8×8 board's depth-2 items: 6 below each corner column, 5 below the six others,
    // 7 × 6 = 42 in all; the tree version starts every one of them each count.
    let sizes: Vec<usize> = queens::depth2_groups(8).iter().map(Vec::len).collect();
    assert_eq!(sizes, [6, 5, 5, 5, 5, 5, 5, 6]);
    assert_eq!(queens::tree_items_walked(8), 42);
    assert_eq!(queens::tree_items_walked(13), 12 * 11);
    // The loop version starts the items of the groups it visits (the 8×8 board's
    // solutions per first-row column, in order: 4 8 16 …): one group up to k = 4, two up
    // to 12, every group for all 92.
    assert_eq!(queens::loop_items_walked(8, 1), 6);
    assert_eq!(queens::loop_items_walked(8, 4), 6);
    assert_eq!(queens::loop_items_walked(8, 5), 11);
    assert_eq!(queens::loop_items_walked(8, 12), 11);
    assert_eq!(queens::loop_items_walked(8, 92), 42);
    assert_eq!(queens::loop_items_walked(8, u64::MAX), 42);
}
