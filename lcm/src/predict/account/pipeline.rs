//! A pipeline of the walk: each stage's time per item, the hand-offs between neighbouring
//! stages ([`crate::predict::handoff`]), the flow-shop time, its bottleneck and the stages'
//! waiting.

use super::shape::{child, Shape};
use super::walker::Walker;
use super::{ev, FragmentShare, PipelineShare, StageShare};
use crate::predict::compose::flow_shop_exprs;
use crate::predict::env::Env;
use crate::predict::error::PredictError;
use crate::predict::handoff::{self, HandoffRule, HandoffShare};
use crate::predict::tree::{Node, NodeKind};
use lca::expr::{Bindings, Expr};

impl Walker<'_> {
    /// Adds each stage's hand-offs ([`crate::predict::handoff`]) to its time per item, counted as
    /// the work of `machine hand-off`; returns the hand-offs with their regimes and parked
    /// shares.
    fn handoffs(
        &mut self,
        rule: HandoffRule,
        n: &Node,
        stages: &mut [StageShare],
        mult: f64,
    ) -> Result<Vec<HandoffShare>, PredictError> {
        let base: Vec<f64> = stages.iter().map(|s| s.tau_s).collect();
        let exprs = rule.per_item(&base.iter().map(|t| Expr::Num(*t)).collect::<Vec<_>>());
        let what = format!("hand-offs of the pipeline at line {}", n.line);
        for ((stage, e), node) in stages.iter_mut().zip(&exprs).zip(&n.children) {
            let h = self.val(e, &what)?;
            stage.handoff_s = h;
            stage.tau_s += h;
            if h == 0.0 {
                continue;
            }
            let work = h * stage.procs;
            self.totals
                .add_work(handoff::NAME, mult * stage.items * work);
            if self.instances {
                self.acc.fragments.push(FragmentShare {
                    name: handoff::NAME.to_string(),
                    line: node.line,
                    called_from: self.call_sites(),
                    executions: mult * stage.items,
                    procs: stage.procs,
                    time_s: h,
                    work,
                    comm_s: 0.0,
                    categories: [("rt".to_string(), work)].into(),
                });
            }
        }
        let window = rule
            .window
            .then(|| self.val(&Expr::Var("handoff_spin_window_s".into()), &what))
            .transpose()?;
        let wake = match window {
            Some(_) => self.val(&Expr::Var("handoff_wake_s".into()), &what)?,
            None => 0.0,
        };
        let notify = if window.is_some() && rule.notify {
            self.val(&Expr::Var("handoff_notify_s".into()), &what)?
        } else {
            0.0
        };
        Ok(HandoffRule::shares(&base, window, wake, notify))
    }

    /// Returns the pipeline time and the stages' processors.
    pub(super) fn pipeline(
        &mut self,
        n: &Node,
        sh: Option<&Shape>,
        env: &Env,
        outer: &Env,
        mult: f64,
    ) -> Result<(f64, Vec<f64>), PredictError> {
        let NodeKind::Pipeline {
            stage_items,
            handoff,
            ..
        } = &n.kind
        else {
            unreachable!("pipeline() is called for pipeline nodes only")
        };
        let mut stages = Vec::new();
        for (s, stage) in n.children.iter().enumerate() {
            let senv = env.enter(stage, outer);
            let procs = self.val(&senv.p(), "stage processors")?;
            let items = self.val(
                &env.subst(&stage_items[s]),
                &format!("pipeline items at line {}", n.line),
            )?;
            let tau = self.seq(&stage.children, child(sh, s), &senv, procs, mult * items)?;
            let label = match &stage.kind {
                NodeKind::Serial { label } => label.clone(),
                _ => format!("stage {}", s + 1),
            };
            stages.push(StageShare {
                label,
                tau_s: tau,
                handoff_s: 0.0,
                items,
                procs,
            });
        }
        let handoffs = match handoff {
            Some(rule) => self.handoffs(*rule, n, &mut stages, mult)?,
            None => Vec::new(),
        };
        let taus: Vec<Expr> = stages.iter().map(|s| Expr::Num(s.tau_s)).collect();
        let counts: Vec<Expr> = stages.iter().map(|s| Expr::Num(s.items)).collect();
        let (exact, bound) = flow_shop_exprs(&taus, &counts);
        let empty = Bindings::new();
        let time = self.val(&exact, "pipeline")?;
        let bound_s = ev(&bound, &empty, "pipeline")?;
        let fill: f64 = stages.iter().map(|s| s.tau_s).sum();
        let bottleneck = stages
            .iter()
            .enumerate()
            .max_by(|a, b| (a.1.items * a.1.tau_s).total_cmp(&(b.1.items * b.1.tau_s)))
            .map(|(i, _)| i)
            .unwrap_or(0);
        let waiting: f64 = stages
            .iter()
            .map(|s| (time - s.items * s.tau_s) * s.procs)
            .sum::<f64>()
            * mult;
        let procs = stages.iter().map(|s| s.procs).collect();
        self.totals.waiting += waiting;
        if self.instances {
            self.acc.pipelines.push(PipelineShare {
                line: n.line,
                stages,
                fill_s: fill,
                bottleneck,
                time_s: time,
                bound_s,
                waiting,
                handoffs,
            });
        }
        Ok((time, procs))
    }
}
