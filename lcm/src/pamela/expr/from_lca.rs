//! Model expressions (`lca::expr::Expr`, what fitted models and annotations are written in)
//! as PAMELA expressions.
//!
//! The result is the tree that the PAMELA parser builds from the expression's printed text
//! (`Display` of `lca::expr::Expr`): sums and products that the text writes as one chain
//! become one n-ary node, `a - b` becomes `a + -1*b`, `-x` becomes `-1*x` (a literal's sign
//! folds into the literal), and NaN or infinite literals become the quotients they print
//! as. So a model built from expressions compiles exactly as its `--emit pamela` text does.
use super::{bx, Expr};
use lca::expr::{BinOp, Expr as ModelExpr};

impl Expr {
    /// The PAMELA expression of a model expression (the tree its printed text parses to).
    pub fn from_model(e: &ModelExpr) -> Expr {
        match e {
            ModelExpr::Num(v) => literal(*v),
            ModelExpr::Var(n) => Expr::Var(n.clone()),
            ModelExpr::Neg(x) => negate(Expr::from_model(x)),
            ModelExpr::Call(f, args) => Expr::Call(*f, args.iter().map(Expr::from_model).collect()),
            ModelExpr::Bin(BinOp::Add | BinOp::Sub, ..) => {
                let mut terms = Vec::new();
                sum_terms(e, &mut terms);
                Expr::Add(terms)
            }
            ModelExpr::Bin(BinOp::Mul | BinOp::Div, a, b) => {
                let left = Expr::from_model(a);
                let right = Expr::from_model(b);
                match e {
                    ModelExpr::Bin(BinOp::Div, ..) => Expr::Div(bx(left), bx(right)),
                    _ => times(left, right),
                }
            }
            ModelExpr::Bin(BinOp::Pow, a, b) => {
                Expr::Pow(bx(Expr::from_model(a)), bx(Expr::from_model(b)))
            }
        }
    }
}

/// A literal as printed: finite values read back exactly; NaN prints as `(0/0)`, the
/// infinities as `(1/0)` and `(-1/0)`.
fn literal(v: f64) -> Expr {
    if v.is_nan() {
        Expr::Div(bx(Expr::Num(0.0)), bx(Expr::Num(0.0)))
    } else if v.is_infinite() {
        Expr::Div(bx(Expr::Num(v.signum())), bx(Expr::Num(0.0)))
    } else {
        Expr::Num(v)
    }
}

/// Unary minus as the parser reads it: a literal's sign folds in, anything else is `-1*x`.
fn negate(x: Expr) -> Expr {
    match x {
        Expr::Num(v) => Expr::Num(-v),
        x => Expr::Mul(vec![Expr::Num(-1.0), x]),
    }
}

/// The terms of a `+`/`-` chain, left to right: the left operand of `+` or `-` is printed
/// without parentheses when it is itself a sum, so the parser reads one flat chain.
fn sum_terms(e: &ModelExpr, out: &mut Vec<Expr>) {
    match e {
        ModelExpr::Bin(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            sum_terms(a, out);
            let t = Expr::from_model(b);
            out.push(if *op == BinOp::Sub {
                Expr::Mul(vec![Expr::Num(-1.0), t])
            } else {
                t
            });
        }
        _ => out.push(Expr::from_model(e)),
    }
}

