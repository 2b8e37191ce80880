//! A small n-body step in two parallelizations, each written so that `lcm` reads it:
//! - [`outer`]: a parallel loop over the bodies, each computing its force over all others
//!   sequentially (n items of n pair interactions);
//! - [`reduce`]: the bodies one after the other, each one's force a parallel fold/reduce
//!   over the others (n parallel loops of n items of one pair interaction each).
//!
//! Both do the same n² pair interactions (about 1.3 ns each on the team's 2-core VM). With a machine file,
//! `lcm compare outer.rs reduce.rs --machine machine.txt --set n=1000 --set p=2` predicts
//! the second one several times slower: n parallel-iterator calls (the machine file's
//! `par_call_s_pQ`, what one small call issued from inside the pool costs) and n² iterator
//! items are its cost, which the pair models alone do not show (`examples/src/bin/nbody.rs`
//! measures both).

pub mod outer;
pub mod reduce;

/// A point mass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Body {
    /// Position.
    pub pos: [f64; 3],
    /// Velocity.
    pub vel: [f64; 3],
    /// Mass.
    pub mass: f64,
}

/// The time step.
pub const DT: f64 = 1e-3;

/// Softening: keeps the force finite when two bodies come close.
const SOFTENING: f64 = 1e-2;

/// `n` bodies on a deterministic spiral (no random numbers: runs compare exactly).
pub fn bodies(n: usize) -> Vec<Body> {
    (0..n)
        .map(|i| {
            let t = i as f64 * 0.37;
            let r = 1.0 + (i % 97) as f64 * 0.01;
            Body {
                pos: [r * t.cos(), r * t.sin(), 0.01 * (i % 13) as f64],
                vel: [-0.1 * t.sin(), 0.1 * t.cos(), 0.0],
                mass: 1.0 / n.max(1) as f64,
            }
        })
        .collect()
}

/// `a + b`.
pub fn add3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// The acceleration body `other` gives body `on`: softened gravity of two-dimensional
/// space (force falling as 1/r, G = 1), one division and no square root per pair, so a
/// pair interaction costs a few nanoseconds.
pub fn accel(on: &Body, other: &Body) -> [f64; 3] {
    let d = [
        other.pos[0] - on.pos[0],
        other.pos[1] - on.pos[1],
        other.pos[2] - on.pos[2],
    ];
    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + SOFTENING;
    let s = other.mass / r2;
    [d[0] * s, d[1] * s, d[2] * s]
}

/// `b` one time step later under acceleration `a`.
pub fn advance(b: &Body, a: [f64; 3]) -> Body {
    let vel = add3(b.vel, [a[0] * DT, a[1] * DT, a[2] * DT]);
    Body {
        pos: add3(b.pos, [vel[0] * DT, vel[1] * DT, vel[2] * DT]),
        vel,
        mass: b.mass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_versions_compute_the_same_step() {
        let b = bodies(64);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let x = pool.install(|| outer::step(&b));
        let y = pool.install(|| reduce::step(&b));
        for (u, v) in x.iter().zip(&y) {
            for k in 0..3 {
                assert!((u.pos[k] - v.pos[k]).abs() < 1e-12, "{u:?} {v:?}");
            }
        }
        assert_ne!(x, b, "the step moved the bodies");
    }
}
