//! Sequential loops: literal ranges, `iterations` annotations and channel receivers give the
//! trip count of a loop node.
use super::spawns::is_spawn;
use super::syntax::{literal_range, receiver_iter, start_line};
use super::{Hint, Recognizer};
use crate::predict::error::PredictError;
use crate::predict::tree::{Node, NodeKind, SyncOp};
use lca::expr::Expr;

impl Recognizer<'_> {
    pub(super) fn make_loop(
        &mut self,
        body: Vec<Node>,
        hint: &Hint,
        chan: Option<String>,
        line: usize,
        what: &str,
    ) -> Vec<Node> {
        self.loop_node(
            body,
            hint.count.clone().map(|c| (c, "annotation")),
            chan,
            line,
            what,
        )
    }

    pub(super) fn loop_node(
        &mut self,
        mut body: Vec<Node>,
        count: Option<(Expr, &str)>,
        chan: Option<String>,
        line: usize,
        what: &str,
    ) -> Vec<Node> {
        let relevant = body
            .iter()
            .any(|n| n.has_fragment() || n.has_sync() || is_spawn(n));
        if !relevant {
            return Vec::new();
        }
        let (count, from) = match (count, &chan) {
            (Some((c, f)), _) => (c, f.to_string()),
            (None, Some(c)) => (Expr::Num(1.0), format!("items received on {c}")),
            (None, None) => {
                self.warn(
                    line,
                    format!("`{what}` loop with fragments: trip count unknown (use a literal range or `// lcm: iterations = EXPR`); counted once"),
                );
                (Expr::Num(1.0), "unknown, counted once".into())
            }
        };
        if let Some(c) = &chan {
            body.insert(0, Node::new(NodeKind::Sync(SyncOp::Recv(c.clone())), line));
        }
        vec![Node::new(
            NodeKind::Loop {
                count,
                count_from: from,
                over_channel: chan,
            },
            line,
        )
        .with_children(body)]
    }

    pub(super) fn for_loop(
        &mut self,
        f: &syn::ExprForLoop,
        hint: &Hint,
    ) -> Result<Vec<Node>, PredictError> {
        let line = start_line(f);
        let chan = receiver_iter(&f.expr)
            .map(|r| self.chan_id(r))
            .filter(|id| id.contains('/'));
        let mut pre = if chan.is_none() {
            self.expr(&f.expr, &Hint::default())?
        } else {
            Vec::new()
        };
        let body = self.block(&f.body)?;
        let count = match &hint.count {
            Some(c) => Some((c.clone(), "annotation")),
            None => literal_range(&f.expr).map(|n| (Expr::Num(n as f64), "literal range")),
        };
        pre.extend(self.loop_node(body, count, chan, line, "for"));
        Ok(pre)
    }
}
