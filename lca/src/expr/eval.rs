//! Evaluation of expressions with variable values.

use super::ast::{BinOp, Expr};
use std::collections::BTreeMap;

/// Values for the variables of an expression (name → value, unit as the caller defines).
pub type Bindings = BTreeMap<String, f64>;

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

impl Expr {
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
}

/// `x^y` with exact small integer powers (so `n^2` and `n*n` agree bit for bit).
fn pow(x: f64, y: f64) -> f64 {
    if y == y.trunc() && y.abs() <= 16.0 {
        x.powi(y as i32)
    } else {
        x.powf(y)
    }
}
