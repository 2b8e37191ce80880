//! Sessions: what starts and ends a recording.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::clock::ClockSource;
use crate::counters::{CounterBackend, PerfEvents};
use crate::recorder::{self, raw, Recorder};

/// Why a session could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum PplibError {
    /// Another session is recording (one per process at a time).
    #[error("a pplib session is already recording into {}; finish it before starting another", path.display())]
    AlreadyRecording {
        /// The active session's log.
        path: PathBuf,
    },
    /// [`SessionBuilder::start`] without [`SessionBuilder::path`].
    #[error(
        "no event log path: call SessionBuilder::path (or set PPLIB_LOG for Session::from_env)"
    )]
    NoPath,
    /// p = 0.
    #[error("expected at least 1 processor, got 0")]
    NoProcessors,
    /// The log file could not be created or its header written.
    #[error("cannot create the event log {}: {source}", path.display())]
    Create {
        /// The log.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// Writing the log failed (reported once on stderr when it happened; recording stopped).
    #[error("writing the event log {} failed: {source}", path.display())]
    Write {
        /// The log.
        path: PathBuf,
        /// What the OS said.
        #[source]
        source: std::io::Error,
    },
    /// The writer thread could not be started.
    #[error("cannot start the pplib writer thread: {0}")]
    Thread(#[source] std::io::Error),
    /// A rayon pool could not be built.
    #[error("cannot build a rayon pool of {threads} threads: {reason}")]
    Pool {
        /// The requested size.
        threads: usize,
        /// What rayon said.
        reason: String,
    },
}

/// A recording session: from its start to its drop (or [`Session::finish`]) every
/// instrumentation call of every thread is recorded into one log.
///
/// The thread that starts the session records `session_begin`; the one that finishes it
/// records `session_end` (make it the same thread). A disabled session records nothing and
/// costs nothing. At most one session records at a time.
#[derive(Debug)]
#[must_use = "the session ends when it is dropped"]
pub struct Session {
    active: Option<Arc<Recorder>>,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// A session configured by the environment:
    ///
    /// - `PPLIB_LOG=path`: record into `path` (unset or empty: a disabled session);
    /// - `PPLIB_PROCESSORS=p`: the team size written in the header (default: the size of
    ///   rayon's global pool, which follows `RAYON_NUM_THREADS`, or the number of CPUs);
    /// - `PPLIB_COUNTERS=1`: record counters ([`crate::counters`]);
    /// - `PPLIB_CLOCK=monotonic`: use CLOCK_MONOTONIC instead of the TSC.
    ///
    /// Never fails: if the log cannot be created, says so on stderr and returns a disabled
    /// session (the program runs on, unrecorded).
    pub fn from_env() -> Session {
        Session::from_env_or(None)
    }

    /// [`Session::from_env`] with p = `processors` (if given) when `PPLIB_PROCESSORS` is
    /// not set.
    pub(crate) fn from_env_or(processors: Option<usize>) -> Session {
        let Some(path) = std::env::var_os("PPLIB_LOG").filter(|p| !p.is_empty()) else {
            return Session::disabled();
        };
        let mut builder = Session::builder().path(path);
        if let Some(p) = std::env::var("PPLIB_PROCESSORS")
            .ok()
            .and_then(|p| p.trim().parse::<usize>().ok())
            .or(processors)
        {
            builder = builder.processors(p);
        }
        if let Ok(c) = std::env::var("PPLIB_COUNTERS") {
            builder = builder.counters(matches!(c.trim(), "1" | "true" | "on" | "yes"));
        }
        match builder.start() {
            Ok(session) => session,
            Err(e) => {
                eprintln!("pplib: {e}; recording is off");
                Session::disabled()
            }
        }
    }

    /// A builder for a session recording into a given file.
    pub fn builder() -> SessionBuilder {
        SessionBuilder::default()
    }

    /// A session that records nothing.
    pub fn disabled() -> Session {
        Session { active: None }
    }

    /// True if this session is recording.
    pub fn is_enabled(&self) -> bool {
        self.active.is_some()
    }

    /// The log this session records into.
    pub fn path(&self) -> Option<&Path> {
        self.active.as_ref().map(|r| r.path.as_path())
    }

    /// Ends the session: records `session_end`, collects every thread's events and
    /// completes the log. Reports a write error (which was also reported on stderr when it
    /// happened).
    pub fn finish(mut self) -> Result<(), PplibError> {
        self.end()
    }

    fn end(&mut self) -> Result<(), PplibError> {
        let Some(recorder) = self.active.take() else {
            return Ok(());
        };
        recorder::emit_if_current(recorder.state, raw::SESSION_END, 0);
        let result = recorder.close(Duration::from_secs(60));
        if result.is_ok() && recorder.failed() {
            return Err(PplibError::Write {
                path: recorder.path.clone(),
                source: std::io::Error::other("see the earlier message on stderr"),
            });
        }
        result
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Err(e) = self.end() {
            eprintln!("pplib: {e}");
        }
    }
}

/// Configures a recording session ([`Session::builder`]).
#[derive(Debug, Default, Clone)]
pub struct SessionBuilder {
    path: Option<PathBuf>,
    processors: Option<usize>,
    counters: bool,
    backend: Option<Arc<dyn CounterBackend>>,
    clock: Option<ClockSource>,
}

impl SessionBuilder {
    /// Records into `path` (created or truncated).
    pub fn path(mut self, path: impl Into<PathBuf>) -> SessionBuilder {
        self.path = Some(path.into());
        self
    }

    /// p, the team size written in the header (default: the size of the rayon pool the
    /// session starts in — rayon's global pool outside one —, or the number of CPUs
    /// without the `rayon` feature).
    pub fn processors(mut self, p: usize) -> SessionBuilder {
        self.processors = Some(p);
        self
    }

    /// True if p was set ([`SessionBuilder::processors`]).
    pub(crate) fn has_processors(&self) -> bool {
        self.processors.is_some()
    }

    /// Records per-thread counters at construct boundaries (default off).
    pub fn counters(mut self, on: bool) -> SessionBuilder {
        self.counters = on;
        self
    }

    /// The counter backend (default [`PerfEvents`]); implies `counters(true)`.
    pub fn counter_backend(mut self, backend: Arc<dyn CounterBackend>) -> SessionBuilder {
        self.counters = true;
        self.backend = Some(backend);
        self
    }

    /// The clock (default: [`ClockSource::from_env`]).
    pub fn clock(mut self, clock: ClockSource) -> SessionBuilder {
        self.clock = Some(clock);
        self
    }

    /// Starts recording and records `session_begin` on the calling thread.
    ///
    /// The log must be a regular file or a character device such as `/dev/null` (a FIFO
    /// is refused at once). If another
    /// process is recording into it, this one records into `STEM.PID.EXT` next to it and
    /// says so on stderr; the log's header is on disk when this returns.
    pub fn start(self) -> Result<Session, PplibError> {
        let path = self.path.ok_or(PplibError::NoPath)?;
        let processors = match self.processors {
            Some(0) => return Err(PplibError::NoProcessors),
            Some(p) => p,
            None => default_processors(),
        };
        let counters = self
            .counters
            .then(|| self.backend.unwrap_or_else(|| Arc::new(PerfEvents)));
        let recorder = recorder::start(recorder::Config {
            path,
            processors: u32::try_from(processors).unwrap_or(u32::MAX),
            counters,
            clock: self.clock.unwrap_or_else(ClockSource::from_env),
        })?;
        recorder::emit(recorder.state, raw::SESSION_BEGIN, 0);
        Ok(Session {
            active: Some(recorder),
        })
    }
}

fn default_processors() -> usize {
    #[cfg(feature = "rayon")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "rayon"))]
    {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}
