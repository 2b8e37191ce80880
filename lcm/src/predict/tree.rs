//! The recognized parallel structure of a program (Crovella's parallel-structure DAG,
//! Figure 6.3, unrolled to a tree): serial, parallel, loop, pipeline and fragment nodes, each
//! with the source line it came from and the composition rule `lcm` applies to it.

use super::env::Env;
use lca::expr::Expr;

mod render;
pub use render::{render, rule_of};

/// The category keys a fragment's models may have (every key of
/// [`category::Category::ALL`], parts such as `fj` too); which of them sum into its time is
/// [`category::time::time_terms`]'s rule (see [`super::env::work_expr`]). Any other
/// `NAME = EXPR` in a fragment's block sets a variable.
pub const CATEGORIES: [&str; 13] = category::keys(category::Category::ALL);

/// A fragment leaf: code covered by a fitted lost-cycles model.
#[derive(Debug, Clone, PartialEq)]
pub struct Fragment {
    /// Fragment name (`// lcm: fragment NAME`).
    pub name: String,
    /// `(category, model)` pairs; models are processor-seconds per execution (or per
    /// `per_runs` executions, see [`Fragment::executions`]).
    pub categories: Vec<(String, Expr)>,
    /// Where the models came from (`source` or the models file's path).
    pub model_origin: String,
    /// `// lcm: iterations = K` inside the fragment's annotation block: the models are totals
    /// over K executions (what `pp` measures over a run), so one execution costs model / K.
    pub executions: Option<Expr>,
    /// `// lcm: input NAME` lines.
    pub inputs: Vec<String>,
    /// `// lcm: range VAR = MIN..MAX, …`: the measured range of the models' variables
    /// (empty when unknown); predictions beyond 2x it are warned about.
    pub ranges: Vec<lca::range::VarRange>,
    /// `// lcm: output NAME` lines.
    pub outputs: Vec<String>,
    /// `// lcm: bytes = EXPR`: size in bytes of each data item this fragment reads.
    pub bytes: Option<Expr>,
    /// Last source line of the fragment's code.
    pub end_line: usize,
    /// Parallel constructs found inside the fragment, e.g. `par_iter (line 12)`.
    pub inner_parallelism: Vec<String>,
    /// The measured models a derived fragment's rules refer to (`merge.pc`, `sort.ml_p2`)
    /// with the models that replaced them (empty for a fragment that is not derived):
    /// checked at each point for negative values ([`super::negative`]).
    pub referenced: Vec<(String, Expr)>,
    /// The parallel constructs inside the fragment's code as the machine costs see them
    /// (boxed: most fragments have none).
    pub inside: Box<Inside>,
}

impl Fragment {
    /// A fragment named `name` with no models, its models' origin `source`.
    pub fn named(name: &str) -> Fragment {
        Fragment {
            name: name.to_string(),
            categories: Vec::new(),
            model_origin: "source".into(),
            executions: None,
            inputs: Vec::new(),
            ranges: Vec::new(),
            outputs: Vec::new(),
            bytes: None,
            end_line: 0,
            inner_parallelism: Vec::new(),
            referenced: Vec::new(),
            inside: Box::default(),
        }
    }
}

/// What the machine costs need of the parallel constructs inside a fragment's code.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Inside {
    /// The constructs as the machine costs price them (those written in the fragment's
    /// own code, not nested in another one of them).
    pub constructs: Vec<InnerConstruct>,
    /// `// lcm: overheads = machine | measured`: whether they pay machine costs; `None`
    /// for the default ([`InnerCosts::default_for`]).
    pub overheads: Option<InnerCosts>,
    /// How the machine costs treated them, in words (set when a machine file's costs were
    /// applied; shown by `lcm tree`).
    pub rule: Option<String>,
    /// What their pricing assumed or left out, `(line, what)`: an unknown item count, an
    /// unknown loop trip count, a nested construct (warned about when they pay machine
    /// costs, [`super::overheads::inner_warnings`]).
    pub notes: Vec<(usize, String)>,
}

/// Whether the parallel constructs inside a fragment's code pay the machine's costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InnerCosts {
    /// They pay them: the fragment's model was not measured with them (a restructured
    /// inside), so their fork/joins, items and tasks are added to it.
    Machine,
    /// Their costs are in the fragment's model: it was measured with them inside.
    Measured,
}

