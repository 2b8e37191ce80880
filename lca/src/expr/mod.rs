//! The expression language (docs/models.md): fitted models, `lca` formulae and the
//! right-hand sides of `// lcm:` annotations.
//!
//! Grammar (whitespace between tokens is ignored):
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*
//! unary   := '-' unary | power
//! power   := primary ('^' unary)?          // right-associative, binds tighter than unary minus
//! primary := NUMBER | IDENT | IDENT '(' expr (',' expr)* ')' | '(' expr ')'
//! NUMBER  := digits ['.' digits] [('e'|'E') ['+'|'-'] digits]   (also `.5`, `1.`)
//! IDENT   := WORD ('.' WORD)*                 WORD := [A-Za-z_][A-Za-z0-9_]*
//! ```
//!
//! Functions: `log2 ln log10 sqrt exp abs ceil floor` (one argument), `min max` (two or
//! more) and `pw(x, x1, y1, x2, y2, …)`, the piecewise power law through a table of two or
//! more measured points ([`piecewise`]; the table must be positive number literals with
//! strictly increasing breakpoints, else an [`ExprError`] at the offending argument), and
//! `lin(x, x1, y1, x2, y2, …)`, the straight lines between one or more points, held beyond
//! the first and the last ([`linear`]; the breakpoints must be number literals, strictly
//! increasing, the values may be any expressions, e.g. machine keys). An identifier that names a function is a function only when `(` follows it.
//! A dotted identifier (`fill.sl`) is one variable: `lcm` reads it as a reference to a
//! measured fragment's category model (docs/models.md).
//! So `-x^2` is `-(x^2)`, `2^-1` is `0.5` and `2^3^2` is `2^9`.
//!
//! Trees deeper than [`MAX_DEPTH`] levels (parentheses, unary minus, calls and each operator
//! of a chain count) are refused with an [`ExprError`], so that no input can exhaust the
//! stack of the code that walks the tree.
//!
//! [`Expr`]'s `Display` prints text that [`parse`] reads back to the same tree (numbers in
//! shortest round-trip form, scientific notation for very small or large magnitudes).
//!
//! ```
//! use lca::expr::{parse, Bindings};
//! let e = parse("2.09e-9*n^2*log2(n) + max(p, 3)").unwrap();
//! let mut b = Bindings::new();
//! b.insert("n".into(), 1024.0);
//! b.insert("p".into(), 4.0);
//! let v = e.eval(&b).unwrap();
//! assert!((v - (2.09e-9 * 1024.0f64.powi(2) * 10.0 + 4.0)).abs() < 1e-12);
//! assert_eq!(parse(&e.to_string()).unwrap(), e);
//! ```
//!
//! The module is split by concept: the tree ([`Expr`], [`BinOp`], [`Func`]), the parser
//! ([`parse`], [`ExprError`]), evaluation ([`Expr::eval`], [`Bindings`], [`EvalError`]),
//! structural transformations (additive terms, renaming, substitution, linear
//! combinations) and printing ([`format_number`], `Display`).

mod ast;
mod display;
mod eval;
mod parser;
mod transform;

pub use ast::{
    linear, linear_table_problem, piecewise, table_problem, BinOp, Expr, Func, TableProblem,
};
pub use display::format_number;
pub use eval::{Bindings, EvalError};
pub use parser::{lex_number, parse, ExprError, NumberError, MAX_DEPTH};

#[cfg(test)]
mod tests;
