//! What a log says about its recording: format version, clock, p, counters, process.

/// The header of a log.
///
/// For a `.pptrace` text trace: `version` 1, `processors` from its `processors` line,
/// `clock` `"unspecified"`, `counters` the names used by its `counters` events in order of
/// first appearance, `event_cost_ps` from its `event_cost_ns` line (if any), and an empty
/// [`ProcessInfo`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Header {
    /// Format version of the file (binary: [`crate::log::binary::VERSION`]; text: 1).
    pub version: u16,
    /// p: the number of processors of the run (team size).
    pub processors: u32,
    /// The clock the time stamps come from, e.g. `"CLOCK_MONOTONIC"` (nanoseconds).
    pub clock: String,
    /// Names of the counters present, indexed by [`crate::log::CounterId`]
    /// (e.g. `cycles`, `instructions`, `llc_misses`, `cpu_ns`, `nivcsw`; see the
    /// [module docs](crate::log#counters)).
    pub counters: Vec<String>,
    /// The recorded process.
    pub process: ProcessInfo,
    /// What recording one event cost on the machine that recorded the log, in picoseconds
    /// (pplib measures it at the end of each session: docs/event-logs.md, "The cost of
    /// recording"). `None` for a log that does not say: written before the field existed,
    /// cut short before its session ended, or a text trace without an `event_cost_ns`
    /// line. Given to a [`crate::log::binary::LogWriter`], `Some` writes the field (`Some(0)`:
    /// not measured yet, to be filled in by
    /// [`crate::log::binary::LogWriter::replace_event_cost`]), `None` leaves it out.
    pub event_cost_ps: Option<u64>,
}

/// The recorded process (empty for text traces).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProcessInfo {
    /// Operating-system process id (0: unknown).
    pub pid: u32,
    /// The command line, program first (empty: unknown).
    pub command_line: Vec<String>,
    /// Wall-clock start of the session in nanoseconds since the Unix epoch (0: unknown).
    pub start_unix_ns: u64,
    /// The log clock's reading at that same instant (relates log times to wall time).
    pub start_clock_ns: u64,
}
