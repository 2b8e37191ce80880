//! The normal form's building blocks: Extra-P's exponents, factors `x^i · log2(x)^j`,
//! products of factors (terms), and the known-zero constraint ([`ZeroAt`]) that shifts
//! factors so every term vanishes at the constrained point.

use crate::dataset::Dataset;
use crate::expr::{BinOp, Expr, Func};

/// Extra-P's exponents `i` as (numerator, denominator).
pub const EXPONENTS: [(i32, i32); 20] = [
    (0, 1),
    (1, 4),
    (1, 3),
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 5),
    (1, 1),
    (5, 4),
    (4, 3),
    (3, 2),
    (5, 3),
    (7, 4),
    (2, 1),
    (9, 4),
    (7, 3),
    (5, 2),
    (8, 3),
    (11, 4),
    (3, 1),
];

/// Logarithm powers `j`.
pub const LOG_POWERS: [u32; 3] = [0, 1, 2];

/// `x_var^(num/den) · log2(x_var)^log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Factor {
    /// Variable index in the data set.
    pub var: usize,
    /// Exponent numerator.
    pub num: i32,
    /// Exponent denominator.
    pub den: i32,
    /// Power of log2.
    pub log: u32,
}

impl Factor {
    /// Value at `x`.
    pub fn eval(&self, x: f64) -> f64 {
        let p = if self.num == 0 {
            1.0
        } else if self.den == 1 {
            x.powi(self.num)
        } else if self.num == 1 && self.den == 2 {
            x.sqrt()
        } else {
            x.powf(self.num as f64 / self.den as f64)
        };
        p * x.log2().powi(self.log as i32)
    }

    /// Value at `x` minus the value at the constrained point when this factor is of the
    /// constrained variable.
    pub(super) fn eval_shifted(&self, x: f64, shift: Shift) -> f64 {
        match shift {
            Some((v, at)) if v == self.var => self.eval(x) - self.eval(at),
            _ => self.eval(x),
        }
    }

    /// The factor as one expression, shifted like [`Factor::eval_shifted`].
    fn shifted_expr(&self, name: &str, shift: Shift) -> Vec<Expr> {
        let pieces = self.pieces(name);
        match shift {
            Some((v, at)) if v == self.var && self.eval(at) != 0.0 => {
                let whole = pieces
                    .into_iter()
                    .reduce(|a, b| Expr::bin(BinOp::Mul, a, b))
                    .unwrap_or(Expr::Num(1.0));
                vec![Expr::bin(BinOp::Sub, whole, Expr::Num(self.eval(at)))]
            }
            _ => pieces,
        }
    }

    /// The factor as expression pieces (multiplied together).
    fn pieces(&self, name: &str) -> Vec<Expr> {
        let x = Expr::var(name);
        let mut v = Vec::new();
        match (self.num, self.den) {
            (0, _) => {}
            (1, 1) => v.push(x.clone()),
            (n, 1) => v.push(Expr::bin(BinOp::Pow, x.clone(), Expr::Num(n as f64))),
            (1, 2) => v.push(Expr::call(Func::Sqrt, vec![x.clone()])),
            (n, d) => v.push(Expr::bin(
                BinOp::Pow,
                x.clone(),
                Expr::bin(BinOp::Div, Expr::Num(n as f64), Expr::Num(d as f64)),
            )),
        }
        let l = Expr::call(Func::Log2, vec![x]);
        match self.log {
            0 => {}
            1 => v.push(l),
            j => v.push(Expr::bin(BinOp::Pow, l, Expr::Num(j as f64))),
        }
        v
    }
}

/// A product of factors of distinct variables.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Term(pub Vec<Factor>);

impl Term {
    /// The term as an expression over the data set's variable names.
    pub fn to_expr(&self, vars: &[String]) -> Expr {
        self.shifted_expr(vars, None)
    }

    pub(super) fn shifted_expr(&self, vars: &[String], shift: Shift) -> Expr {
        self.0
            .iter()
            .flat_map(|f| f.shifted_expr(&vars[f.var], shift))
            .reduce(|a, b| Expr::bin(BinOp::Mul, a, b))
            .unwrap_or(Expr::Num(1.0))
    }

    /// Sort key: total exponent, then log powers (terms print fastest-growing first).
    pub fn growth(&self) -> f64 {
        self.0
            .iter()
            .map(|f| f.num as f64 / f.den as f64 + 0.01 * f.log as f64)
            .sum()
    }

    pub(super) fn column(&self, data: &Dataset, shift: Shift) -> Vec<f64> {
        data.points
            .iter()
            .map(|p| {
                self.0
                    .iter()
                    .map(|f| f.eval_shifted(p.x[f.var], shift))
                    .product()
            })
            .collect()
    }

    /// True when the term can satisfy the constraint (it has a factor of its variable).
    pub(super) fn allowed(&self, shift: Shift) -> bool {
        shift.is_none_or(|(v, _)| self.0.iter().any(|f| f.var == v))
    }
}

/// All single-variable factors of the normal form for variable `var`.
pub fn term_pool(var: usize) -> Vec<Factor> {
    let mut v = Vec::new();
    for &(num, den) in &EXPONENTS {
        for &log in &LOG_POWERS {
            if num == 0 && log == 0 {
                continue;
            }
            v.push(Factor { var, num, den, log });
        }
    }
    v
}

/// The constraint `model = 0 where variable = value` (for every value of the other
/// variables).
///
/// The search then uses the constrained normal form `Σ_k c_k · f_k(others) · (g_k(x) −
/// g_k(value))` where `x` is the constrained variable and `g_k` its factor
/// `x^i · log2(x)^j`: no constant term, every term has a factor in `x`, and a factor that is
/// not already 0 at `value` is shifted (`p − 1`, `sqrt(p) − 1`; `log2(p)` needs no shift at
/// p = 1). Each shifted term gets one coefficient, so the model is exactly 0 at `value`
/// and the fit, the intervals and the cross-validation work as without the constraint.
#[derive(Debug, Clone, PartialEq)]
pub struct ZeroAt {
    /// The variable's name (one of the data set's variables).
    pub variable: String,
    /// Its value where the quantity is 0 (`1.0` for p = 1).
    pub value: f64,
}

impl ZeroAt {
    /// `model = 0` where `variable = value`.
    pub fn new(variable: &str, value: f64) -> ZeroAt {
        ZeroAt {
            variable: variable.into(),
            value,
        }
    }
}

/// The constraint resolved against a data set: (variable index, value).
pub(super) type Shift = Option<(usize, f64)>;
