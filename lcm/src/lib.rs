//! `lcm`: lost-cycles modeling. Composes fitted fragment models into PAMELA models and
//! predicts run times of (restructured) parallel programs before they run.
#![deny(missing_docs)]

pub mod pamela;
pub mod predict;
