//! Other load on the machine during a measurement, and the quiet-machine gate: pp's
//! campaign runner's ([`pp::campaign::load`], [`pp::campaign::gate`], where "quiet" is
//! defined), re-exported under the names the study's modules use.
//!
//! The study runs on machines that other people use at the same time. A repetition during
//! which other processes held a processor is slower for reasons that are not the program's,
//! in ways that the fastest of a few repetitions does not always hide (a build that runs for
//! a minute disturbs every repetition of a point). The study therefore measures, for each
//! repetition, the other load during it ([`Probe`]), keeps only quiet repetitions, waits for
//! the machine to calm down before repeating a disturbed one ([`Gate`]), and says in its
//! report how quiet its measurements were.

pub use pp::campaign::gate::{Gate, WINDOW};
pub use pp::campaign::load::{
    foreign_share, is_quiet, load_average, parse, sample, LoadSource, Probe, ProcStat, Sample,
    QUIET_SHARE,
};
