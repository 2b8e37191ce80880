//! `pp`: part of the lost-cycles toolchain (see the workspace README).
#![deny(missing_docs)]
