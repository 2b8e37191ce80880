//! n-body step, parallel over the bodies: n items, each the sequential force loop over all
//! n bodies. Read by `lcm` (entry `step`): the item count is the length of `next`
//! (`vec![..; n]`); the fragment's model is per body, `pair_s * n` with `pair_s` the time
//! of one pair interaction (1.3e-9 s here: `cargo run --release -p examples --bin nbody`
//! prints it measured on one thread).

use super::{accel, add3, advance, Body};
use rayon::prelude::*;

/// One time step of `bodies`.
pub fn step(bodies: &[Body]) -> Vec<Body> {
    let n = bodies.len();
    let mut next = vec![Body::default(); n];
    next.par_iter_mut().enumerate().for_each(|(i, out)| {
        // lcm: fragment forces
        // lcm: rt = 1.3e-9*n
        let a = bodies
            .iter()
            .fold([0.0; 3], |acc, other| add3(acc, accel(&bodies[i], other)));
        *out = advance(&bodies[i], a);
    });
    next
}
