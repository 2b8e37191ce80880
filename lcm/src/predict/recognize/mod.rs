//! Structure recognition: walks the `syn` tree from the entry function and builds the
//! [`Node`] tree of fragments, serial, parallel, loop and synchronization nodes.
//!
//! Recognized (anything else between fragments is ignored; parallelism that is not
//! recognized or holds no fragment is a warning):
//! - `rayon::join(a, b)` / `pplib::join(a, b)` / `join(a, b)`: a parallel node of 2 tasks;
//! - `rayon::scope`, `std::thread::scope`, `pplib::scope`, `pplib::thread::scope`,
//!   `crossbeam::scope` with `s.spawn(..)` inside: one task per spawn; spawns in a `for` loop
//!   with a literal range or `// lcm: iterations = EXPR` make a parallel loop of copies;
//! - parallel iterator chains (`par_iter*`, `into_par_iter`, `par_chunks*`, `par_bridge`, …)
//!   whose closures hold fragments: a data-parallel node (item count from a literal range
//!   or `// lcm: iterations = EXPR`);
//! - sequential `for` / `while` / `loop` with a literal range or an `iterations` annotation,
//!   and loops over a channel receiver (`for x in rx`, `rx.iter()`, `while let Ok(x) = rx.recv()`);
//! - calls of functions and methods defined in the same file (followed; recursion stops with
//!   a warning);
//! - `send` / `recv` on channels made by `channel()`, `sync_channel(k)`, `unbounded()`,
//!   `bounded(k)` (std and crossbeam; clones follow their original), `Barrier::wait`,
//!   and `let guard = m.lock()` (the rest of the block holds the mutex);
//! - pplib's closure wrappers `pplib::wait(kind, || ..)`, `pplib::par_scope`,
//!   `pplib::task_scope`, `pplib::frag_scope`: the closure runs at once on the calling
//!   thread, so its body is read as inline code;
//! - pplib's calls as names and structure (module `pplib_structure`): `pplib::frag("NAME")`
//!   guards and `pplib::frag_scope("NAME", ..)` name fragments (no `// lcm: fragment`
//!   needed; both written and different is an error), `pp_for_each*` / `.recorded()` end a
//!   data-parallel loop, `pplib::par()` / `par_scope` with `task()` / `task_scope` inside are
//!   a fork point of those tasks, and pool sizes (`pplib::pool(K)`,
//!   `ThreadPoolBuilder::num_threads(K)`, `pplib::run(K, ..)`) are the p of the pool's work.
//!
//! Producer/consumer chains (task loops linked by channels) become [`NodeKind::Pipeline`].
//! The parallel constructs inside a fragment's code are not composed (the fragment is a
//! leaf) but read for their machine costs (module `inner`); a data-parallel loop nested in
//! another one's item is marked to run at the processors the outer items leave
//! ([`super::tree::nest_data_parallel`]).

use super::error::{PredictError, Warning};
use super::source::SourceFile;
use super::tree::{Node, NodeKind};
use lca::annotation::Annotation;
use lca::expr::Expr;
use std::collections::{BTreeSet, HashMap};
use syn::visit::Visit;

mod callees;
mod channels;
mod constructs;
mod fragments;
mod inner;
mod items;
mod loops;
mod pplib_calls;
mod pplib_structure;
mod spawns;
mod syntax;

pub use pplib_structure::{fragment_sites, FragmentSite};
use spawns::{is_spawn, is_spawn_loop};
use syntax::{
    collect_fns, collect_type_names, lock_receiver, start_line, while_let_recv, FragmentScan,
};

