//! Prediction of Rust programs from their annotated fragment models.
