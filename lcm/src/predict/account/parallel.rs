//! A parallel node of the walk: its tasks side by side, the structural load imbalance LI+
//! of the ones that finish early, and the processors none of them uses.

use super::shape::{child, Shape};
use super::walker::Walker;
use super::ParallelShare;
use crate::predict::env::Env;
use crate::predict::error::PredictError;
use crate::predict::tree::{div, Node, NodeKind};

impl Walker<'_> {
    /// A parallel node `n` in `env` with `p` processors: its seconds.
    pub(super) fn parallel(
        &mut self,
        n: &Node,
        construct: &str,
        sh: Option<&Shape>,
        env: &Env,
        p: f64,
        mult: f64,
    ) -> Result<f64, PredictError> {
        let tasks = env.subst(&n.task_count());
        let tenv = env.with("p", div(env.p(), tasks));
        // (time, procs, copies) per task
        let mut entries: Vec<(f64, f64, f64)> = Vec::new();
        for (i, c) in n.children.iter().enumerate() {
            let csh = child(sh, i);
            match &c.kind {
                NodeKind::ParallelLoop { count, .. } => {
                    let cenv = tenv.enter(c, env);
                    let copies = self.val(
                        &cenv.subst(count),
                        &format!("spawn count at line {}", c.line),
                    )?;
                    for (j, g) in c.children.iter().enumerate() {
                        let (t, pp) = self.node(g, child(csh, j), &cenv, env, mult * copies)?;
                        entries.push((t, pp, copies));
                    }
                }
                NodeKind::Pipeline { .. } => {
                    let (t, stages) = self.pipeline(c, csh, &tenv, env, mult)?;
                    for sp in stages {
                        entries.push((t, sp, 1.0));
                    }
                }
                _ => {
                    let (t, pp) = self.node(c, csh, &tenv, env, mult)?;
                    entries.push((t, pp, 1.0));
                }
            }
        }
        let tmax = entries.iter().map(|e| e.0).fold(0.0, f64::max);
        let li: f64 = entries.iter().map(|(t, pp, k)| (tmax - t) * pp * k).sum();
        let used: f64 = entries.iter().map(|(_, pp, k)| pp * k).sum();
        self.totals.li_plus += li * mult;
        if self.instances {
            self.acc.parallels.push(ParallelShare {
                line: n.line,
                construct: construct.to_string(),
                li_plus: li * mult,
            });
        }
        if used < p * (1.0 - 1e-9) {
            self.add_idle((p - used) * tmax * mult);
        }
        Ok(tmax)
    }
}