/// `left * right` as the parser accumulates a product chain: a product on the left takes
/// one more factor, except a negation `-1*x`, which stays one factor.
fn times(left: Expr, right: Expr) -> Expr {
    match left {
        Expr::Mul(mut v) if !(v.len() == 2 && v[0].as_num() == Some(-1.0)) => {
            v.push(right);
            Expr::Mul(v)
        }
        left => Expr::Mul(vec![left, right]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pamela::parse_expr;
    use lca::expr::Func;

    fn check(e: &ModelExpr) {
        let text = e.to_string();
        let parsed = parse_expr(&text).unwrap_or_else(|err| panic!("`{text}`: {err}"));
        assert_eq!(Expr::from_model(e), parsed, "`{text}`");
    }

    fn v(n: &str) -> ModelExpr {
        ModelExpr::Var(n.into())
    }
    fn b(op: BinOp, a: ModelExpr, c: ModelExpr) -> ModelExpr {
        ModelExpr::bin(op, a, c)
    }

    #[test]
    fn written_forms_read_back_as_the_parser_reads_them() {
        use BinOp::*;
        let n = ModelExpr::Num;
        let neg = |x| ModelExpr::Neg(Box::new(x));
        let cases = [
            b(Add, b(Add, v("a"), v("b")), v("c")),
            b(Add, v("a"), b(Add, v("b"), v("c"))),
            b(Sub, b(Sub, v("a"), v("b")), b(Sub, v("c"), v("d"))),
            b(Mul, b(Mul, v("a"), v("b")), v("c")),
            b(Mul, v("a"), b(Mul, v("b"), v("c"))),
            b(Mul, b(Div, v("a"), v("b")), v("c")),
            b(Div, b(Mul, v("a"), v("b")), b(Mul, v("c"), v("d"))),
            b(Mul, neg(v("x")), v("y")),
            b(Mul, b(Mul, neg(v("x")), v("y")), v("z")),
            b(Mul, b(Mul, n(-1.0), v("x")), v("y")),
            b(Mul, n(-2.0), v("x")),
            b(Sub, v("a"), n(-2.0)),
            neg(neg(v("x"))),
            neg(n(2.0)),
            neg(n(-2.0)),
            neg(b(Add, v("a"), v("b"))),
            neg(b(Pow, v("x"), n(2.0))),
            b(Pow, n(-2.0), v("x")),
            b(Pow, v("a"), b(Pow, v("b"), v("c"))),
            b(Pow, b(Pow, v("a"), v("b")), neg(v("c"))),
            b(Mul, b(Add, v("a"), v("b")), v("c")),
            n(1.5e-7),
            n(-3.25e20),
            n(f64::NAN),
            n(f64::INFINITY),
            n(f64::NEG_INFINITY),
            neg(n(f64::NAN)),
            ModelExpr::call(Func::Max, vec![v("a"), b(Sub, v("b"), v("c"))]),
            ModelExpr::call(Func::Log2, vec![b(Mul, v("n"), v("p"))]),
            b(Div, v("n"), ModelExpr::call(Func::Sqrt, vec![neg(v("p"))])),
            ModelExpr::call(
                Func::Pw,
                vec![
                    v("k"),
                    n(1.0),
                    n(3.1e-7),
                    n(10.0),
                    n(4.2e-6),
                    n(73712.0),
                    n(0.029),
                ],
            ),
        ];
        for e in &cases {
            check(e);
        }
    }

    #[test]
    fn random_trees_read_back_as_the_parser_reads_them() {
        // A fixed linear congruential sequence: the same 2000 trees on every run.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |k: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % k
        };
        fn tree(depth: u32, next: &mut dyn FnMut(u64) -> u64) -> ModelExpr {
            let leaf = depth == 0 || next(4) == 0;
            if leaf {
                return match next(4) {
                    0 => ModelExpr::Num(next(7) as f64 - 3.0),
                    1 => ModelExpr::Num((next(1000) as f64 - 500.0) * 1e-6),
                    _ => ModelExpr::Var(["n", "p", "W_a_1"][next(3) as usize].into()),
                };
            }
            match next(8) {
                0 => ModelExpr::Neg(Box::new(tree(depth - 1, next))),
                1 => ModelExpr::call(
                    Func::Max,
                    vec![tree(depth - 1, next), tree(depth - 1, next)],
                ),
                k => {
                    let op = [
                        BinOp::Add,
                        BinOp::Sub,
                        BinOp::Mul,
                        BinOp::Div,
                        BinOp::Pow,
                        BinOp::Mul,
                    ][(k - 2) as usize];
                    ModelExpr::bin(op, tree(depth - 1, next), tree(depth - 1, next))
                }
            }
        }
        for _ in 0..2000 {
            check(&tree(5, &mut next));
        }
    }
}
