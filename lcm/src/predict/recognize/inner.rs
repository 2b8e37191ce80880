//! The parallel constructs written inside a fragment's code, as the machine costs price
//! them ([`crate::predict::overheads`]): a fragment is a leaf of the structure, so what runs
//! in parallel inside it is read here, not composed.
//!
//! Priced: parallel iterator chains (`par_iter`, `into_par_iter`, `par_chunks`, pplib's
//! recorded consumers, …; the item count as for any data-parallel loop: `// lcm: items =
//! EXPR` above its statement or in the fragment's block, `(a..b)`, a collection of known
//! length, `par_chunks(c)`), `join(a, b)` (2 tasks) and `scope(|s| ..)` (one task per
//! `spawn`, spawns in a `for` loop over a range counted per trip). Each runs once per trip
//! of the sequential loops around it inside the fragment: `for` over a range (`0..n` gives
//! n), or a loop with `// lcm: iterations = EXPR` above it. A construct nested in another
//! one's closure is not priced on its own (its count of executions is the outer one's
//! items); it is reported so that a warning can say so, as is a loop whose trip count is
//! unknown (its constructs are priced once).

use super::items::{par_items, range_len};
use super::syntax::{literal_range, path_last, start_line};
use super::{PAR_METHODS, SCOPE_FNS};
use crate::predict::source::SourceFile;
use crate::predict::tree::{mul, InnerConstruct};
use lca::annotation::Annotation;
use lca::expr::Expr;
use syn::visit::Visit;

/// Walks a fragment's statements and collects its parallel constructs.
pub(super) struct InnerScan<'s> {
    src: &'s SourceFile,
    /// The fragment's first line: its annotation block is the fragment's own.
    frag_line: usize,
    /// Trip counts of the sequential loops around the code being visited.
    loops: Vec<Expr>,
    /// How many parallel constructs enclose the code being visited.
    depth: usize,
    /// The constructs priced, in source order.
    pub(super) found: Vec<InnerConstruct>,
    /// What was not priced, or priced with an assumption: (line, why).
    pub(super) notes: Vec<(usize, String)>,
}

