//! Pipelines in the composition: the material-oriented stage model beside its flow-shop
//! critical path (Eq. 3.16), and the symbolic stage times it needs: each stage's time per
//! item is its fragments' time (`base_P_S`) plus what its hand-offs cost (`handoff_P_S`,
//! [`crate::predict::handoff`]'s rule, when the machine file has run-time costs).
use super::steps::{Step, Term};
use super::Composer;
use crate::predict::env::{fragment_terms, max_of, sum_of, Env};
use crate::predict::error::PredictError;
use crate::predict::tree::{add, div, mul, Node, NodeKind};
use lca::expr::{BinOp, Expr};

/// The symbolic per-item times of a pipeline's stages and what they add up to.
struct StageTimes {
    /// `tau_P_S`: each stage's time per item (its fragments plus its hand-offs).
    taus: Vec<String>,
    /// `N_P_S`: how many items each stage handles.
    counts: Vec<String>,
    /// Each stage's processor-time: count × tau × the stage's processors.
    work: Vec<Expr>,
}

impl Composer<'_> {
    /// Pipeline node `n` as a step: the material-oriented stages (every item uses each
    /// stage's resource in turn) in parallel with the flow-shop critical path, and with
    /// `resources` the processors' demand beside them.
    pub(super) fn pipeline(
        &mut self,
        n: &Node,
        env: &Env,
        outer: &Env,
        depth: usize,
    ) -> Result<Step, PredictError> {
        let NodeKind::Pipeline {
            stage_items,
            handoff,
            ..
        } = &n.kind
        else {
            unreachable!("Composer::pipeline is called on pipeline nodes only")
        };
        self.pipes += 1;
        let pid = self.pipes;
        let bases = self.stage_bases(n, env, outer, pid, handoff.is_some())?;
        let handoffs = handoff.map(|h| h.per_item(&bases));
        let times = self.stage_times(n, env, outer, pid, &bases, handoffs, stage_items);
        let all_equal = stage_items.windows(2).all(|w| w[0] == w[1]);
        let i = self.index();
        let StageTimes { taus, counts, work } = times;
        let uses: Vec<Step> = taus
            .iter()
            .enumerate()
            .map(|(s, tau)| {
                let time = if all_equal || s == 0 {
                    Term::Model(Expr::Var(tau.clone()))
                } else {
                    Term::FirstItems {
                        index: i.clone(),
                        count: counts[s].clone(),
                        time: tau.clone(),
                    }
                };
                Step::Use(format!("st_{pid}_{}", s + 1), time)
            })
            .collect();
        let (exact, _bound) = flow_shop(&taus, &counts);
        let path = self.numeric(&format!("T_pipe_{pid}"), &exact);
        let w = self.numeric(&format!("W_pipe_{pid}"), &sum_of(work));
        let stages = Step::Repeat {
            par: true,
            index: i,
            count: Expr::Var(counts[0].clone()),
            body: Box::new(Step::Seq(uses)),
        };
        let pipe = Step::Par(vec![stages, Step::Delay(Term::Model(Expr::Var(path)))]);
        let note = format!(
            "pipeline (line {}): material-oriented stages || critical path with skew (Eq. 3.16)",
            n.line
        );
        Ok(self.pipeline_line(depth, note, pipe, w))
    }

    /// Each stage's fragment time per item; named `base_P_S` when hand-offs are added to
    /// it (their rule needs the stages' times by name).
    fn stage_bases(
        &mut self,
        n: &Node,
        env: &Env,
        outer: &Env,
        pid: usize,
        named: bool,
    ) -> Result<Vec<Expr>, PredictError> {
        let mut bases = Vec::new();
        for (s, stage) in n.children.iter().enumerate() {
            let senv = env.enter(stage, outer);
            let base = self.time_expr_seq(&stage.children, &senv)?;
            bases.push(if named {
                Expr::Var(self.numeric(&format!("base_{pid}_{}", s + 1), &base))
            } else {
                base
            });
        }
        Ok(bases)
    }

    /// Names each stage's time per item (`handoff_P_S`, `tau_P_S`) and item count
    /// (`N_P_S`), declares its resource `st_P_S`, and sums its processor-time.
    #[allow(clippy::too_many_arguments)] // the pipeline's parts, each used once
    fn stage_times(
        &mut self,
        n: &Node,
        env: &Env,
        outer: &Env,
        pid: usize,
        bases: &[Expr],
        handoffs: Option<Vec<Expr>>,
        stage_items: &[Expr],
    ) -> StageTimes {
        let mut taus = Vec::new();
        let mut counts = Vec::new();
        let mut work = Vec::new();
        for (s, stage) in n.children.iter().enumerate() {
            let senv = env.enter(stage, outer);
            let tau = match &handoffs {
                Some(h) => {
                    let h = self.numeric(&format!("handoff_{pid}_{}", s + 1), &h[s]);
                    add(bases[s].clone(), Expr::Var(h))
                }
                None => bases[s].clone(),
            };
            let tau = self.numeric(&format!("tau_{pid}_{}", s + 1), &tau);
            let count = self.numeric(&format!("N_{pid}_{}", s + 1), &env.subst(&stage_items[s]));
            work.push(mul(
                mul(Expr::Var(count.clone()), Expr::Var(tau.clone())),
                senv.p(),
            ));
            self.resource(
                &format!("st_{pid}_{}", s + 1),
                &format!("pipeline {pid} stage {} (line {})", s + 1, stage.line),
            );
            taus.push(tau);
            counts.push(count);
        }
        StageTimes { taus, counts, work }
    }

    /// The pipeline's step at `depth` with its note; with `resources`, a block that also
    /// has the processors use `cpu` for the pipeline's work `w` (`W_pipe_P`) divided
    /// among them.
    fn pipeline_line(&mut self, depth: usize, note: String, pipe: Step, w: String) -> Step {
        let line = |depth, note, step| Step::Line {
            depth,
            note,
            step: Box::new(step),
        };
        if self.opts.resources {
            let j = self.index();
            let demand = Expr::bin(BinOp::Div, Expr::Var(w), Expr::Var("p".into()));
            let cpu = Step::Repeat {
                par: true,
                index: j,
                count: Expr::Var("p".into()),
                body: Box::new(Step::Use("cpu".into(), Term::Model(demand))),
            };
            Step::Block {
                depth,
                par: true,
                note: Some(note),
                parts: vec![line(depth, None, pipe), line(depth + 1, None, cpu)],
            }
        } else {
            line(depth, Some(note), pipe)
        }
    }

    /// Symbolic critical-path time of a sequence of nodes (for pipeline stage times).
    fn time_expr_seq(&mut self, nodes: &[Node], env: &Env) -> Result<Expr, PredictError> {
        let mut parts = Vec::new();
        for c in nodes {
            if let Some(t) = self.time_expr(c, env, env)? {
                parts.push(t);
            }
        }
        Ok(sum_of(parts))
    }

    fn time_expr(
        &mut self,
        n: &Node,
        env: &Env,
        outer: &Env,
    ) -> Result<Option<Expr>, PredictError> {
        let env = env.enter(n, outer);
        Ok(Some(match &n.kind {
            NodeKind::Fragment(f) => {
                let terms = fragment_terms(f, &env, self.file, n.line)?;
                let k = self.frag_idx;
                self.frag_idx += 1;
                // The fragment's threads share the read of a moved item.
                match (self.opts.comm, self.comm.get(k).cloned().flatten()) {
                    (true, Some(c)) => add(terms.time(), div(c, terms.procs)),
                    _ => terms.time(),
                }
            }
            NodeKind::Serial { .. } | NodeKind::Locked { .. } => {
                self.time_expr_seq(&n.children, &env)?
            }
            NodeKind::Loop { count, .. } => {
                mul(env.subst(count), self.time_expr_seq(&n.children, &env)?)
            }
            NodeKind::Parallel { .. } => {
                let tasks = env.subst(&n.task_count());
                let tenv = env.with("p", div(env.p(), tasks));
                let mut ts = Vec::new();
                for c in &n.children {
                    if let Some(t) = self.time_expr(c, &tenv, &env)? {
                        ts.push(t);
                    }
                }
                max_of(ts)
            }
            NodeKind::ParallelLoop { .. } => {
                let mut ts = Vec::new();
                for c in &n.children {
                    if let Some(t) = self.time_expr(c, &env, outer)? {
                        ts.push(t);
                    }
                }
                max_of(ts)
            }
            NodeKind::DataParallel { count, .. } => {
                let ienv = crate::predict::tree::item_env(&env, count);
                let t = self.time_expr_seq(&n.children, &ienv)?;
                let count = env.subst(count);
                max_of(vec![t.clone(), div(mul(count, t), env.p())])
            }
            NodeKind::Pipeline {
                stage_items,
                handoff,
                ..
            } => {
                let mut taus = Vec::new();
                for stage in &n.children {
                    let senv = env.enter(stage, outer);
                    taus.push(self.time_expr_seq(&stage.children, &senv)?);
                }
                if let Some(h) = handoff {
                    let extra = h.per_item(&taus);
                    taus = taus
                        .into_iter()
                        .zip(extra)
                        .map(|(t, x)| add(t, x))
                        .collect();
                }
                let counts: Vec<Expr> = stage_items.iter().map(|c| env.subst(c)).collect();
                flow_shop_exprs(&taus, &counts).0
            }
            NodeKind::Sync(_) => return Ok(None),
        }))
    }
}

