//! The expression language of DESIGN section 5: fitted models, `lca` formulae and the
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
//! IDENT   := [A-Za-z_][A-Za-z0-9_]*
//! ```
//!
//! Functions: `log2 ln log10 sqrt exp abs ceil floor` (one argument) and `min max` (two or
//! more). An identifier that names a function is a function only when `(` follows it.
//! So `-x^2` is `-(x^2)`, `2^-1` is `0.5` and `2^3^2` is `2^9`.
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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Values for the variables of an expression (name → value, unit as the caller defines).
pub type Bindings = BTreeMap<String, f64>;

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `^` (power, right-associative)
    Pow,
}

/// A built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    /// Base-2 logarithm.
    Log2,
    /// Natural logarithm.
    Ln,
    /// Base-10 logarithm.
    Log10,
    /// Square root.
    Sqrt,
    /// e^x.
    Exp,
    /// Absolute value.
    Abs,
    /// Round up.
    Ceil,
    /// Round down.
    Floor,
    /// Minimum of 2 or more arguments.
    Min,
    /// Maximum of 2 or more arguments.
    Max,
}

impl Func {
    /// All functions, for lookup by name.
    pub const ALL: [Func; 10] = [
        Func::Log2,
        Func::Ln,
        Func::Log10,
        Func::Sqrt,
        Func::Exp,
        Func::Abs,
        Func::Ceil,
        Func::Floor,
        Func::Min,
        Func::Max,
    ];

    /// The name used in the grammar.
    pub fn name(self) -> &'static str {
        match self {
            Func::Log2 => "log2",
            Func::Ln => "ln",
            Func::Log10 => "log10",
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
            Func::Abs => "abs",
            Func::Ceil => "ceil",
            Func::Floor => "floor",
            Func::Min => "min",
            Func::Max => "max",
        }
    }

    /// The function with this name, if any.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }

    /// True for `min` and `max`, which take two or more arguments.
    pub fn is_variadic(self) -> bool {
        matches!(self, Func::Min | Func::Max)
    }

    /// Applies the function to evaluated arguments (arity already checked by the parser).
    pub fn apply(self, args: &[f64]) -> f64 {
        let x = args.first().copied().unwrap_or(f64::NAN);
        match self {
            Func::Log2 => x.log2(),
            Func::Ln => x.ln(),
            Func::Log10 => x.log10(),
            Func::Sqrt => x.sqrt(),
            Func::Exp => x.exp(),
            Func::Abs => x.abs(),
            Func::Ceil => x.ceil(),
            Func::Floor => x.floor(),
            Func::Min => args.iter().copied().fold(f64::INFINITY, f64::min),
            Func::Max => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}

/// An expression tree (DESIGN section 5).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A number literal (fitted coefficients may be negative).
    Num(f64),
    /// A variable such as `n` or `p`.
    Var(String),
    /// Unary minus.
    Neg(Box<Expr>),
    /// A binary operation.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// A function call.
    Call(Func, Vec<Expr>),
}

/// A syntax error, with the 1-based column (in characters) where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: expected {expected}, found {found}")]
pub struct ExprError {
    /// 1-based character column of the offending token.
    pub column: usize,
    /// What the parser expected there.
    pub expected: String,
    /// What it found (`end of input` at the end).
    pub found: String,
}

impl ExprError {
    /// The same error with its column moved right by `offset` characters (for expressions
    /// embedded in a longer line).
    pub fn shifted(mut self, offset: usize) -> ExprError {
        self.column += offset;
        self
    }
}

/// An evaluation failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// A variable without a value in the bindings.
    #[error("variable `{0}` has no value")]
    UnknownVariable(String),
    /// The result is NaN or infinite (e.g. `log2(0)`, `1/0`, `sqrt(-1)`).
    #[error("`{expr}` is not finite ({value}) for the given values")]
    NotFinite {
        /// The expression, printed.
        expr: String,
        /// The value obtained.
        value: f64,
    },
}

/// Parses section-5 expression text.
pub fn parse(text: &str) -> Result<Expr, ExprError> {
    let tokens = lex(text)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        end_column: text.chars().count() + 1,
    };
    let e = p.expr()?;
    if let Some(t) = p.peek() {
        return Err(ExprError {
            column: t.column,
            expected: "an operator or end of input".into(),
            found: t.kind.describe(),
        });
    }
    Ok(e)
}

#[derive(Debug, Clone, PartialEq)]
enum TokKind {
    Num(f64),
    Ident(String),
    Op(char),
}

