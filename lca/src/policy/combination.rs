//! Writing a model re-estimated as `Σ coefficient · basis` the way the policy writes its
//! own models (see [`super::joint`]).

use super::PROCESSORS;
use crate::expr::{BinOp, Expr};
use crate::fit::round_sig;

/// `Σ c_i · basis_i` as the policy writes its models: `(p − 1)·(…)` where every basis has
/// that factor, numbers leading a basis folded into its coefficient.
pub fn combination(bases: &[Expr], coefficients: &[f64]) -> Expr {
    let factor = Expr::bin(BinOp::Sub, Expr::var(PROCESSORS), Expr::Num(1.0));
    let terms: Vec<(f64, Expr)> = bases
        .iter()
        .zip(coefficients)
        .map(|(b, c)| {
            let (k, rest) = leading_number(b);
            (round_sig(c * k, 6), rest)
        })
        .collect();
    let inner: Option<Vec<(f64, Expr)>> = terms
        .iter()
        .map(|(c, b)| match b {
            Expr::Bin(BinOp::Mul, f, rest) if **f == factor => {
                let (k, r) = leading_number(rest);
                Some((round_sig(c * k, 6), r))
            }
            b if *b == factor => Some((*c, Expr::Num(1.0))),
            _ => None,
        })
        .collect();
    match inner {
        Some(inner) => Expr::bin(BinOp::Mul, factor, Expr::linear_combination(&inner)),
        None => Expr::linear_combination(&terms),
    }
}

/// `e` as `k · rest` with `k` the numbers that lead its product (1 when none) and `rest`
/// without them (`1` when nothing is left); `x·1` is `x`.
fn leading_number(e: &Expr) -> (f64, Expr) {
    match e {
        Expr::Num(v) => (*v, Expr::Num(1.0)),
        Expr::Bin(BinOp::Mul, l, r) => {
            let (k, l) = leading_number(l);
            let (kr, r) = match &**r {
                Expr::Num(v) => (*v, Expr::Num(1.0)),
                r => (1.0, r.clone()),
            };
            let rest = match (l, r) {
                (Expr::Num(1.0), r) => r,
                (l, Expr::Num(1.0)) => l,
                (l, r) => Expr::bin(BinOp::Mul, l, r),
            };
            (k * kr, rest)
        }
        _ => (1.0, e.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Expr {
        crate::expr::parse(text).unwrap()
    }

    /// Re-estimated models are written as the policy writes its own: the factor `p − 1`
    /// once, numbers that lead a basis folded into its coefficient, no `·1`.
    #[test]
    fn combinations_print_as_the_policy_writes_models() {
        let bases = [parse("(p - 1)*(n*log2(n))"), parse("(p - 1)*1")];
        let e = combination(&bases, &[2e-9, 3e-7]);
        assert_eq!(e.to_string(), "(p - 1)*(2e-9*n*log2(n) + 3e-7)");
        let whole = [parse("0.5*2e-9*n^2*log2(p)")];
        assert_eq!(combination(&whole, &[2.0]).to_string(), "2e-9*n^2*log2(p)");
        let b = [("n".to_string(), 8.0), ("p".to_string(), 4.0)]
            .into_iter()
            .collect();
        let e = combination(&bases, &[2e-9, 3e-7]);
        let expected = 3.0 * (2e-9 * 8.0 * 3.0 + 3e-7);
        assert!((e.eval(&b).unwrap() / expected - 1.0).abs() < 1e-12);
    }
}