pub(crate) const PAR_METHODS: [&str; 17] = [
    "par_iter",
    "par_iter_mut",
    "into_par_iter",
    "par_chunks",
    "par_chunks_mut",
    "par_chunks_exact",
    "par_chunks_exact_mut",
    "par_bridge",
    "par_windows",
    "par_drain",
    "par_extend",
    "par_sort",
    // pplib's recorded consumers: data-parallel whatever iterator they end.
    "pp_for_each",
    "pp_for_each_item",
    "pp_for_each_run",
    "pp_for_each_init",
    "recorded",
];
pub(crate) const SCOPE_FNS: [&str; 2] = ["scope", "in_place_scope"];
const CHANNEL_FNS: [&str; 4] = ["channel", "sync_channel", "unbounded", "bounded"];
pub(crate) const SPAWN_LABEL: &str = "spawned task";

/// Walks a source file and builds its structure tree.
pub struct Recognizer<'a> {
    src: &'a SourceFile,
    fns: HashMap<String, &'a syn::Block>,
    stack: Vec<String>,
    chan_alias: HashMap<String, String>,
    /// Warnings collected on the way.
    pub warnings: Vec<Warning>,
    used_lines: BTreeSet<usize>,
    local_names: BTreeSet<String>,
    /// Expressions and statement runs being recognized, innermost last (their count).
    depth: usize,
    /// Expressions recognized so far, followed calls included.
    visits: usize,
    /// Pools built in the code walked so far: variable → size in the program's variables
    /// (or why it is not), with the line that built it.
    pools: HashMap<String, (Result<Expr, String>, usize)>,
    /// How many constructs that change p (tasks, items, overridden statements) enclose the
    /// code being recognized: a pool's size applies as it is only at 0.
    splits: usize,
    /// How many scope bodies (`rayon::scope`, `thread::scope`, pplib's `par` regions)
    /// enclose the code being recognized: their own code is a task of its own, their
    /// spawns are tasks of the scope's caller.
    scope_bodies: usize,
    /// The line of a `pool.install(..)` whose size a task node took over (see
    /// [`Recognizer::task_arg`]).
    claimed_install: Option<usize>,
}

/// The most expressions the recognizer looks at, counting each followed call's body
/// again: a chain of functions that each call the next twice doubles the work per
/// function, and the bound turns that into an error instead of hours and gigabytes.
pub const MAX_VISITS: usize = 100_000;

/// The deepest nesting of expressions, calls followed and held locks the recognizer
/// walks (its recursion, and the depth of the tree it builds).
pub const MAX_RECOGNIZE_DEPTH: usize = 2_000;

/// Whether annotation `a` changes the variables of what its statement creates (`p = ..`,
/// `NAME = ..` for a name that is not a category).
fn overrides_p(a: &Annotation) -> bool {
    match a {
        Annotation::Processors(_) => true,
        Annotation::Model { category, .. } => {
            !super::tree::CATEGORIES.contains(&category.as_str()) && category != "bytes"
        }
        _ => false,
    }
}

/// Hints from the annotation block of the statement being recognized.
#[derive(Default, Clone)]
struct Hint {
    count: Option<Expr>,
}

