//! End-to-end tests of the lost-cycles toolchain live in `tests/tests/`.
