//! Instrumented example programs and the end-to-end study of the lost-cycles toolchain.
