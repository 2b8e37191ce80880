//! `lcm`: lost-cycles modeling. Composes fitted fragment models into PAMELA models and
//! predicts run times of (restructured) parallel programs before they run.
//!
//! Two layers:
//!
//! * [`pamela`] — the PAMELA language (van Gemund), its compile-time calculus and a
//!   discrete-event simulator. A model describes work (`delay`, `use` of FCFS / PS
//!   resources), its sequential and parallel composition (`;`, `||`, `seq`, `par`, `if`)
//!   and condition synchronization (`wait`/`signal`). Compiling it yields a symbolic
//!   lower bound on its execution time, simplified to a closed form for regular models;
//!   simulating it yields the time the bound approximates.
//! * [`predict`] — reads `// lcm:` fragment models from Rust source, composes them into a
//!   PAMELA model of the program and predicts T(n, p).
//!
//! The usage story: a performance engineer writes (or `lcm predict` generates) a model,
//! runs `lcm pamela model.pam` to see the symbolic bound in the parameters it left
//! open, evaluates it on a grid (`--grid P=1..64`) to find where contention takes over,
//! and checks the bound against `lcm simulate model.pam --set P=16 --runs 20` where
//! the lower bound might be loose.
//!
//! ```
//! use lcm::pamela::{self, Bindings, SimOptions};
//!
//! // The machine repair model: P clients think for 10, then need the server for 0.1.
//! let src = "
//!     numeric parameter P
//!     numeric parameter N
//!     resource s = fcfs(0, 1)
//!     process main = par (p = 1, P) seq (i = 1, N) { delay(10) ; use(s, 0.1) }
//! ";
//! let program = pamela::parse(src)?;
//! let model = program.compile()?;
//! assert_eq!(model.t_main().to_string(), "max(N*10.1, P*N*0.1)");
//!
//! let at = Bindings::from([("P".to_string(), 20.0), ("N".to_string(), 100.0)]);
//! assert!((model.eval(&at)? - 1010.0).abs() < 1e-9);
//!
//! // The simulation sees the one-time skew of the first conflicts on top of the bound.
//! let report = pamela::simulate(&program, &at, &SimOptions { runs: 3, seed: 1 })?;
//! assert!(report.mean >= report.t_lower && report.ratio() > 0.98);
//! # Ok::<(), pamela::PamelaError>(())
//! ```
#![deny(missing_docs)]

pub mod calibrate;
pub mod json_out;
pub mod pamela;
pub mod predict;

/// The largest model, source, models or machine file `lcm` reads (bytes). Text beyond it
/// is refused without being read: the parsed forms take several times the text's size.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// Reads a UTF-8 text file of at most [`MAX_INPUT_BYTES`].
pub fn read_input(path: &std::path::Path) -> std::io::Result<String> {
    lca::record::read_capped(std::fs::File::open(path)?, MAX_INPUT_BYTES)
}
