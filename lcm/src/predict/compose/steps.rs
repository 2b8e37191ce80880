//! The composed model as a typed tree: what compiles (the PAMELA syntax tree) and what
//! `--emit pamela` prints (the same tree, laid out with the comments that tie each part to
//! the source) come from one value.
use crate::pamela::{self, Decl, DeclKind, NameRef, Proc, ResourceDef, ServerKind, Span, Time};
use lca::expr::Expr;

/// A time or count of the composed model.
#[derive(Debug, Clone)]
pub(super) enum Term {
    /// A model expression.
    Model(Expr),
    /// `(index <= count)*time`: the time for the first `count` iterations of a `par` loop
    /// over `index`, none after.
    FirstItems {
        /// The loop index.
        index: String,
        /// How many iterations take the time.
        count: String,
        /// The time.
        time: String,
    },
}

impl Term {
    fn text(&self) -> String {
        match self {
            Term::Model(e) => e.to_string(),
            Term::FirstItems { index, count, time } => format!("({index} <= {count})*{time}"),
        }
    }

    fn lower(&self) -> pamela::Expr {
        match self {
            Term::Model(e) => pamela::Expr::from_model(e),
            Term::FirstItems { index, count, time } => pamela::Expr::Mul(vec![
                pamela::Expr::Cmp(
                    pamela::CmpOp::Le,
                    Box::new(pamela::Expr::Var(index.clone())),
                    Box::new(pamela::Expr::Var(count.clone())),
                ),
                pamela::Expr::Var(time.clone()),
            ]),
        }
    }
}

/// A process of the composed model with its layout: `Line`, `Block` and `Loop` start lines
/// indented `depth` levels; the other steps are written inside one line.
#[derive(Debug, Clone)]
pub(super) enum Step {
    /// `delay(t)`.
    Delay(Term),
    /// `use(resource, t)`.
    Use(String, Term),
    /// `signal(condition)`.
    Signal(String),
    /// `wait(condition)`.
    Wait(String),
    /// `{ a ; b }` on one line.
    Seq(Vec<Step>),
    /// `{ a || b }` on one line.
    Par(Vec<Step>),
    /// `seq (index = 1, count) body` or `par (...)` on one line.
    Repeat {
        /// `par` (true) or `seq`.
        par: bool,
        /// The index name.
        index: String,
        /// The number of iterations.
        count: Expr,
        /// What each iteration runs.
        body: Box<Step>,
    },
    /// A line holding `step`, under a comment line when `note` is given.
    Line {
        /// Indentation.
        depth: usize,
        /// The comment line above.
        note: Option<String>,
        /// What the line runs.
        step: Box<Step>,
    },
    /// `{`, one part per line separated by `;` (par false) or `||`, `}`; the note is a
    /// comment after the `{`.
    Block {
        /// Indentation of the braces.
        depth: usize,
        /// `||` (true) or `;` between the parts.
        par: bool,
        /// Comment after the opening brace.
        note: Option<String>,
        /// The parts, each starting a line.
        parts: Vec<Step>,
    },
    /// `seq (index = 1, count)   % note` on a line, the body below.
    Loop {
        /// Indentation.
        depth: usize,
        /// `par` (true) or `seq`.
        par: bool,
        /// The index name.
        index: String,
        /// The number of iterations.
        count: Expr,
        /// The comment after the header.
        note: String,
        /// What each iteration runs (starting its own line).
        body: Box<Step>,
    },
}

fn pad(depth: usize) -> String {
    "  ".repeat(depth)
}

fn keyword(par: bool) -> &'static str {
    if par {
        "par"
    } else {
        "seq"
    }
}

impl Step {
    /// The PAMELA text, laid out.
    pub(super) fn render(&self) -> String {
        match self {
            Step::Delay(t) => format!("delay({})", t.text()),
            Step::Use(r, t) => format!("use({r}, {})", t.text()),
            Step::Signal(c) => format!("signal({c})"),
            Step::Wait(c) => format!("wait({c})"),
            Step::Seq(v) => format!("{{ {} }}", join(v, " ; ")),
            Step::Par(v) => format!("{{ {} }}", join(v, " || ")),
            Step::Repeat {
                par,
                index,
                count,
                body,
            } => format!("{} ({index} = 1, {count}) {}", keyword(*par), body.render()),
            Step::Line { depth, note, step } => {
                let pad = pad(*depth);
                match note {
                    Some(n) => format!("{pad}% {n}\n{pad}{}", step.render()),
                    None => format!("{pad}{}", step.render()),
                }
            }
            Step::Block {
                depth,
                par,
                note,
                parts,
            } => {
                let pad = pad(*depth);
                let note = note.as_ref().map_or(String::new(), |n| format!("   % {n}"));
                let sep = if *par { " ||\n" } else { " ;\n" };
                format!("{pad}{{{note}\n{}\n{pad}}}", join(parts, sep))
            }
            Step::Loop {
                depth,
                par,
                index,
                count,
                note,
                body,
            } => format!(
                "{}{} ({index} = 1, {count})   % {note}\n{}",
                pad(*depth),
                keyword(*par),
                body.render()
            ),
        }
    }