impl TokKind {
    fn describe(&self) -> String {
        match self {
            TokKind::Num(v) => format!("number `{v}`"),
            TokKind::Ident(s) => format!("`{s}`"),
            TokKind::Op(c) => format!("`{c}`"),
        }
    }
}

#[derive(Debug, Clone)]
struct Token {
    kind: TokKind,
    column: usize,
}

fn lex(text: &str) -> Result<Vec<Token>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i < chars.len() && chars[i] == '.' {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                } else {
                    return Err(ExprError {
                        column: j + 1,
                        expected: "digits of the exponent".into(),
                        found: chars
                            .get(j)
                            .map_or("end of input".into(), |c| format!("`{c}`")),
                    });
                }
            }
            let s: String = chars[start..i].iter().collect();
            let v: f64 = s.parse().map_err(|_| ExprError {
                column,
                expected: "a number".into(),
                found: format!("`{s}`"),
            })?;
            out.push(Token {
                kind: TokKind::Num(v),
                column,
            });
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token {
                kind: TokKind::Ident(chars[start..i].iter().collect()),
                column,
            });
        } else if "+-*/^(),".contains(c) {
            out.push(Token {
                kind: TokKind::Op(c),
                column,
            });
            i += 1;
        } else {
            return Err(ExprError {
                column,
                expected: "a number, a variable, a function or one of + - * / ^ ( ) ,".into(),
                found: format!("`{c}`"),
            });
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    end_column: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_op(&self, c: char) -> bool {
        matches!(self.peek(), Some(Token { kind: TokKind::Op(o), .. }) if *o == c)
    }

    fn error(&self, expected: &str) -> ExprError {
        match self.peek() {
            Some(t) => ExprError {
                column: t.column,
                expected: expected.into(),
                found: t.kind.describe(),
            },
            None => ExprError {
                column: self.end_column,
                expected: expected.into(),
                found: "end of input".into(),
            },
        }
    }

    fn expect_op(&mut self, c: char, expected: &str) -> Result<(), ExprError> {
        if self.peek_op(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    fn expr(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.term()?;
        loop {
            let op = if self.peek_op('+') {
                BinOp::Add
            } else if self.peek_op('-') {
                BinOp::Sub
            } else {
                return Ok(lhs);
            };
            self.pos += 1;
            let rhs = self.term()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn term(&mut self) -> Result<Expr, ExprError> {
        let mut lhs = self.unary()?;
        loop {
            let op = if self.peek_op('*') {
                BinOp::Mul
            } else if self.peek_op('/') {
                BinOp::Div
            } else {
                return Ok(lhs);
            };
            self.pos += 1;
            let rhs = self.unary()?;
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        if self.peek_op('-') {
            self.pos += 1;
            let inner = self.unary()?;
            return Ok(Expr::Neg(Box::new(inner)));
        }
        self.power()
    }

    fn power(&mut self) -> Result<Expr, ExprError> {
        let base = self.primary()?;
        if self.peek_op('^') {
            self.pos += 1;
            let exp = self.unary()?;
            return Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Expr, ExprError> {
        const WHAT: &str = "a number, a variable, a function call or `(`";
        let Some(tok) = self.peek().cloned() else {
            return Err(self.error(WHAT));
        };
        match tok.kind {
            TokKind::Num(v) => {
                self.pos += 1;
                Ok(Expr::Num(v))
            }
            TokKind::Ident(name) => {
                self.pos += 1;
                let is_call = self.peek_op('(');
                match Func::from_name(&name) {
                    Some(f) if is_call => {
                        self.pos += 1;
                        let mut args = vec![self.expr()?];
                        while self.peek_op(',') {
                            self.pos += 1;
                            args.push(self.expr()?);
                        }
                        if f.is_variadic() && args.len() < 2 {
                            return Err(
                                self.error(&format!("`,` and a second argument of `{}`", f.name()))
                            );
                        }
                        if !f.is_variadic() && args.len() != 1 {
                            return Err(ExprError {
                                column: tok.column,
                                expected: format!("one argument for `{}`", f.name()),
                                found: format!("{} arguments", args.len()),
                            });
                        }
                        self.expect_op(')', "`,` or `)`")?;
                        Ok(Expr::Call(f, args))
                    }
                    _ if is_call => Err(ExprError {
                        column: tok.column,
                        expected: "a function (log2 ln log10 sqrt exp abs ceil floor min max)"
                            .into(),
                        found: format!("`{name}(`"),
                    }),
                    _ => Ok(Expr::Var(name)),
                }
            }
            TokKind::Op('(') => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect_op(')', "`)`")?;
                Ok(e)
            }
            TokKind::Op(_) => Err(self.error(WHAT)),
        }
    }
}

impl Expr {
    /// A number.
    pub fn num(v: f64) -> Expr {
        Expr::Num(v)
    }

    /// A variable.
    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    /// `a op b`.
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    /// `f(args)`.
    pub fn call(f: Func, args: Vec<Expr>) -> Expr {
        Expr::Call(f, args)
    }

    /// Evaluates with the given variable values; fails on an unbound variable or a result
    /// that is NaN or infinite.
    pub fn eval(&self, vars: &BTreeMap<String, f64>) -> Result<f64, EvalError> {
        let v = self.eval_with(&|name| vars.get(name).copied())?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(EvalError::NotFinite {
                expr: self.to_string(),
                value: v,
            })
        }
    }

    /// Evaluates with a lookup function; unlike [`Expr::eval`] a NaN or infinite result is
    /// returned as is (only unbound variables fail).
    pub fn eval_with(&self, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<f64, EvalError> {
        Ok(match self {
            Expr::Num(v) => *v,
            Expr::Var(name) => {
                lookup(name).ok_or_else(|| EvalError::UnknownVariable(name.clone()))?
            }
            Expr::Neg(e) => -e.eval_with(lookup)?,
            Expr::Bin(op, a, b) => {
                let x = a.eval_with(lookup)?;
                let y = b.eval_with(lookup)?;
                match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    BinOp::Pow => pow(x, y),
                }
            }
            Expr::Call(f, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(a.eval_with(lookup)?);
                }
                f.apply(&vals)
            }
        })
    }

    /// The names of the variables the expression uses.
    pub fn variables(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Var(n) => {
                out.insert(n.clone());
            }
            Expr::Neg(e) => e.collect_vars(out),
            Expr::Bin(_, a, b) => {
                a.collect_vars(out);
                b.collect_vars(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect_vars(out)),
        }
    }

    /// The top-level additive terms with their signs: `a - b + c` gives
    /// `[(+1, a), (-1, b), (+1, c)]`; a leading unary minus gives sign -1.
    pub fn additive_terms(&self) -> Vec<(f64, Expr)> {
        let mut out = Vec::new();
        self.collect_terms(1.0, &mut out);
        out
    }

    fn collect_terms(&self, sign: f64, out: &mut Vec<(f64, Expr)>) {
        match self {
            Expr::Bin(BinOp::Add, a, b) => {
                a.collect_terms(sign, out);
                b.collect_terms(sign, out);
            }
            Expr::Bin(BinOp::Sub, a, b) => {
                a.collect_terms(sign, out);
                b.collect_terms(-sign, out);
            }
            Expr::Neg(e) => e.collect_terms(-sign, out),
            other => out.push((sign, other.clone())),
        }
    }

    /// Replaces every variable named in `renames` by the given name (`x0` → `n`).
    pub fn rename_vars(&self, renames: &BTreeMap<String, String>) -> Expr {
        match self {
            Expr::Num(v) => Expr::Num(*v),
            Expr::Var(n) => Expr::Var(renames.get(n).cloned().unwrap_or_else(|| n.clone())),
            Expr::Neg(e) => Expr::Neg(Box::new(e.rename_vars(renames))),
            Expr::Bin(op, a, b) => Expr::bin(*op, a.rename_vars(renames), b.rename_vars(renames)),
            Expr::Call(f, args) => {
                Expr::Call(*f, args.iter().map(|a| a.rename_vars(renames)).collect())
            }
        }
    }

    /// Replaces every variable that has an entry in `subst` by that expression.
    pub fn substitute(&self, subst: &BTreeMap<String, Expr>) -> Expr {
        match self {
            Expr::Num(v) => Expr::Num(*v),
            Expr::Var(n) => subst
                .get(n)
                .cloned()
                .unwrap_or_else(|| Expr::Var(n.clone())),
            Expr::Neg(e) => Expr::Neg(Box::new(e.substitute(subst))),
            Expr::Bin(op, a, b) => Expr::bin(*op, a.substitute(subst), b.substitute(subst)),
            Expr::Call(f, args) => {
                Expr::Call(*f, args.iter().map(|a| a.substitute(subst)).collect())
            }
        }
    }

    /// Sum of terms `c_k * t_k`, dropping exact-zero coefficients, writing negative ones
    /// with `-`, and leaving out a factor 1. An empty sum is `0`.
    pub fn linear_combination(terms: &[(f64, Expr)]) -> Expr {
        let mut acc: Option<Expr> = None;
        for (c, t) in terms {
            if *c == 0.0 {
                continue;
            }
            let is_one = matches!(t, Expr::Num(v) if *v == 1.0);
            let mag = c.abs();
            let piece = if is_one {
                Expr::Num(mag)
            } else if mag == 1.0 {
                t.clone()
            } else {
                mul_front(mag, t)
            };
            acc = Some(match acc {
                None if *c < 0.0 => Expr::Neg(Box::new(piece)),
                None => piece,
                Some(a) if *c < 0.0 => Expr::bin(BinOp::Sub, a, piece),
                Some(a) => Expr::bin(BinOp::Add, a, piece),
            });
        }
        acc.unwrap_or(Expr::Num(0.0))
    }
}

/// `c * t` written as a flat product (`3*p*sqrt(p)`, `3*a/b`) so it prints without
/// parentheses and re-parses to the same tree.
fn mul_front(c: f64, t: &Expr) -> Expr {
    match t {
        Expr::Bin(op @ (BinOp::Mul | BinOp::Div), a, b) => {
            Expr::bin(*op, mul_front(c, a), (**b).clone())
        }
        _ => Expr::bin(BinOp::Mul, Expr::Num(c), t.clone()),
    }
}

/// `x^y` with exact small integer powers (so `n^2` and `n*n` agree bit for bit).
fn pow(x: f64, y: f64) -> f64 {
    if y == y.trunc() && y.abs() <= 16.0 {
        x.powi(y as i32)
    } else {
        x.powf(y)
    }
}

/// Formats a number so that the expression parser reads back exactly the same value:
/// shortest round-trip digits, scientific notation below 1e-4 and from 1e15.
pub fn format_number(v: f64) -> String {
    if v.is_nan() {
        return "(0/0)".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "(1/0)" } else { "(-1/0)" }.into();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-4..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

// Precedence levels for printing: higher binds tighter.
const P_ADD: u8 = 1;
const P_MUL: u8 = 2;
const P_NEG: u8 = 3;
const P_POW: u8 = 4;
const P_ATOM: u8 = 5;

impl Expr {
    fn precedence(&self) -> u8 {
        match self {
            Expr::Num(v) if *v < 0.0 || v.is_nan() || v.is_infinite() => {
                if v.is_finite() {
                    P_NEG
                } else {
                    P_ATOM
                }
            }
            Expr::Num(_) | Expr::Var(_) | Expr::Call(..) => P_ATOM,
            Expr::Neg(_) => P_NEG,
            Expr::Bin(BinOp::Add | BinOp::Sub, ..) => P_ADD,
            Expr::Bin(BinOp::Mul | BinOp::Div, ..) => P_MUL,
            Expr::Bin(BinOp::Pow, ..) => P_POW,
        }
    }

    fn fmt_at(&self, f: &mut fmt::Formatter<'_>, min: u8) -> fmt::Result {
        if self.precedence() < min {
            write!(f, "(")?;
            self.fmt_at(f, 0)?;
            return write!(f, ")");
        }
        match self {
            Expr::Num(v) => write!(f, "{}", format_number(*v)),
            Expr::Var(n) => write!(f, "{n}"),
            // The operand of unary minus is a unary: another minus or a power or atom.
            Expr::Neg(e) => {
                write!(f, "-")?;
                e.fmt_at(f, P_NEG)
            }
            Expr::Bin(op, a, b) => {
                let (sym, lmin, rmin) = match op {
                    BinOp::Add => (" + ", P_ADD, P_MUL),
                    BinOp::Sub => (" - ", P_ADD, P_MUL),
                    BinOp::Mul => ("*", P_MUL, P_NEG),
                    BinOp::Div => ("/", P_MUL, P_NEG),
                    // Base must be an atom (so `(-x)^2`, `(a^b)^c`); exponent is a unary.
                    BinOp::Pow => ("^", P_ATOM, P_NEG),
                };
                a.fmt_at(f, lmin)?;
                write!(f, "{sym}")?;
                b.fmt_at(f, rmin)
            }
            Expr::Call(func, args) => {
                write!(f, "{}(", func.name())?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    a.fmt_at(f, 0)?;
                }
                write!(f, ")")
            }
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_at(f, 0)
    }
}

impl std::str::FromStr for Expr {
    type Err = ExprError;
    fn from_str(s: &str) -> Result<Expr, ExprError> {
        parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(text: &str, vars: &[(&str, f64)]) -> f64 {
        let b: Bindings = vars.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        parse(text).unwrap().eval(&b).unwrap()
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(ev("1 + 2*3", &[]), 7.0);
        assert_eq!(ev("-2^2", &[]), -4.0);
        assert_eq!(ev("2^3^2", &[]), 512.0);
        assert_eq!(ev("2^-1", &[]), 0.5);
        assert_eq!(ev("8/2/2", &[]), 2.0);
        assert_eq!(ev("10 - 3 - 2", &[]), 5.0);
        assert_eq!(ev("(1+2)*3", &[]), 9.0);
        assert_eq!(ev("--3", &[]), 3.0);
        assert_eq!(ev("2*-3", &[]), -6.0);
    }

    #[test]
    fn functions_and_numbers() {
        assert_eq!(ev("log2(1024)", &[]), 10.0);
        assert_eq!(ev("max(1, 5, 3)", &[]), 5.0);
        assert_eq!(ev("min(4, x)", &[("x", 2.0)]), 2.0);
        assert_eq!(ev("sqrt(16) + abs(-1) + ceil(1.2) + floor(1.8)", &[]), 8.0);
        assert_eq!(ev("1.5e3 + .5 + 1. + 2E-1", &[]), 1501.7);
        assert!((ev("ln(exp(2)) + log10(100)", &[]) - 4.0).abs() < 1e-12);
        assert_eq!(ev("p*sqrt(p)", &[("p", 4.0)]), 8.0);
    }

    #[test]
    fn errors_carry_columns() {
        let e = parse("n^2 + * p").unwrap_err();
        assert_eq!(e.column, 7);
        assert!(e.to_string().contains("found `*`"), "{e}");
        let e = parse("log2(n").unwrap_err();
        assert_eq!(e.column, 7);
        assert!(e.to_string().contains("end of input"));
        assert_eq!(parse("n $ p").unwrap_err().column, 3);
        assert_eq!(parse("foo(n)").unwrap_err().column, 1);
        assert_eq!(parse("max(n)").unwrap_err().column, 6);
        assert_eq!(parse("log2(n, p)").unwrap_err().column, 1);
        assert_eq!(parse("1e+").unwrap_err().column, 4);
        assert_eq!(parse("n p").unwrap_err().column, 3);
        assert_eq!(parse("").unwrap_err().column, 1);
        assert_eq!(parse("()").unwrap_err().column, 2);
    }

    #[test]
    fn eval_errors() {
        let e = parse("n + q").unwrap();
        let b: Bindings = [("n".to_string(), 1.0)].into_iter().collect();
        assert_eq!(e.eval(&b), Err(EvalError::UnknownVariable("q".into())));
        assert!(matches!(
            parse("log2(0)").unwrap().eval(&b),
            Err(EvalError::NotFinite { .. })
        ));
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "2.09e-9*n^2*log2(n)",
            "-x^2",
            "(-x)^2",
            "(a^b)^c",
            "a^b^c",
            "a - (b - c)",
            "a - b - c",
            "a/(b*c)",
            "a/b*c",
            "-(a + b)",
            "max(k1*p + k2, 3)",
            "2^-1",
            "x*-3",
            "1e300*x + 1.5e-20",
            "--x",
            "- -x",
            "(a + b)*(c - d)/e^-(f)",
        ] {
            let e = parse(text).unwrap();
            let printed = e.to_string();
            assert_eq!(parse(&printed).unwrap(), e, "{text} printed as {printed}");
        }
        // Negative literals (from fitting) also print re-parseably.
        let e = Expr::bin(BinOp::Pow, Expr::Num(-3.0), Expr::Num(2.0));
        assert_eq!(e.to_string(), "(-3)^2");
        assert_eq!(
            parse(&e.to_string()).unwrap().eval(&Bindings::new()),
            Ok(9.0)
        );
        assert_eq!(parse("2.09e-9*n^2").unwrap().to_string(), "2.09e-9*n^2");
        assert_eq!(parse("a+b").unwrap().to_string(), "a + b");
    }

    #[test]
    fn variables_and_terms() {
        let e = parse("k*n^2*log2(n) - p + max(q, 1)").unwrap();
        let v: Vec<_> = e.variables().into_iter().collect();
        assert_eq!(v, ["k", "n", "p", "q"]);
        let t = e.additive_terms();
        assert_eq!(t.len(), 3);
        assert_eq!(t[1], (-1.0, Expr::var("p")));
        let lc = Expr::linear_combination(&[
            (2.0, Expr::var("n")),
            (-1.0, Expr::var("p")),
            (10.0, Expr::Num(1.0)),
            (0.0, Expr::var("q")),
        ]);
        assert_eq!(lc.to_string(), "2*n - p + 10");
    }
}
