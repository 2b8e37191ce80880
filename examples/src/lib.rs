//! Instrumented example programs and the end-to-end study of the lost-cycles toolchain.

pub mod fft;
pub mod histogram;
pub mod nbody;
pub mod profile;
pub mod queens;
pub mod study;