impl InnerCosts {
    /// `machine` or `measured`.
    pub fn as_str(self) -> &'static str {
        match self {
            InnerCosts::Machine => "machine",
            InnerCosts::Measured => "measured",
        }
    }

    /// Reads `machine` or `measured`.
    pub fn parse(s: &str) -> Option<InnerCosts> {
        match s {
            "machine" => Some(InnerCosts::Machine),
            "measured" => Some(InnerCosts::Measured),
            _ => None,
        }
    }

    /// The rule without an `overheads =` line: a fragment whose models all come from the
    /// source (`model_origin` `source`) was not measured with what its code holds now, so
    /// the inner constructs pay; a fragment whose models come from a models file (the same
    /// name, `like`, references) was measured with them.
    pub fn default_for(model_origin: &str) -> InnerCosts {
        if model_origin == "source" {
            InnerCosts::Machine
        } else {
            InnerCosts::Measured
        }
    }
}

/// A parallel construct written inside a fragment's code.
#[derive(Debug, Clone, PartialEq)]
pub struct InnerConstruct {
    /// The construct in words: `data-parallel `into_par_iter` (line 12)`.
    pub what: String,
    /// Its source line.
    pub line: usize,
    /// Threads it forks: a data-parallel loop's items, a join's or scope's tasks.
    pub threads: Expr,
    /// A data-parallel loop (each item pays `par_item_s`), else tasks (each `task_s`).
    pub data_parallel: bool,
    /// How many times it runs per execution of the fragment (the trip counts of the loops
    /// around it inside the fragment).
    pub times: Expr,
}

/// A synchronization operation between tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncOp {
    /// `tx.send(..)` on the channel with this id.
    Send(String),
    /// `rx.recv()` on the channel with this id.
    Recv(String),
    /// `barrier.wait()`.
    Barrier(String),
}

/// Kind of a structure node.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// Children run one after the other (a function body, a followed call, a task body).
    Serial {
        /// What it is: `fn main`, `call helper`, `task 1`, …
        label: String,
    },
    /// Children are parallel tasks.
    Parallel {
        /// The construct: `rayon::join`, `std::thread::scope`, …
        construct: String,
    },
    /// `count` copies of each child run in parallel (spawns in a loop).
    ParallelLoop {
        /// The construct that spawned them.
        construct: String,
        /// Number of copies.
        count: Expr,
    },
    /// A parallel iterator whose per-item closure holds fragments: `count` items, each a task
    /// on one processor, scheduled onto the parent's processors.
    DataParallel {
        /// The chain, e.g. `into_par_iter().for_each`.
        construct: String,
        /// Number of items.
        count: Expr,
    },
    /// A sequential loop: the children run `count` times.
    Loop {
        /// Trip count.
        count: Expr,
        /// How the trip count was found (`literal range`, `annotation`, `channel`).
        count_from: String,
        /// When the loop iterates over a channel receiver: that channel.
        over_channel: Option<String>,
    },
    /// A producer/consumer chain over iterations: children are the stages (each a serial
    /// node holding one task's loop body), `items` data sets flow through them.
    Pipeline {
        /// Number of data sets (iterations of the first stage).
        items: Expr,
        /// Items each stage processes (a consumer may stop early).
        stage_items: Vec<Expr>,
        /// The channels linking stage k to k+1.
        channels: Vec<String>,
        /// How its hand-offs are priced (None: not at all, as without machine costs).
        handoff: Option<super::handoff::HandoffRule>,
    },
    /// The rest of a block after `let guard = m.lock()`: runs holding mutex `mutex`.
    Locked {
        /// The mutex (receiver text).
        mutex: String,
    },
    /// A fragment leaf.
    Fragment(Fragment),
    /// A synchronization point.
    Sync(SyncOp),
}

/// One node of the structure tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What the node is.
    pub kind: NodeKind,
    /// 1-based source line where it starts.
    pub line: usize,
    /// Children in program order.
    pub children: Vec<Node>,
    /// `// lcm: p = EXPR` override, in the parent's variables.
    pub p_override: Option<Expr>,
    /// Other variable overrides (`// lcm: n = n/2`), in the parent's variables.
    pub var_overrides: Vec<(String, Expr)>,
}

impl Node {
    /// A node with no children and no overrides.
    pub fn new(kind: NodeKind, line: usize) -> Node {
        Node {
            kind,
            line,
            children: Vec::new(),
            p_override: None,
            var_overrides: Vec::new(),
        }
    }

    /// The same node with these children.
    pub fn with_children(mut self, children: Vec<Node>) -> Node {
        self.children = children;
        self
    }

    /// Whether the node's processors are those of a nested data-parallel loop
    /// ([`nest_data_parallel`]).
    pub fn is_nested_marked(&self) -> bool {
        matches!(&self.p_override, Some(Expr::Var(v)) if v == NESTED_P)
    }

