//! Tests of the expression language: parsing, printing round trips, evaluation.

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

#[test]
fn the_shared_number_lexer() {
    let chars = |s: &str| s.chars().collect::<Vec<_>>();
    assert_eq!(lex_number(&chars("2.5e-3*n"), 0), Ok((2.5e-3, 6)));
    assert_eq!(lex_number(&chars(".5"), 0), Ok((0.5, 2)));
    assert_eq!(lex_number(&chars("1.+x"), 0), Ok((1.0, 2)));
    let e = lex_number(&chars("3e+"), 0).unwrap_err();
    assert_eq!(
        (e.index, e.expected, e.found.as_str()),
        (3, "digits of the exponent", "end of input")
    );
}

#[test]
fn nesting_up_to_the_limit_parses_and_deeper_is_an_error() {
    // MAX_DEPTH levels of parentheses around a variable: accepted, and the tree's recursive
    // walks (eval, Display) run on this 2 MiB test thread.
    let ok = format!(
        "{}p{}",
        "(".repeat(MAX_DEPTH - 1),
        ")".repeat(MAX_DEPTH - 1)
    );
    assert_eq!(parse(&ok).unwrap(), Expr::var("p"));
    let deep = 100_000;
    for text in [
        format!("{}p{}", "(".repeat(deep), ")".repeat(deep)),
        format!("{}p", "-".repeat(deep)),
        format!("{}p{}", "max(1,".repeat(deep), ")".repeat(deep)),
        format!("2{}", "^2".repeat(deep)),
        // Operator chains build trees as deep as they are long.
        format!("p{}", "+p".repeat(deep)),
        format!("p{}", "*p".repeat(deep)),
    ] {
        let e = parse(&text).unwrap_err();
        assert!(
            e.expected.contains("levels of nesting"),
            "{}: {e}",
            &text[..20]
        );
        assert!(e.column <= 6 * MAX_DEPTH + 2, "{e}");
    }
    // A long chain just inside the limit evaluates.
    let chain = format!("p{}", "+p".repeat(MAX_DEPTH - 2));
    let b: Bindings = [("p".to_string(), 1.0)].into_iter().collect();
    assert_eq!(
        parse(&chain).unwrap().eval(&b).unwrap(),
        (MAX_DEPTH - 1) as f64
    );
}

#[test]
fn numbers_that_overflow_are_an_error() {
    // Found by the `formulae` fuzz target: `4e04400` read as infinity, printed as `1/0`.
    let e = parse("4e04400*-290e-8").unwrap_err();
    assert_eq!(e.column, 1);
    assert!(e.to_string().contains("overflows to infinity"), "{e}");
    assert_eq!(parse("1.7e308").unwrap(), Expr::Num(1.7e308));
}

#[test]
fn piecewise_tables_interpolate_in_log_log_space() {
    let t = "pw(k, 1, 3e-7, 100, 3.4e-5, 10000, 5.2e-3)";
    // Exact at the measured points, a power law between neighbours and beyond the ends.
    assert_eq!(ev(t, &[("k", 100.0)]), 3.4e-5);
    assert_eq!(ev(t, &[("k", 1.0)]), 3e-7);
    let a = (5.2e-3f64 / 3.4e-5).ln() / 100f64.ln();
    let mid = ev(t, &[("k", 1000.0)]);
    assert!(
        (mid / (3.4e-5 * 10f64.powf(a)) - 1.0).abs() < 1e-12,
        "{mid}"
    );
    let beyond = ev(t, &[("k", 1e5)]);
    assert!(
        (beyond / (5.2e-3 * 10f64.powf(a)) - 1.0).abs() < 1e-12,
        "{beyond}"
    );
    let below = ev(t, &[("k", 0.5)]);
    let a0 = (3.4e-5f64 / 3e-7).ln() / 100f64.ln();
    assert!(
        (below / (3e-7 * 0.5f64.powf(a0)) - 1.0).abs() < 1e-12,
        "{below}"
    );
    // The argument may be any expression; a value at or below 0 is not finite.
    assert_eq!(ev("pw(2*k, 1, 1, 4, 16)", &[("k", 1.0)]), 4.0);
    assert!(parse("pw(k, 1, 1, 4, 16)")
        .unwrap()
        .eval(&[("k".to_string(), 0.0)].into_iter().collect())
        .is_err());
    // Printing reads back to the same tree.
    let e = parse(t).unwrap();
    assert_eq!(parse(&e.to_string()).unwrap(), e);
}

#[test]
fn hostile_piecewise_tables_are_errors_with_columns() {
    let cases: [(&str, usize, &str); 9] = [
        ("pw(k)", 5, "two or more points"),
        ("pw(k, 1, 2)", 11, "two or more points"),
        ("pw(k, 1, 2, 3)", 14, "without its value"),
        ("pw(k, 1, 2, 1, 3)", 13, "above the previous one (1)"),
        ("pw(k, 10, 2, 1, 3)", 14, "above the previous one (10)"),
        ("pw(k, 1, 2, 2, -3)", 16, "positive number as the value"),
        ("pw(k, 0, 2, 2, 3)", 7, "positive number as the breakpoint"),
        ("pw(k, 1, (0/0), 2, 3)", 10, "positive number as the value"),
        ("pw(k, n, 2, 2, 3)", 7, "positive number as the breakpoint"),
    ];
    for (text, column, expected) in cases {
        let e = parse(text).unwrap_err();
        assert_eq!(e.column, column, "{text}: {e}");
        assert!(e.to_string().contains(expected), "{text}: {e}");
    }
    // A table built by hand with bad entries evaluates to NaN, never panics.
    for table in [
        &[][..],
        &[1.0][..],
        &[2.0, 1.0, 1.0, 1.0][..],
        &[1.0, f64::NAN, 2.0, 1.0][..],
    ] {
        assert!(piecewise(1.5, table).is_nan(), "{table:?}");
    }
}

#[test]
fn linear_tables_take_expressions_as_values_and_hold_beyond_their_ends() {
    let e = parse("lin(k, 1, a, 2, b*2, 4, 3)").unwrap();
    assert_eq!(e.to_string(), "lin(k, 1, a, 2, b*2, 4, 3)");
    let at = |k: f64| {
        ev(
            "lin(k, 1, a, 2, b*2, 4, 3)",
            &[("k", k), ("a", 1.0), ("b", 0.8)],
        )
    };
    assert_eq!(at(2.0), 1.6);
    assert!((at(3.0) - 2.3).abs() < 1e-12);
    assert_eq!(at(0.0), 1.0);
    assert_eq!(at(16.0), 3.0);
    for (text, expected) in [
        ("lin(k)", "one or more points"),
        ("lin(k, 1, a, 2)", "one or more points"),
        (
            "lin(k, 2, a, 1, b)",
            "breakpoints that are number literals, increasing",
        ),
        (
            "lin(k, n, a, 2, b)",
            "breakpoints that are number literals, increasing",
        ),
    ] {
        let err = parse(text).unwrap_err();
        assert!(err.to_string().contains(expected), "{text}: {err}");
    }
    assert!(linear(1.5, &[2.0, 1.0, 1.0, 1.0]).is_nan());
}
