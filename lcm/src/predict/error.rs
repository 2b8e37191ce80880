//! Errors and warnings of `lcm::predict`.

use std::fmt;

/// Everything that can go wrong reading, composing or predicting a program. Messages name the
/// file and line and say what was expected.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The Rust source does not parse.
    #[error("{file}:{line}:{column}: expected valid Rust: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// syn's message.
        message: String,
    },
    /// A malformed or misplaced `// lcm:` annotation (also in a models file).
    #[error("{file}:{line}:{column}: {message}")]
    Annotation {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (1 when the whole line is at fault).
        column: usize,
        /// What was expected and what came.
        message: String,
    },
    /// A malformed machine file.
    #[error("{file}:{line}: {message}")]
    Machine {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What was expected and what came.
        message: String,
    },
    /// The program cannot be composed (no entry function, fragment without a model, …).
    #[error("{file}:{line}: {message}")]
    Structure {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A variable a model needs has no value.
    #[error("no value for variable `{name}` (needed by {needed_by}); pass --set {name}=VALUE")]
    Unbound {
        /// The variable.
        name: String,
        /// Who needs it.
        needed_by: String,
    },
    /// A model evaluated to NaN, infinity, or failed.
    #[error("{what}: {message}")]
    Eval {
        /// What was evaluated.
        what: String,
        /// Why it failed.
        message: String,
    },
    /// The PAMELA engine rejected the composed model (a bug in composition or the engine).
    #[error("composed PAMELA model rejected: {0}")]
    Pamela(#[from] crate::pamela::PamelaError),
    /// A bad `--set` / `--grid` specification.
    #[error("{0}")]
    Usage(String),
}

/// A warning: something `lcm` saw but does not model, with its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What and why.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "warning: {}:{}: {}", self.file, self.line, self.message)
    }
}