    /// The PAMELA process (the tree its text parses to); `line` is the line of the
    /// rendered text the step starts on, advanced past it, for the spans of its names.
    fn lower(&self, line: &mut u32) -> Proc {
        let here = |line: &u32| Span {
            line: *line,
            col: 1,
        };
        let name = |n: &str, line: &u32| {
            vec![NameRef {
                name: n.to_string(),
                args: Vec::new(),
                span: here(line),
            }]
        };
        match self {
            Step::Delay(t) => Proc::Delay(Time::Det(t.lower())),
            Step::Use(r, t) => Proc::Use(name(r, line), Time::Det(t.lower())),
            Step::Signal(c) => Proc::Signal(name(c, line)),
            Step::Wait(c) => Proc::Wait(name(c, line)),
            Step::Seq(v) => group(v.iter().map(|s| s.lower(line)).collect(), Proc::Seq),
            Step::Par(v) => group(v.iter().map(|s| s.lower(line)).collect(), Proc::Par),
            Step::Repeat {
                par,
                index,
                count,
                body,
            } => repeat(*par, index, count, body.lower(line)),
            Step::Line { note, step, .. } => {
                *line += u32::from(note.is_some());
                let p = step.lower(line);
                *line += 1;
                p
            }
            Step::Block { par, parts, .. } => {
                *line += 1;
                let v = parts.iter().map(|s| s.lower(line)).collect();
                *line += 1;
                group(v, if *par { Proc::Par } else { Proc::Seq })
            }
            Step::Loop {
                par,
                index,
                count,
                body,
                ..
            } => {
                *line += 1;
                repeat(*par, index, count, body.lower(line))
            }
        }
    }
}

fn join(v: &[Step], sep: &str) -> String {
    v.iter().map(Step::render).collect::<Vec<_>>().join(sep)
}

/// A sequence or parallel composition; one part stands alone, as `{ a }` reads.
fn group(mut v: Vec<Proc>, make: fn(Vec<Proc>) -> Proc) -> Proc {
    if v.len() == 1 {
        v.remove(0)
    } else {
        make(v)
    }
}

fn repeat(par: bool, index: &str, count: &Expr, body: Proc) -> Proc {
    Proc::Loop {
        par,
        index: index.to_string(),
        lo: pamela::Expr::Num(1.0),
        hi: pamela::Expr::from_model(count),
        body: Box::new(body),
    }
}

/// One equation of the composed model.
#[derive(Debug, Clone)]
pub(super) enum Equation {
    /// `numeric parameter name`.
    Parameter(String),
    /// `resource name = fcfs(index, multiplicity)   % note`.
    Resource {
        /// The resource's name.
        name: String,
        /// Its index in the `fcfs` family.
        index: usize,
        /// Number of servers.
        multiplicity: Expr,
        /// What it stands for.
        note: String,
    },
    /// `numeric name = value`.
    Numeric(String, Expr),
}

impl Equation {
    fn render(&self) -> String {
        match self {
            Equation::Parameter(p) => format!("numeric parameter {p}"),
            Equation::Resource {
                name,
                index,
                multiplicity,
                note,
            } => {
                // the processor and memory resources (indices 0 and 1) set their comments
                // further right than the per-lock and per-stage ones
                let gap = if *index < 2 { "     " } else { "   " };
                format!("resource {name} = fcfs({index}, {multiplicity}){gap}% {note}")
            }
            Equation::Numeric(n, e) => format!("numeric {n} = {e}"),
        }
    }

    fn lower(&self, line: u32) -> Decl {
        let (name, kind) = match self {
            Equation::Parameter(p) => (
                p.clone(),
                DeclKind::Numeric {
                    parameter: true,
                    value: None,
                },
            ),
            Equation::Resource {
                name,
                index,
                multiplicity,
                ..
            } => (
                name.clone(),
                DeclKind::Resource(ResourceDef::Server {
                    kind: ServerKind::Fcfs,
                    index: pamela::Expr::Num(*index as f64),
                    multiplicity: pamela::Expr::from_model(multiplicity),
                }),
            ),
            Equation::Numeric(n, e) => (
                n.clone(),
                DeclKind::Numeric {
                    parameter: false,
                    value: Some(pamela::Expr::from_model(e)),
                },
            ),
        };
        Decl {
            name,
            params: Vec::new(),
            kind,
            span: Span { line, col: 1 },
        }
    }
}

/// Header comment lines, equations and the main process: the text and the PAMELA program
/// (spans point into the text).
pub(super) fn assemble(
    header: &[String],
    equations: &[Equation],
    main: &Step,
) -> (String, pamela::Program) {
    let mut text = String::new();
    for h in header {
        text.push_str(&format!("% {h}\n"));
    }
    for e in equations {
        text.push_str(&e.render());
        text.push('\n');
    }
    text.push_str(&format!("process main =\n{}\n", main.render()));
    let mut line = header.len() as u32 + 1;
    let mut decls = Vec::new();
    for e in equations {
        decls.push(e.lower(line));
        line += 1;
    }
    let main_line = line;
    line += 1;
    let body = main.lower(&mut line);
    decls.push(Decl {
        name: "main".into(),
        params: Vec::new(),
        kind: DeclKind::Process(body),
        span: Span {
            line: main_line,
            col: 1,
        },
    });
    (text, pamela::Program::from_decls(decls))
}