impl<'a> Recognizer<'a> {
    /// A recognizer over `src`.
    pub fn new(src: &'a SourceFile) -> Recognizer<'a> {
        let mut fns = HashMap::new();
        collect_fns(&src.syntax.items, &mut fns);
        let mut local_names = BTreeSet::new();
        collect_type_names(&src.syntax.items, &mut local_names);
        Recognizer {
            src,
            fns,
            stack: Vec::new(),
            chan_alias: HashMap::new(),
            warnings: Vec::new(),
            used_lines: BTreeSet::new(),
            local_names,
            depth: 0,
            visits: 0,
            pools: HashMap::new(),
            splits: 0,
            scope_bodies: 0,
            claimed_install: None,
        }
    }

    fn warn(&mut self, line: usize, message: String) {
        let w = Warning {
            file: self.src.name.clone(),
            line,
            message,
        };
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    fn err(&self, line: usize, message: String) -> PredictError {
        PredictError::Annotation {
            file: self.src.name.clone(),
            line,
            column: 1,
            message,
        }
    }

    /// The structure tree of the program entered at function `entry`.
    pub fn program(&mut self, entry: &str) -> Result<Node, PredictError> {
        let Some(body) = self.fns.get(entry).copied() else {
            return Err(PredictError::Structure {
                file: self.src.name.clone(),
                line: 1,
                message: format!(
                    "expected a function `{entry}` to start from (choose one with --entry NAME)"
                ),
            });
        };
        self.stack.push(entry.to_string());
        let children = self.block(body)?;
        let children = self.function_level_spawns(children, start_line(body));
        self.stack.pop();
        let mut root = Node::new(
            NodeKind::Serial {
                label: format!("fn {entry}"),
            },
            start_line(body),
        )
        .with_children(children);
        super::tree::nest_data_parallel(&mut root);
        // Fragment annotations never reached.
        let unreached: Vec<(usize, String)> = self
            .src
            .annotations
            .iter()
            .filter(|(l, a)| !self.used_lines.contains(l) && matches!(a, Annotation::Fragment(_)))
            .map(|(l, a)| (*l, a.to_string()))
            .collect();
        for (l, a) in unreached {
            self.warn(
                l,
                format!("`{a}` is not reached from fn {entry} (or not directly above a statement): ignored"),
            );
        }
        Ok(root)
    }

    fn block(&mut self, block: &syn::Block) -> Result<Vec<Node>, PredictError> {
        let stmts: Vec<&syn::Stmt> = block.stmts.iter().collect();
        self.stmts(&stmts)
    }

    fn stmts(&mut self, stmts: &[&syn::Stmt]) -> Result<Vec<Node>, PredictError> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < stmts.len() {
            let s = stmts[i];
            let line = start_line(s);
            let annots = self.src.block_above(line);
            for (l, _) in &annots {
                self.used_lines.insert(*l);
            }
            let call = pplib_calls::frag_call(s, &|n| self.fns.contains_key(n));
            if let Some(name) = self.fragment_name(&annots, call.as_ref(), line)? {
                let j = self.fragment_end(stmts, i, call.as_ref());
                out.extend(self.fragment(&name, &annots, &stmts[i..j])?);
                i = j;
                continue;
            }
            if let Some((nodes, next)) = self.pplib_guard(stmts, i)? {
                out.extend(self.apply_overrides(nodes, &annots, line)?);
                i = next;
                continue;
            }
            let hint = self.hint_from(&annots)?;
            // `let guard = m.lock()`: the rest of the block holds the mutex.
            if let syn::Stmt::Local(local) = s {
                if let Some(init) = &local.init {
                    self.note_channel(&local.pat, &init.expr);
                    self.note_pool(&local.pat, &init.expr, line);
                    if let Some(mutex) = lock_receiver(&init.expr) {
                        self.enter(line, 0)?;
                        let rest = self.stmts(&stmts[i + 1..]);
                        self.depth -= 1;
                        let rest = rest?;
                        if rest.iter().any(Node::has_fragment) {
                            let node =
                                Node::new(NodeKind::Locked { mutex }, line).with_children(rest);
                            out.push(self.apply_overrides(vec![node], &annots, line)?.remove(0));
                        } else {
                            out.extend(rest);
                        }
                        return Ok(out);
                    }
                }
            }
            let splits = annots.iter().any(|(_, a)| overrides_p(a));
            self.splits += usize::from(splits);
            let nodes = match s {
                syn::Stmt::Local(local) => match &local.init {
                    Some(init) => {
                        let mut v = self.expr(&init.expr, &hint)?;
                        if let Some((_, e)) = &init.diverge {
                            v.extend(self.expr(e, &Hint::default())?);
                        }
                        v
                    }
                    None => Vec::new(),
                },
                syn::Stmt::Expr(e, _) => self.expr(e, &hint)?,
                syn::Stmt::Item(_) | syn::Stmt::Macro(_) => Vec::new(),
            };
            self.splits -= usize::from(splits);
            out.extend(self.apply_overrides(nodes, &annots, line)?);
            i += 1;
        }
        Ok(out)
    }

    fn exprs<'e>(
        &mut self,
        es: impl IntoIterator<Item = &'e syn::Expr>,
    ) -> Result<Vec<Node>, PredictError> {
        let mut out = Vec::new();
        for e in es {
            out.extend(self.expr(e, &Hint::default())?);
        }
        Ok(out)
    }

