//! Errors of the PAMELA front end, compiler, evaluator and simulator.
use thiserror::Error;

/// A place in a PAMELA source text (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.col)
    }
}

/// Everything that can go wrong between PAMELA text and a number.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PamelaError {
    /// The text does not follow the grammar.
    #[error("{span}: expected {expected}, found {found}")]
    Parse {
        /// Where.
        span: Span,
        /// What the grammar allows here.
        expected: String,
        /// What the text has.
        found: String,
    },
    /// A well-formed model that makes no sense (undefined names, wrong arity, recursion, ...).
    #[error("{span}: {message}")]
    Semantic {
        /// The equation (or construct) concerned.
        span: Span,
        /// What is wrong.
        message: String,
    },
    /// A value was given for a name the model does not define.
    #[error("the model has no numeric `{name}` (its parameters: {parameters})")]
    UnknownName {
        /// The name given.
        name: String,
        /// The model's parameters, comma-separated.
        parameters: String,
    },
    /// Evaluation needs a value for a parameter that has none.
    #[error("no value for parameter `{name}` (give it with --set {name}=VALUE)")]
    Unbound {
        /// The parameter.
        name: String,
    },
    /// A numeric evaluation went wrong (index not an integer, multiplicity not positive, ...).
    #[error("evaluation: {0}")]
    Eval(String),
    /// The simulated processes wait for each other forever.
    #[error("deadlock at virtual time {time}: {blocked} process(es) blocked ({detail})")]
    Deadlock {
        /// Virtual time at which no event was left.
        time: f64,
        /// Number of processes still blocked.
        blocked: usize,
        /// What the first blocked processes wait for.
        detail: String,
    },
    /// The simulation exceeded its event budget.
    #[error(
        "simulation stopped after {events} events (limit); the model is too large to simulate"
    )]
    TooManyEvents {
        /// Events processed before stopping.
        events: u64,
    },
    /// A replication would make more processes live at once than the simulator holds.
    #[error(
        "simulation stopped: `par` would start {wanted} processes beside {live} live ones, \
         more than the simulator holds at once ({limit}); simulate a smaller instance"
    )]
    TooManyProcesses {
        /// Processes the replication asked for.
        wanted: u64,
        /// Processes already live.
        live: usize,
        /// The limit, [`crate::pamela::MAX_LIVE_PROCESSES`].
        limit: usize,
    },
}

impl PamelaError {
    pub(crate) fn parse(span: Span, expected: impl Into<String>, found: impl Into<String>) -> Self {
        PamelaError::Parse {
            span,
            expected: expected.into(),
            found: found.into(),
        }
    }
    pub(crate) fn semantic(span: Span, message: impl Into<String>) -> Self {
        PamelaError::Semantic {
            span,
            message: message.into(),
        }
    }
}
