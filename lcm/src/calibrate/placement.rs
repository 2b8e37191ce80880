//! Where a kernel's threads run, and whether they ran all the time they were timed.
//!
//! A kernel that prices what processors do to each other (a cache line moving between
//! them) must run its threads on different processors at the same time. Left to the
//! scheduler, two threads may share one processor, taking turns in time slices: both
//! intervals then span the whole run and look side by side, but no line ever moves while
//! both run. [`pin_current_thread`] places a kernel's thread on one processor of those this
//! process may use ([`allowed_cpus`]), and [`thread_cpu_s`] tells how much of its timed
//! interval the thread really ran. Only threads a kernel spawns are pinned: the caller keeps
//! its placement, so pools made later are not confined.

/// The processors this process may run on ([`pplib::thread::allowed_cpus`]), in increasing
/// order; `0 .. available_parallelism` where the system cannot say.
pub fn allowed_cpus() -> Vec<usize> {
    pplib::thread::allowed_cpus().unwrap_or_else(|| (0..super::available_threads()).collect())
}

/// Confines the calling thread to processor `cpu` ([`pplib::thread::pin_current_thread`]);
/// false where the system does not allow it, and then the thread runs where the scheduler
/// puts it.
pub fn pin_current_thread(cpu: usize) -> bool {
    pplib::thread::pin_current_thread(cpu)
}

/// Seconds the calling thread has run on a processor (user and system), or None where the
/// system has no per-thread clock ([`pplib::thread::cpu_time_s`]).
pub fn thread_cpu_s() -> Option<f64> {
    pplib::thread::cpu_time_s()
}

/// The processors for `k` threads of repetition `rotation`: `k` distinct ones of `allowed`
/// drawn at random with `rotation` as the seed (so that repetitions visit different sets:
/// processors near each other in the numbering and far apart, which on some machines are
/// two hyper-threads of one core or two cores), or all of them when fewer are allowed.
pub fn cpus_for(allowed: &[usize], k: usize, rotation: usize) -> Vec<usize> {
    let mut pool = allowed.to_vec();
    let mut x = (rotation as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let take = k.min(pool.len());
    for i in 0..take {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = i + (x % (pool.len() - i) as u64) as usize;
        pool.swap(i, j);
    }
    pool.truncate(take);
    pool
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetitions_draw_distinct_allowed_processors_and_vary() {
        let allowed: Vec<usize> = (0..16).map(|c| 2 * c).collect();
        let mut pairs = std::collections::BTreeSet::new();
        for rotation in 0..20 {
            let two = cpus_for(&allowed, 2, rotation);
            assert_eq!(two.len(), 2);
            assert_ne!(two[0], two[1]);
            assert!(two.iter().all(|c| allowed.contains(c)));
            // The same seed, the same processors.
            assert_eq!(two, cpus_for(&allowed, 2, rotation));
            pairs.insert((two[0].min(two[1]), two[0].max(two[1])));
        }
        // Twenty repetitions visit many pairs, not one.
        assert!(pairs.len() >= 10, "{pairs:?}");
        // More threads than processors: each allowed one once.
        let mut all = cpus_for(&[0, 1, 2, 5], 9, 3);
        all.sort();
        assert_eq!(all, vec![0, 1, 2, 5]);
        assert!(cpus_for(&[], 2, 0).is_empty());
    }

    #[test]
    fn a_spawned_thread_can_be_pinned_to_an_allowed_processor_and_its_clock_runs() {
        let allowed = allowed_cpus();
        assert!(!allowed.is_empty());
        let cpu = *allowed.last().unwrap();
        let (pinned, ran) = std::thread::spawn(move || {
            let pinned = pin_current_thread(cpu);
            let t0 = thread_cpu_s();
            let mut x = 1u64;
            for i in 0..2_000_000u64 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
            }
            (pinned, thread_cpu_s().zip(t0).map(|(b, a)| b - a))
        })
        .join()
        .unwrap();
        if cfg!(target_os = "linux") {
            assert!(pinned);
            assert!(ran.unwrap() > 0.0);
        }
    }
}