    /// Enters one level at `line` (an expression, or the statements a lock guards),
    /// counting `visits` more expressions; an error past [`MAX_RECOGNIZE_DEPTH`] or
    /// [`MAX_VISITS`].
    fn enter(&mut self, line: usize, visits: usize) -> Result<(), PredictError> {
        self.visits += visits;
        if self.visits > MAX_VISITS {
            let calls = self.stack.join(" -> ");
            return Err(PredictError::Structure {
                file: self.src.name.clone(),
                line,
                message: format!(
                    "the program's structure exceeds {MAX_VISITS} expressions with every \
                     call followed (in {calls}): functions that call others several times, \
                     in a chain, multiply it"
                ),
            });
        }
        if self.depth >= MAX_RECOGNIZE_DEPTH {
            return Err(PredictError::Structure {
                file: self.src.name.clone(),
                line,
                message: format!(
                    "expressions, calls and held locks nest deeper than {MAX_RECOGNIZE_DEPTH} levels"
                ),
            });
        }
        self.depth += 1;
        Ok(())
    }

    fn expr(&mut self, e: &syn::Expr, hint: &Hint) -> Result<Vec<Node>, PredictError> {
        self.enter(start_line(e), 1)?;
        let r = self.expr_node(e, hint);
        self.depth -= 1;
        r
    }

    fn expr_node(&mut self, e: &syn::Expr, hint: &Hint) -> Result<Vec<Node>, PredictError> {
        let line = start_line(e);
        Ok(match e {
            syn::Expr::Call(c) => return self.call(c, hint),
            syn::Expr::MethodCall(m) => return self.method_call(m, hint),
            syn::Expr::Block(b) => self.block(&b.block)?,
            syn::Expr::Unsafe(b) => self.block(&b.block)?,
            syn::Expr::ForLoop(f) => return self.for_loop(f, hint),
            syn::Expr::While(w) => {
                let chan = while_let_recv(&w.cond).map(|r| self.chan_id(r));
                let mut pre = if chan.is_none() {
                    self.expr(&w.cond, &Hint::default())?
                } else {
                    Vec::new()
                };
                let body = self.block(&w.body)?;
                pre.extend(self.make_loop(body, hint, chan, line, "while"));
                pre
            }
            syn::Expr::Loop(l) => {
                let body = self.block(&l.body)?;
                self.make_loop(body, hint, None, line, "loop")
            }
            syn::Expr::If(i) => self.if_expr(i, line)?,
            syn::Expr::Match(m) => self.match_expr(m, line)?,
            syn::Expr::Let(l) => self.expr(&l.expr, hint)?,
            syn::Expr::Assign(a) => self.exprs([&*a.right, &*a.left])?,
            syn::Expr::Binary(b) => self.exprs([&*b.left, &*b.right])?,
            syn::Expr::Unary(u) => self.expr(&u.expr, hint)?,
            syn::Expr::Paren(p) => self.expr(&p.expr, hint)?,
            syn::Expr::Group(g) => self.expr(&g.expr, hint)?,
            syn::Expr::Reference(r) => self.expr(&r.expr, hint)?,
            syn::Expr::Try(t) => self.expr(&t.expr, hint)?,
            syn::Expr::Await(a) => self.expr(&a.base, hint)?,
            syn::Expr::Field(f) => self.expr(&f.base, hint)?,
            syn::Expr::Index(i) => self.exprs([&*i.expr, &*i.index])?,
            syn::Expr::Return(r) => match &r.expr {
                Some(x) => self.expr(x, hint)?,
                None => Vec::new(),
            },
            syn::Expr::Break(b) => match &b.expr {
                Some(x) => self.expr(x, hint)?,
                None => Vec::new(),
            },
            syn::Expr::Tuple(t) => self.exprs(t.elems.iter())?,
            syn::Expr::Array(a) => self.exprs(a.elems.iter())?,
            syn::Expr::Struct(s) => self.exprs(s.fields.iter().map(|f| &f.expr))?,
            syn::Expr::Cast(c) => self.expr(&c.expr, hint)?,
            syn::Expr::Closure(c) => {
                let mut probe = FragmentScan::default();
                probe.visit_expr(&c.body);
                if probe.fragment_lines(self.src) {
                    self.warn(
                        line,
                        "closure with fragments that is not an argument of a recognized construct: not composed".into(),
                    );
                }
                Vec::new()
            }
            _ => Vec::new(),
        })
    }

