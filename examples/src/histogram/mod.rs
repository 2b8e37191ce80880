//! A lock-bound program: a histogram of `n` pseudo-random keys filled by p threads, every
//! increment under a lock.
//!
//! - [`locked`]: one histogram behind one mutex (every increment serializes on it).
//! - [`sharded`]: the histogram split into [`SHARDS`] shards, each behind its own mutex
//!   (an increment locks only the shard of its bucket).
//!
//! Each key costs [`KEY_ROUNDS`] rounds of integer mixing outside the lock; the critical
//! section is one increment. Both versions give the same histogram.

pub mod locked;
pub mod sharded;

/// The source text of the single-lock version, as `lcm` reads it.
pub const LOCKED_SOURCE: &str = include_str!("locked.rs");
/// The source text of the sharded version, as `lcm` reads it.
pub const SHARDED_SOURCE: &str = include_str!("sharded.rs");

/// Number of buckets of the histogram.
pub const BUCKETS: usize = 1024;
/// Number of shards (and locks) of the sharded version.
pub const SHARDS: usize = 64;
/// Mixing rounds per key (work outside the lock).
pub const KEY_ROUNDS: u32 = 16;
/// Keys per parallel work item.
pub const KEYS_PER_ITEM: usize = 4096;

/// Which version of the histogram to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HistogramImpl {
    /// One mutex around the whole histogram.
    Locked,
    /// One mutex per shard.
    Sharded,
}

impl HistogramImpl {
    /// The short name used on the command line and in records (`locked`, `sharded`).
    pub fn name(self) -> &'static str {
        match self {
            HistogramImpl::Locked => "locked",
            HistogramImpl::Sharded => "sharded",
        }
    }
}

/// The bucket of key number i (deterministic, [`KEY_ROUNDS`] rounds of splitmix-style
/// mixing).
pub fn bucket_of(i: u64) -> usize {
    let mut x = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    for _ in 0..KEY_ROUNDS {
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 31;
    }
    (x % BUCKETS as u64) as usize
}

/// Serial reference histogram of keys 0..n.
pub fn histogram_serial(n: u64) -> Vec<u64> {
    let mut h = vec![0; BUCKETS];
    for i in 0..n {
        h[bucket_of(i)] += 1;
    }
    h
}

/// What one timed run gives.
#[derive(Clone, Debug)]
pub struct HistogramRun {
    /// Wall-clock time of the fill (seconds), without building the thread pool.
    pub seconds: f64,
    /// The histogram.
    pub counts: Vec<u64>,
}

/// Errors of [`run`].
#[derive(Debug, thiserror::Error)]
pub enum HistogramError {
    /// A thread pool could not be built.
    #[error("building a thread pool: {0}")]
    Pool(String),
    /// The profiling session could not be started or written.
    #[error("profiling session: {0}")]
    Session(String),
}

/// Runs version `imp` on keys 0..n with p threads; with `log`, recorded by pplib into that
/// file (p processors).
pub fn run(
    imp: HistogramImpl,
    n: u64,
    p: usize,
    log: Option<&std::path::Path>,
) -> Result<HistogramRun, HistogramError> {
    let pool = pplib::pool(p.max(1)).map_err(|e| HistogramError::Pool(e.to_string()))?;
    let (counts, seconds) = pool
        .install(|| {
            crate::profile::profiled(log, p, || match imp {
                HistogramImpl::Locked => locked::fill(n),
                HistogramImpl::Sharded => sharded::fill(n),
            })
        })
        .map_err(|e| HistogramError::Session(e.to_string()))?;
    Ok(HistogramRun { seconds, counts })
}
