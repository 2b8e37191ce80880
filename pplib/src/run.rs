//! The one-call set-up: a rayon pool whose size is p, and a session that starts and
//! finishes inside it around the profiled code ([`run`], [`SessionBuilder::run`]).

use crate::{PplibError, Session, SessionBuilder};

/// Runs `f` in a new rayon pool of `threads` workers, recorded by a session configured by
/// the environment (`PPLIB_LOG`, ...; see [`Session::from_env`]), and returns its result.
///
/// `threads` = 0 takes rayon's default (`RAYON_NUM_THREADS`, else the number of CPUs).
/// The workers are registered with the session (idle ones appear in the log too); the
/// session starts on a pool thread right before `f` and finishes right after it, so the
/// log holds exactly the pool's threads and any the program starts itself, and p is the
/// pool's size unless `PPLIB_PROCESSORS` says otherwise. Without `PPLIB_LOG`, `f` runs in
/// the pool unrecorded. A log that cannot be created or written is reported on stderr
/// (the program runs on, unrecorded); only a pool that cannot be built is an error.
///
/// ```
/// use pplib::prelude::*;
///
/// // PPLIB_LOG=run.pplog ./prog records; without it the same code runs unrecorded.
/// let sum = pplib::run(2, || {
///     let _tag = pplib::frag("sum");
///     (1..=1000u64).into_par_iter().recorded().sum::<u64>()
/// })?;
/// assert_eq!(sum, 500_500);
/// # Ok::<(), pplib::PplibError>(())
/// ```
#[cfg(feature = "rayon")]
pub fn run<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> Result<R, PplibError> {
    let pool = crate::pool(pool_size(threads))?;
    Ok(pool.install(|| {
        let session = Session::from_env_or(Some(rayon::current_num_threads()));
        register_workers();
        let result = f();
        if let Err(e) = session.finish() {
            eprintln!("pplib: {e}");
        }
        result
    }))
}

/// Makes every worker of the current pool part of the session (they started before it).
#[cfg(feature = "rayon")]
fn register_workers() {
    rayon::broadcast(|_| crate::register_thread());
}

#[cfg(feature = "rayon")]
fn pool_size(threads: usize) -> usize {
    if threads > 0 {
        threads
    } else {
        rayon::ThreadPoolBuilder::new()
            .build()
            .map_or(1, |p| p.current_num_threads())
    }
}

impl SessionBuilder {
    /// Runs `f` in a new rayon pool of `threads` workers (0: rayon's default) recorded by
    /// this session, as [`run`] does; p is the pool's size unless
    /// [`SessionBuilder::processors`] set it.
    ///
    /// Errors: the pool cannot be built, the log cannot be created (before `f` runs), or
    /// writing it failed (after `f` ran: its result is lost with the error).
    ///
    /// ```
    /// use pplib::prelude::*;
    ///
    /// let log = std::env::temp_dir().join(format!("pplib-run-{}.pplog", std::process::id()));
    /// let n = pplib::Session::builder().path(&log).run(2, || {
    ///     (0..100u32).into_par_iter().recorded().filter(|x| x % 3 == 0).count()
    /// })?;
    /// assert_eq!(n, 34);
    /// assert_eq!(pplib::log::LogReader::open(&log)?.header().processors, 2);
    /// # std::fs::remove_file(&log).ok();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "rayon")]
    pub fn run<R: Send>(
        self,
        threads: usize,
        f: impl FnOnce() -> R + Send,
    ) -> Result<R, PplibError> {
        let pool = crate::pool(pool_size(threads))?;
        pool.install(|| {
            let builder = if self.has_processors() {
                self
            } else {
                self.processors(rayon::current_num_threads())
            };
            let session = builder.start()?;
            register_workers();
            let result = f();
            session.finish()?;
            Ok(result)
        })
    }
}