    /// `if`: the condition, then the `then` branch; fragments in the `else` branch are
    /// not composed (a warning says so).
    fn if_expr(&mut self, i: &syn::ExprIf, line: usize) -> Result<Vec<Node>, PredictError> {
        let mut v = self.expr(&i.cond, &Hint::default())?;
        let then = self.block(&i.then_branch)?;
        let els = match &i.else_branch {
            Some((_, e)) => self.expr(e, &Hint::default())?,
            None => Vec::new(),
        };
        if els.iter().any(Node::has_fragment) {
            self.warn(
                line,
                "fragments in both branches of `if`: only the `then` branch is composed (annotate one branch as the fragment instead)".into(),
            );
        }
        v.extend(then);
        Ok(v)
    }

    /// `match`: the scrutinee, then the first arm with fragments (a warning when several
    /// arms have them).
    fn match_expr(&mut self, m: &syn::ExprMatch, line: usize) -> Result<Vec<Node>, PredictError> {
        let mut v = self.expr(&m.expr, &Hint::default())?;
        let mut arms = Vec::new();
        for a in &m.arms {
            arms.push(self.expr(&a.body, &Hint::default())?);
        }
        let with: Vec<Vec<Node>> = arms
            .into_iter()
            .filter(|a| a.iter().any(Node::has_fragment))
            .collect();
        if with.len() > 1 {
            self.warn(
                line,
                "fragments in several `match` arms: only the first such arm is composed".into(),
            );
        }
        if let Some(first) = with.into_iter().next() {
            v.extend(first);
        }
        Ok(v)
    }

    fn follow(&mut self, name: &str, line: usize) -> Result<Vec<Node>, PredictError> {
        let Some(body) = self.fns.get(name).copied() else {
            return Ok(Vec::new());
        };
        if self.stack.iter().any(|s| s == name) {
            self.warn(
                line,
                format!("recursive call of `{name}`: not followed again"),
            );
            return Ok(Vec::new());
        }
        self.stack.push(name.to_string());
        let children = self.block(body)?;
        let children = self.function_level_spawns(children, line);
        self.stack.pop();
        if children.is_empty() {
            return Ok(Vec::new());
        }
        Ok(vec![Node::new(
            NodeKind::Serial {
                label: format!("call {name}"),
            },
            line,
        )
        .with_children(children)])
    }

    /// Spawns left at function level (`std::thread::spawn`, `rayon::spawn` outside a
    /// scope): the spawned tasks and the function's own remaining code run in parallel,
    /// joined at the end of the function (an approximation, warned about).
    fn function_level_spawns(&mut self, nodes: Vec<Node>, line: usize) -> Vec<Node> {
        if !nodes.iter().any(|n| is_spawn(n) || is_spawn_loop(n)) {
            return nodes;
        }
        self.warn(
            line,
            "threads spawned outside a scope: assumed joined at the end of the function".into(),
        );
        self.scope("thread::spawn".into(), nodes, line)
    }
}
