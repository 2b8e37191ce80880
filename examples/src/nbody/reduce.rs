//! n-body step, the bodies one after the other, each one's force a parallel fold/reduce over
//! all n bodies: n parallel loops of n items of one pair interaction. Read by `lcm` (entry
//! `step`): the body loop's trip count is annotated, each fold's item count is read from
//! `(0..n)`; the fragment's model is one pair interaction (1.3e-9 s here, as in
//! [`super::outer`]).

use super::{accel, add3, advance, Body};
use rayon::prelude::*;

/// One time step of `bodies`.
pub fn step(bodies: &[Body]) -> Vec<Body> {
    let n = bodies.len();
    let mut next = Vec::with_capacity(n);
    // lcm: iterations = n
    for i in 0..n {
        let a = (0..n)
            .into_par_iter()
            .fold(
                || [0.0; 3],
                |acc, j| {
                    // lcm: fragment pair
                    // lcm: rt = 1.3e-9
                    add3(acc, accel(&bodies[i], &bodies[j]))
                },
            )
            .reduce(|| [0.0; 3], add3);
        next.push(advance(&bodies[i], a));
    }
    next
}
