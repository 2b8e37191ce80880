//! The PAMELA language, its compile-time calculus and a discrete-event simulator.
