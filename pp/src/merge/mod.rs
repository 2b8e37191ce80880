//! The time-ordered k-way merge of per-thread event streams.
//!
//! Each thread's stream is already in that thread's time order. The merge reads each
//! stream in batches ([`EventBatch`](pplib::log::EventBatch), at most
//! [`EventBatch::CAPACITY`](pplib::log::EventBatch::CAPACITY) compact events) and
//! keeps a loser tree ([`LoserTree`]) over the head events keyed on `(time, slot)`, so
//! producing the next event costs O(log T) comparisons for T threads, and memory is a
//! bounded number of batches per thread, independent of the length of the log. Ties in
//! time are broken by slot (thread order); events of one thread keep their own order.
//!
//! The merge can run on a thread of its own ([`spawn_merger`]), handing runs of merged
//! events to the sweep, and the streams can be decoded ahead on threads of their own
//! ([`spawn_decoders`]). Each stage runs at most [`QUEUE`] batches ahead of the next, and
//! emptied batches go back to their producer for reuse, so memory stays bounded.

mod batch_merge;
mod decode;
mod loser_tree;
mod merger;

pub use crate::source::BatchSource;
pub use batch_merge::{BatchMerge, MergeRun, Merged, BATCH_BUDGET, MIN_BATCH};
pub use decode::{spawn_decoders, DecodedStream};
pub use loser_tree::LoserTree;
pub use merger::{spawn_merger, MergedStream, MERGED_BATCH};

/// Batches in flight per decoded stream (bounds memory: about `QUEUE + 2` batches of
/// [`EventBatch::CAPACITY`](pplib::log::EventBatch::CAPACITY) events per thread).
pub const QUEUE: usize = 4;
