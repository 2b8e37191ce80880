//! Fragments: an annotation block and the code after it become a fragment node with its
//! model, processor and variable overrides; annotation hints (`iterations`) for what follows.
use super::inner::InnerScan;
use super::syntax::{end_line, start_line, FragmentScan};
use super::{Hint, Recognizer};
use crate::predict::error::PredictError;
use crate::predict::tree::{Fragment, InnerCosts, Node, NodeKind, SyncOp, CATEGORIES};
use lca::annotation::Annotation;
use lca::expr::Expr;
use syn::visit::Visit;

/// What a fragment's annotation block sets besides its models: the processors it runs
/// on and the variables it sets.
struct Overrides {
    p: Option<Expr>,
    vars: Vec<(String, Expr)>,
}

impl Recognizer<'_> {
    pub(super) fn hint_from(&self, annots: &[(usize, Annotation)]) -> Result<Hint, PredictError> {
        let mut h = Hint::default();
        for (l, a) in annots {
            match a {
                Annotation::Iterations(e) => h.count = Some(e.clone()),
                Annotation::Model { category, .. }
                    if CATEGORIES.contains(&category.as_str()) || category == "bytes" =>
                {
                    return Err(self.err(
                        *l,
                        format!(
                            "expected a fragment name for the model line `{a}`: `// lcm: fragment NAME` in this annotation block or a `pplib::frag(\"NAME\")` / `pplib::frag_scope(\"NAME\", ..)` call heading the statement below it, found neither"
                        ),
                    ))
                }
                _ => {}
            }
        }
        Ok(h)
    }

    /// Applies `p = EXPR` and variable overrides of a non-fragment statement to its nodes.
    pub(super) fn apply_overrides(
        &mut self,
        mut nodes: Vec<Node>,
        annots: &[(usize, Annotation)],
        line: usize,
    ) -> Result<Vec<Node>, PredictError> {
        let mut p = None;
        let mut vars = Vec::new();
        for (l, a) in annots {
            match a {
                Annotation::Processors(e) => p = Some(e.clone()),
                Annotation::Model { category, .. } if category == "overheads" => self.warn(
                    *l,
                    format!("`{a}` is not in a fragment's annotation block: ignored"),
                ),
                Annotation::Model { category, expr }
                    if !CATEGORIES.contains(&category.as_str()) =>
                {
                    vars.push((category.clone(), expr.clone()))
                }
                Annotation::Input(_)
                | Annotation::Output(_)
                | Annotation::Range(_)
                | Annotation::Like(_)
                | Annotation::Contention(_) => self.warn(
                    *l,
                    format!("`{a}` is not in a fragment's annotation block: ignored"),
                ),
                _ => {}
            }
        }
        if p.is_none() && vars.is_empty() {
            return Ok(nodes);
        }
        if nodes.is_empty() {
            self.warn(
                line,
                "override annotation on a statement with no fragment or parallel construct: ignored"
                    .into(),
            );
            return Ok(nodes);
        }
        if nodes.len() > 1 {
            nodes = vec![Node::new(
                NodeKind::Serial {
                    label: "annotated statement".into(),
                },
                line,
            )
            .with_children(nodes)];
        }
        nodes[0].p_override = p;
        nodes[0].var_overrides = vars;
        Ok(nodes)
    }

    /// The nodes of fragment `name` whose statements are `stmts` and whose annotation
    /// block is `annots` (see [`Self::fragment_nodes`]).
    pub(super) fn fragment(
        &mut self,
        name: &str,
        annots: &[(usize, Annotation)],
        stmts: &[&syn::Stmt],
    ) -> Result<Vec<Node>, PredictError> {
        let line = start_line(stmts[0]);
        let mut frag = Fragment {
            name: name.to_string(),
            categories: Vec::new(),
            model_origin: "source".into(),
            executions: None,
            inputs: Vec::new(),
            outputs: Vec::new(),
            bytes: None,
            end_line: end_line(stmts[stmts.len() - 1]),
            inner_parallelism: Vec::new(),
            referenced: Vec::new(),
            inside: Box::default(),
            ranges: Vec::new(),
        };
        let overrides = self.fragment_annotations(name, annots, &mut frag)?;
        Ok(self.fragment_nodes(frag, line, stmts, overrides))
    }

    /// Applies a fragment's annotation block to `frag` (its models, bytes, data,
    /// executions, ranges, inner overheads); returns its processor override and the
    /// variables it sets. A second `fragment` line or a category given twice is an error.
    fn fragment_annotations(
        &self,
        name: &str,
        annots: &[(usize, Annotation)],
        frag: &mut Fragment,
    ) -> Result<Overrides, PredictError> {
        let mut p = None;
        let mut vars = Vec::new();
        let mut seen_fragment = false;
        for (l, a) in annots {
            match a {
                Annotation::Fragment(n) => {
                    if seen_fragment {
                        return Err(self.err(
                            *l,
                            format!("expected one `// lcm: fragment` per annotation block, found a second one (`{n}`)"),
                        ));
                    }
                    seen_fragment = true;
                }
                Annotation::Model { category, expr } if category == "overheads" => {
                    frag.inside.overheads = Some(self.inner_costs(*l, expr)?);
                }
                // The item count of a parallel construct inside the fragment (read by
                // `InnerScan`), not a variable.
                Annotation::Model { category, .. } if category == "items" => {}
                Annotation::Model { category, expr } => {
                    if category == "bytes" {
                        frag.bytes = Some(expr.clone());
                    } else if CATEGORIES.contains(&category.as_str()) {
                        if frag.categories.iter().any(|(c, _)| c == category) {
                            return Err(self.err(
                                *l,
                                format!("fragment `{name}`: category `{category}` given twice"),
                            ));
                        }
                        frag.categories.push((category.clone(), expr.clone()));
                    } else {
                        vars.push((category.clone(), expr.clone()));
                    }
                }
                Annotation::Input(d) => frag.inputs.push(d.clone()),
                Annotation::Output(d) => frag.outputs.push(d.clone()),
                Annotation::Processors(e) => p = Some(e.clone()),
                Annotation::Iterations(e) => frag.executions = Some(e.clone()),
                Annotation::Range(r) => frag.ranges = r.clone(),
                // Resolved against the models file by `predict::derive`.
                Annotation::Like(_) | Annotation::Contention(_) => {}
            }
        }
        Ok(Overrides { p, vars })
    }

    /// The fragment's node between the channel receives and sends its statements contain,
    /// followed by its barriers; the statements are scanned for the parallelism the
    /// fragment covers and the constructs inside it.
    fn fragment_nodes(
        &mut self,
        mut frag: Fragment,
        line: usize,
        stmts: &[&syn::Stmt],
        overrides: Overrides,
    ) -> Vec<Node> {
        // Look inside only for channel operations and to name covered parallelism.
        let mut scan = FragmentScan::default();
        for s in stmts {
            scan.visit_stmt(s);
        }
        frag.inner_parallelism = scan.parallel;
        let mut inner = InnerScan::new(self.src, line);
        for s in stmts {
            inner.visit_stmt(s);
        }
        frag.inside.constructs = inner.found;
        frag.inside.notes = inner.notes;
        self.check_machine_overheads(&frag, line, stmts);
        let recvs: Vec<Node> = scan
            .recvs
            .iter()
            .map(|(e, l)| Node::new(NodeKind::Sync(SyncOp::Recv(self.chan_id_by_name(e))), *l))
            .collect();
        let sends: Vec<Node> = scan
            .sends
            .iter()
            .map(|(e, l)| Node::new(NodeKind::Sync(SyncOp::Send(self.chan_id_by_name(e))), *l))
            .collect();
        let mut node = Node::new(NodeKind::Fragment(frag), line);
        node.p_override = overrides.p;
        node.var_overrides = overrides.vars;
        let mut out = recvs;
        out.push(node);
        out.extend(sends);
        out.extend(
            scan.barriers
                .iter()
                .map(|(b, l)| Node::new(NodeKind::Sync(SyncOp::Barrier(b.clone())), *l)),
        );
        out
    }

    /// `// lcm: overheads = machine | measured` of the fragment block line `line`.
    fn inner_costs(&self, line: usize, e: &Expr) -> Result<InnerCosts, PredictError> {
        match e {
            Expr::Var(v) => InnerCosts::parse(v),
            _ => None,
        }
        .ok_or_else(|| {
            self.err(
                line,
                format!("`overheads = {e}`: expected `machine` (the parallel constructs inside the fragment pay the machine's costs) or `measured` (its model already holds them)"),
            )
        })
    }
}