impl<'s> InnerScan<'s> {
    /// A scan of the fragment that starts at `frag_line` of `src`.
    pub(super) fn new(src: &'s SourceFile, frag_line: usize) -> InnerScan<'s> {
        InnerScan {
            src,
            frag_line,
            loops: Vec::new(),
            depth: 0,
            found: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn times(&self) -> Expr {
        self.loops.iter().cloned().fold(Expr::Num(1.0), mul)
    }

    /// A `// lcm: NAME = EXPR` (or `iterations = EXPR`) line above `line`, `NAME` one of
    /// `keys`.
    fn annotated(&self, line: usize, keys: &[&str]) -> Option<Expr> {
        self.src
            .block_above(line)
            .into_iter()
            .find_map(|(_, a)| match a {
                Annotation::Model { category, expr } if keys.contains(&category.as_str()) => {
                    Some(expr)
                }
                Annotation::Iterations(e) if keys.contains(&"iterations") => Some(e),
                _ => None,
            })
    }

    fn add(&mut self, what: String, line: usize, threads: Expr, data_parallel: bool) {
        if self.depth > 0 {
            self.notes.push((
                line,
                format!("{what} is nested in another parallel construct of the fragment: its machine costs are not added (the outer construct's are)"),
            ));
            return;
        }
        self.found.push(InnerConstruct {
            what,
            line,
            threads,
            data_parallel,
            times: self.times(),
        });
    }

    /// Visits `e` one parallel construct deeper.
    fn nested(&mut self, e: &syn::Expr) {
        self.depth += 1;
        self.visit_expr(e);
        self.depth -= 1;
    }

    /// Visits `body` inside a sequential loop of `count` trips (`None`: unknown).
    fn in_loop(&mut self, count: Option<Expr>, line: usize, body: &syn::Block) {
        let known = count.is_some();
        self.loops.push(count.unwrap_or(Expr::Num(1.0)));
        let before = self.found.len();
        self.visit_block(body);
        self.loops.pop();
        if !known && self.found.len() > before {
            self.notes.push((
                line,
                "loop with an unknown trip count inside the fragment: the parallel constructs in it are priced once (write `// lcm: iterations = EXPR` above it)".into(),
            ));
        }
    }

    /// The trip count of a loop at `line` from its annotation (not the fragment's own
    /// block, whose `iterations` counts the fragment's executions).
    fn loop_annotation(&self, line: usize) -> Option<Expr> {
        (line != self.frag_line)
            .then(|| self.annotated(line, &["iterations"]))
            .flatten()
    }
}

/// How many `spawn`s a scope's body makes: each counts once per trip of the `for` loops over
/// ranges around it (other loops count once).
#[derive(Default)]
struct Spawns {
    loops: Vec<Expr>,
    total: Vec<Expr>,
}

impl<'ast> Visit<'ast> for Spawns {
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.loops
            .push(loop_range(&f.expr).unwrap_or(Expr::Num(1.0)));
        self.visit_block(&f.body);
        self.loops.pop();
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if m.method == "spawn" && m.args.len() == 1 {
            let k = self.loops.iter().cloned().fold(Expr::Num(1.0), mul);
            self.total.push(k);
        }
        syn::visit::visit_expr_method_call(self, m);
    }
}

/// The trip count of a `for` loop over `e`: a literal range, or a range of names.
fn loop_range(e: &syn::Expr) -> Option<Expr> {
    literal_range(e)
        .map(|n| Expr::Num(n as f64))
        .or_else(|| range_len(e))
}

impl<'ast> Visit<'ast> for InnerScan<'_> {
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        let line = start_line(f);
        self.visit_expr(&f.expr);
        let count = self.loop_annotation(line).or_else(|| loop_range(&f.expr));
        self.in_loop(count, line, &f.body);
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        let line = start_line(w);
        self.visit_expr(&w.cond);
        let count = self.loop_annotation(line);
        self.in_loop(count, line, &w.body);
    }
    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        let line = start_line(l);
        let count = self.loop_annotation(line);
        self.in_loop(count, line, &l.body);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        // The outermost call of a chain is visited first: find its parallel method.
        let mut chain: Vec<&syn::ExprMethodCall> = vec![m];
        let mut root: &syn::Expr = &m.receiver;
        while let syn::Expr::MethodCall(inner) = root {
            chain.push(inner);
            root = &inner.receiver;
        }
        let Some(par) = chain
            .iter()
            .rev()
            .find(|c| PAR_METHODS.contains(&c.method.to_string().as_str()))
        else {
            syn::visit::visit_expr_method_call(self, m);
            return;
        };
        let line = start_line(*par);
        let what = format!("data-parallel `{}` (line {line})", par.method);
        let threads = self
            .annotated(line, &["items"])
            .or_else(|| literal_range(root).map(|n| Expr::Num(n as f64)))
            .or_else(|| par_items(root, par, &self.src.syntax));
        let threads = threads.unwrap_or_else(|| {
            self.notes.push((
                line,
                format!("{what} inside the fragment: item count unknown (use `// lcm: items = EXPR`); assumed p"),
            ));
            Expr::Var("p".into())
        });
        self.visit_expr(root);
        self.add(what, line, threads, true);
        for c in chain.iter().rev() {
            for a in &c.args {
                self.nested(a);
            }
        }
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        let Some((full, last)) = path_last(&c.func) else {
            syn::visit::visit_expr_call(self, c);
            return;
        };
        let line = start_line(c);
        let tasks = if last == "join" && c.args.len() == 2 {
            Some(Expr::Num(2.0))
        } else if SCOPE_FNS.contains(&last.as_str()) && c.args.len() == 1 {
            let mut s = Spawns::default();
            s.visit_expr(&c.args[0]);
            Some(
                s.total
                    .into_iter()
                    .fold(Expr::Num(0.0), |acc, k| match acc {
                        Expr::Num(0.0) => k,
                        acc => crate::predict::tree::add(acc, k),
                    }),
            )
        } else {
            None
        };
        match tasks {
            Some(t) => {
                self.add(format!("`{full}` (line {line})"), line, t, false);
                for a in &c.args {
                    self.nested(a);
                }
            }
            None => syn::visit::visit_expr_call(self, c),
        }
    }
}
