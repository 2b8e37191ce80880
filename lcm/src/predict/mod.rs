//! Prediction of Rust programs from their annotated fragment models (Crovella's lost cycles
//! modeling, chapter 6, composed in PAMELA terms).

pub mod account;
pub mod compose;
pub mod datatrace;
pub mod env;
pub mod grid;
pub mod error;
pub mod machine;
pub mod pipeline;
pub mod program;
pub mod recognize;
pub mod report;
pub mod source;
pub mod tree;

pub use error::{PredictError, Warning};
pub use program::{predict_file, Contributions, Prediction, PredictOptions, Program};
