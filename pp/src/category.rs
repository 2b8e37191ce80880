//! The lost-cycles categories (docs/predicates.md) and their record keys: the shared
//! vocabulary of the `category` crate, which pp, lca, lcm and the study all use. What
//! fork/join latency (`fj`, a part of `li`) counts is in [`Category`]'s docs.

pub use ::category::{keys, time, Category, UnknownCategory};
