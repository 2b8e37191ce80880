//! The checks of a piecewise power law `pw(x, x1, y1, x2, y2, …)` (docs/models.md), as the
//! PAMELA parser reads it: the same rules as `lca`'s expression parser.
use super::Expr;
use lca::expr::TableProblem;

impl Expr {
    /// What is wrong with the arguments of a `pw` call (the variable's expression, then the
    /// points), None when they are two or more points of positive number literals with
    /// strictly increasing breakpoints. `-3` is read as a negative literal and refused.
    pub fn piecewise_table_error(args: &[Expr]) -> Option<String> {
        let table = args.get(1..).unwrap_or_default();
        let values: Vec<Option<f64>> = table.iter().map(Expr::as_num).collect();
        let what = |i: usize| {
            if i.is_multiple_of(2) {
                "breakpoint"
            } else {
                "value"
            }
        };
        Some(match lca::expr::table_problem(&values)? {
            TableProblem::Length(len) => format!("{len} argument(s) after the variable"),
            TableProblem::NotPositive(i) => {
                format!("{} {} is not a positive number", what(i), i / 2 + 1)
            }
            TableProblem::NotIncreasing { index, value, .. } => format!(
                "breakpoint {} ({value}) not above the one before it",
                index / 2 + 1
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::pamela::parse_expr;

    #[test]
    fn tables_evaluate_and_hostile_ones_are_errors() {
        let e = parse_expr("pw(k, 1, 2, 10, 20, 100, 2000)").unwrap();
        let v = crate::pamela::simplify::simplify(&e.substitute("k", &super::Expr::Num(10.0)));
        assert_eq!(v.as_num(), Some(20.0));
        for bad in [
            "pw(k)",
            "pw(k, 1, 2)",
            "pw(k, 1, 2, 3)",
            "pw(k, 1, 2, 1, 3)",
            "pw(k, 2, 2, 1, 3)",
            "pw(k, 1, -2, 2, 3)",
            "pw(k, 0, 2, 2, 3)",
            "pw(k, 1, 0/0, 2, 3)",
            "pw(k, n, 2, 2, 3)",
        ] {
            let err = parse_expr(bad).unwrap_err().to_string();
            assert!(err.contains("pw(x, x1, y1"), "{bad}: {err}");
        }
    }
}