    /// The function a followed call runs, when the node is one (a serial node labelled
    /// `call NAME`, at the line of the call).
    pub fn called_function(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Serial { label } => label.strip_prefix("call "),
            _ => None,
        }
    }

    /// Whether this subtree holds at least one fragment.
    pub fn has_fragment(&self) -> bool {
        matches!(self.kind, NodeKind::Fragment(_)) || self.children.iter().any(Node::has_fragment)
    }

    /// Whether this subtree holds a synchronization operation.
    pub fn has_sync(&self) -> bool {
        matches!(self.kind, NodeKind::Sync(_)) || self.children.iter().any(Node::has_sync)
    }

    /// All fragments of the subtree in program order.
    pub fn fragments(&self) -> Vec<&Fragment> {
        let mut out = Vec::new();
        self.collect_fragments(&mut out);
        out
    }

    fn collect_fragments<'a>(&'a self, out: &mut Vec<&'a Fragment>) {
        if let NodeKind::Fragment(f) = &self.kind {
            out.push(f);
        }
        for c in &self.children {
            c.collect_fragments(out);
        }
    }

    /// Number of parallel tasks a parallel node creates (as an expression).
    pub fn task_count(&self) -> Expr {
        match &self.kind {
            NodeKind::Parallel { .. } => {
                let mut fixed = 0.0;
                let mut terms: Vec<Expr> = Vec::new();
                for c in &self.children {
                    match &c.kind {
                        NodeKind::ParallelLoop { count, .. } => {
                            terms.push(mul(count.clone(), Expr::Num(c.children.len() as f64)))
                        }
                        NodeKind::Pipeline { .. } => fixed += c.children.len() as f64,
                        _ => fixed += 1.0,
                    }
                }
                let mut e = Expr::Num(fixed);
                for t in terms {
                    e = if matches!(e, Expr::Num(v) if v == 0.0) {
                        t
                    } else {
                        add(e, t)
                    };
                }
                e
            }
            NodeKind::ParallelLoop { count, .. } => {
                mul(count.clone(), Expr::Num(self.children.len() as f64))
            }
            _ => Expr::Num(1.0),
        }
    }
}

/// The variable that holds, inside a data-parallel item, the processors a parallel loop
/// nested in it may use: `max(1, p / items)` of the enclosing loop. It is not a name the
/// annotations can write; [`nest_data_parallel`] makes nested loops read it as their `p`.
pub const NESTED_P: &str = "p@nested";

/// The environment of the items of a data-parallel loop over `count` items (both in
/// `env`'s variables): each item runs on one processor (`p = 1`), and a parallel loop
/// nested inside an item gets [`NESTED_P`] = `max(1, p / count)`: rayon's loops share one
/// pool, so with at least p outer items every inner loop runs on about one processor, and
/// with fewer the inner loops share the processors left over.
pub fn item_env(env: &Env, count: &Expr) -> Env {
    let share = Expr::Call(
        lca::expr::Func::Max,
        vec![Expr::Num(1.0), div(env.p(), env.subst(count))],
    );
    env.with(NESTED_P, share).with("p", Expr::Num(1.0))
}

/// Marks every data-parallel loop nested in an item of another one (through serial nodes,
/// sequential loops and locked regions, without a `p =` override of its own) to run at
/// [`NESTED_P`] processors instead of its item's one (see [`item_env`]).
pub fn nest_data_parallel(node: &mut Node) {
    mark_nested(node, false);
}

fn mark_nested(node: &mut Node, in_item: bool) {
    let is_dp = matches!(node.kind, NodeKind::DataParallel { .. });
    if is_dp && in_item && node.p_override.is_none() {
        node.p_override = Some(Expr::Var(NESTED_P.into()));
    }
    let passes = matches!(
        node.kind,
        NodeKind::Serial { .. } | NodeKind::Loop { .. } | NodeKind::Locked { .. }
    );
    let inner = is_dp || (in_item && passes && node.p_override.is_none());
    for c in &mut node.children {
        mark_nested(c, inner);
    }
}

/// `a + b` as an expression.
pub fn add(a: Expr, b: Expr) -> Expr {
    Expr::bin(lca::expr::BinOp::Add, a, b)
}

/// `a * b` as an expression, dropping a factor 1.
pub fn mul(a: Expr, b: Expr) -> Expr {
    match (&a, &b) {
        (_, Expr::Num(v)) if *v == 1.0 => a,
        (Expr::Num(v), _) if *v == 1.0 => b,
        _ => Expr::bin(lca::expr::BinOp::Mul, a, b),
    }
}

/// `a / b` as an expression, dropping a divisor 1.
pub fn div(a: Expr, b: Expr) -> Expr {
    match &b {
        Expr::Num(v) if *v == 1.0 => a,
        _ => Expr::bin(lca::expr::BinOp::Div, a, b),
    }
}