/// Flow-shop completion of a pipeline (stage s handles the first N_s data sets, tau_s each):
/// exact T = max over s and m <= s of (sum_{k<m} tau_k + N_s*tau_m + sum_{m<k<=s} tau_k), and
/// the phi/omega bound max(sum tau, max_s N_s*tau_s). For equal N this is Eq. 3.16,
/// T = phi + omega - tau*.
pub fn flow_shop_exprs(taus: &[Expr], counts: &[Expr]) -> (Expr, Expr) {
    let mut terms = Vec::new();
    for s in 0..taus.len() {
        for m in 0..=s {
            let mut parts: Vec<Expr> = Vec::new();
            parts.extend(taus[..m].iter().cloned());
            parts.push(mul(counts[s].clone(), taus[m].clone()));
            parts.extend(taus[m + 1..=s].iter().cloned());
            terms.push(sum_of(parts));
        }
    }
    let phi = sum_of(taus.to_vec());
    let omega: Vec<Expr> = taus
        .iter()
        .zip(counts)
        .map(|(t, c)| mul(c.clone(), t.clone()))
        .collect();
    let mut bound = vec![phi];
    bound.extend(omega);
    (max_of(terms), max_of(bound))
}

fn flow_shop(taus: &[String], counts: &[String]) -> (Expr, Expr) {
    let t: Vec<Expr> = taus.iter().map(|s| Expr::Var(s.clone())).collect();
    let c: Vec<Expr> = counts.iter().map(|s| Expr::Var(s.clone())).collect();
    flow_shop_exprs(&t, &c)
}
