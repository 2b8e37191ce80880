//! The PAMELA language: parsing (errors with line and column), substitution to normal
//! form, numerics (reductions, Iverson brackets, mod/div) and the simplifier.
use lcm::pamela::{self, Bindings, Expr, PamelaError, Span};

fn b(pairs: &[(&str, f64)]) -> Bindings {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn t(src: &str, bind: &[(&str, f64)]) -> f64 {
    let m = pamela::parse(src)
        .unwrap_or_else(|e| panic!("parse: {e}"))
        .compile()
        .unwrap_or_else(|e| panic!("compile: {e}"));
    m.eval(&b(bind)).unwrap_or_else(|e| panic!("eval: {e}"))
}

fn parse_err(src: &str) -> (Span, String) {
    match pamela::parse(src) {
        Err(PamelaError::Parse {
            span,
            expected,
            found,
        }) => (span, format!("expected {expected}, found {found}")),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn parse_errors_name_line_and_column() {
    let (span, msg) =
        parse_err("numeric parameter P\nprocess main = par (p = 1, P)\n  delay(1 +)\n");
    assert_eq!(span, Span { line: 3, col: 12 });
    assert!(msg.contains("found `)`"), "{msg}");
    let (span, _) = parse_err("process main = use(r 1)");
    assert_eq!(span, Span { line: 1, col: 22 });
    let (span, msg) = parse_err("numeric x = 3 $ 4");
    assert_eq!(span, Span { line: 1, col: 15 });
    assert!(msg.contains('$'));
    let (span, msg) = parse_err("process main = seq (i = 1 N) delay(1)");
    assert_eq!((span.line, span.col), (1, 27));
    assert!(msg.contains("`,`"), "{msg}");
    let e = pamela::parse("process main = delay(1) ;\n  {").unwrap_err();
    assert!(
        e.to_string().starts_with("line 2, column 4: expected"),
        "{e}"
    );
    let (_, msg) = parse_err("numeric x = max(1)");
    assert!(msg.contains("2 or more"), "{msg}");
}

#[test]
fn semantic_errors_name_the_equation() {
    let e = pamela::parse("process main = delay(t)")
        .unwrap()
        .compile()
        .unwrap_err();
    assert!(e.to_string().contains("undefined name `t`"), "{e}");
    let e = pamela::parse("process main = a\nprocess a = main")
        .unwrap()
        .compile()
        .unwrap_err();
    assert!(e.to_string().contains("recursive"), "{e}");
    let e = pamela::parse("resource r(i) = fcfs(i,1)\nprocess main = use(r, 1)")
        .unwrap()
        .compile()
        .unwrap_err();
    assert!(e.to_string().contains("takes 1 index argument"), "{e}");
    let e = pamela::parse("numeric x = 1\nnumeric x = 2\nprocess main = delay(x)")
        .unwrap()
        .compile()
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("line 2, column 1: `x` is defined twice"),
        "{e}"
    );
    let e = pamela::parse("numeric x = 1\nprocess main = use(x, 1)")
        .unwrap()
        .compile()
        .unwrap_err();
    assert!(e.to_string().contains("not a resource"), "{e}");
    let e = pamela::parse("process worker = delay(1)")
        .unwrap()
        .compile()
        .unwrap_err();
    assert!(e.to_string().contains("process main"), "{e}");
}

#[test]
fn bad_input_never_panics() {
    for src in [
        "",
        "(",
        "process",
        "process main =",
        "numeric parameter",
        "resource r = fcfs()",
        "process main = {",
        "process main = seq (i = 1, 2)",
        "numeric x = sum (i = 1, ) 2",
        "%only a comment",
        "process main = if (1) else delay(1)",
        "process main = delay(exp(1, 2))",
        "numeric f(x = 3",
        "x = = 3",
        "process main = use({}, 1)",
        "\u{1F600}",
    ] {
        let _ = pamela::parse(src).and_then(|p| p.compile());
    }
}

#[test]
fn operators_seq_binds_tighter_than_par() {
    // a ; b || c ; d  ==  {a ; b} || {c ; d}
    assert_eq!(
        t(
            "process main = delay(1) ; delay(2) || delay(4) ; delay(0.5)",
            &[]
        ),
        4.5
    );
    assert_eq!(
        t("process main = (delay(1) || delay(2)) ; delay(3)", &[]),
        5.0
    );
    assert_eq!(t("process main = { }", &[]), 0.0);
    assert_eq!(t("process main = delay(1) ; ", &[]), 1.0);
}

#[test]
fn process_equations_with_arguments_and_resource_arrays() {
    // dining philosophers after Eq. 3.17 (Example 3.12): omega = 2*N*P*tau_e
    let src = "numeric parameter P\nnumeric parameter N\nnumeric tau_t = 1\nnumeric tau_e = 5\n\
               resource c(i) = fcfs(i, 1)\n\
               think(p) = delay(tau_t)\n\
               eat(p) = use({c(p), c((p + 1) mod P)}, tau_e)\n\
               philosopher(p) = seq (i = 1, N) { think(p) ; eat(p) }\n\
               process main = par (p = 0, P - 1) philosopher(p)";
    let m = pamela::parse(src).unwrap().compile().unwrap();
    for (p, n) in [(5.0, 10.0), (8.0, 3.0)] {
        let (tt, phi, omega) = m.eval_parts(&b(&[("P", p), ("N", n)])).unwrap();
        assert_eq!(phi, n * 6.0);
        assert_eq!(
            omega,
            2.0 * n * 5.0,
            "each fork is used by two philosophers"
        );
        assert_eq!(tt, phi.max(omega));
    }
    // a process argument shadowing a loop index of the caller is substituted, not captured
    let src = "numeric parameter N\nresource r(i) = fcfs(i, 1)\n\
               w(i) = seq (i = 1, 3) use(r(i), 1)\n\
               process main = par (i = 1, N) w(i)";
    assert_eq!(t(src, &[("N", 4.0)]), 4.0);
}

#[test]
fn conditional_with_probability_and_iverson_condition() {
    // c*X_a + (1 - c)*X_b
    assert_eq!(
        t("process main = if (0.25) delay(8) else delay(4)", &[]),
        5.0
    );
    assert_eq!(
        t("process main = if (1 < 2) delay(8) else delay(4)", &[]),
        8.0
    );
    // thesis 3.4.2: seq (i = 1, N) if (i mod S == 0) delay(tau) = floor(N/S)*tau
    let src = "numeric parameter N\nnumeric parameter S\nprocess main = seq (i = 1, N) if (i mod S == 0) delay(2)";
    for (n, s) in [(10.0, 3.0), (12.0, 4.0), (7.0, 10.0)] {
        assert_eq!(t(src, &[("N", n), ("S", s)]), (n / s).floor() * 2.0);
    }
    // weighting also applies to the contention term
    let src = "resource r = fcfs(0,1)\nprocess main = par (i = 1, 10) if (0.5) use(r, 2)";
    let m = pamela::parse(src).unwrap().compile().unwrap();
    assert_eq!(m.eval_parts(&Bindings::new()).unwrap().2, 10.0);
}

#[test]
fn numerics_reductions_mod_div_comparisons() {
    let e = |s: &str, bind: &[(&str, f64)]| pamela::parse_expr(s).unwrap().eval(&b(bind)).unwrap();
    assert_eq!(e("7 mod 3 + 7 div 2", &[]), 4.0);
    assert_eq!(e("-7 mod 3", &[]), 2.0);
    assert_eq!(e("-2^2", &[]), -4.0);
    assert_eq!(e("2^3^2", &[]), 512.0);
    assert_eq!(
        e(
            "(1 < 2) + (2 <= 2) + (3 == 3) + (3 != 3) + (1 >= 2) + (2 > 1)",
            &[]
        ),
        4.0
    );
    assert_eq!(e("sum (i = 1, 10) i", &[]), 55.0);
    assert_eq!(e("max (i = 1, 10) (i mod 7)", &[]), 6.0);
    assert_eq!(e("min (i = 3, 10) i*i", &[]), 9.0);
    assert_eq!(e("sum (i = 1, 0) 5", &[]), 0.0);
    assert_eq!(
        e(
            "log2(8) + ln(exp(2)) + log10(100) + sqrt(16) + abs(-1) + ceil(1.2) + floor(1.8)",
            &[]
        ),
        15.0
    );
    assert_eq!(e("if (x > 2) 10 else 20", &[("x", 3.0)]), 10.0);
    // numeric equations with arguments are expanded
    assert_eq!(
        t(
            "numeric sq(x) = x * x\nprocess main = delay(sq(3) + sq(1))",
            &[]
        ),
        10.0
    );
    // vector-free paper forms
    assert_eq!(
        t(
            "numeric parameter N\nprocess main = delay(sum (i = 1, N) { 10.1 })",
            &[("N", 10.0)]
        ),
        101.0
    );
}

fn simplified(s: &str) -> Expr {
    pamela::parse_expr(s).unwrap().simplified()
}

#[test]
fn simplifier_reduces_regular_sums_and_maxima() {
    // sums of constants and of index-linear terms
    assert_eq!(simplified("sum (i = 1, N) 3").to_string(), "N*3");
    let s = simplified("sum (i = 1, N) i");
    assert!(!s.has_reductions(), "{s}");
    assert_eq!(s.eval(&b(&[("N", 10.0)])).unwrap(), 55.0);
    let s = simplified("sum (i = 1, N) (2*i + 3)");
    assert!(!s.has_reductions(), "{s}");
    assert_eq!(s.eval(&b(&[("N", 10.0)])).unwrap(), 140.0);
    let s = simplified("sum (i = 1, N) i^2");
    assert!(!s.has_reductions(), "{s}");
    assert!((s.eval(&b(&[("N", 10.0)])).unwrap() - 385.0).abs() < 1e-9);
    // triangular loops
    let s = simplified("sum (i = 1, N) sum (j = i, N) t");
    assert!(!s.has_reductions(), "{s}");
    assert!((s.eval(&b(&[("N", 10.0), ("t", 2.0)])).unwrap() - 110.0).abs() < 1e-9);
    // max of identical terms and of monotone terms
    assert_eq!(
        simplified("max (p = 1, P) sum (i = 1, N) 10.1").to_string(),
        "N*10.1"
    );
    assert_eq!(simplified("max(a, a, b)").to_string(), "max(a, b)");
    assert_eq!(simplified("max(N*3, N*5)").to_string(), "N*5");
    let s = simplified("max (p = 0, P - 1) (N - p)");
    assert_eq!(s.to_string(), "N");
    // constant folding
    assert_eq!(simplified("2*3 + 4 - 10").to_string(), "0");
    assert_eq!(simplified("(P - 1 + 1)*x").to_string(), "P*x");
    // numeric ranges are exact
    assert_eq!(simplified("sum (i = 5, 4) x"), Expr::Num(0.0));
    assert_eq!(simplified("sum (i = 1, 4) x").to_string(), "x*4");
}

#[test]
fn nested_identical_bodies_compile_to_closed_forms() {
    let src = "numeric parameter A\nnumeric parameter B\nnumeric parameter C\nresource r = fcfs(0, 2)\n\
               process main = seq (i = 1, A) par (j = 1, B) seq (k = 1, C) { delay(1) ; use(r, 3) }";
    let m = pamela::parse(src).unwrap().compile().unwrap();
    assert!(!m.t_main().has_reductions(), "{}", m.t_main());
    // per parallel section: max(C*4, B*C*3/2)
    for (a, bb, c) in [(2.0, 1.0, 5.0), (3.0, 10.0, 2.0)] {
        let v = m.eval(&b(&[("A", a), ("B", bb), ("C", c)])).unwrap();
        assert_eq!(v, a * (c * 4.0).max(bb * c * 1.5));
    }
    // the evaluation cost does not grow with the bounds
    let start = std::time::Instant::now();
    let v = m.eval(&b(&[("A", 1e9), ("B", 1e9), ("C", 1e9)])).unwrap();
    assert!(start.elapsed() < std::time::Duration::from_millis(50));
    assert_eq!(v, 1e9 * (1e9f64 * 4.0).max(1e18 * 1.5));
}

#[test]
fn irregular_contention_falls_back_to_numeric_omega() {
    // the ring's link indices (p + k) mod P cannot be told apart symbolically
    let src = std::fs::read_to_string(format!(
        "{}/tests/pamela/ring.pam",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let m = pamela::parse(&src).unwrap().compile().unwrap();
    for p in [4.0, 8.0, 16.0] {
        let (tt, phi, omega) = m.eval_parts(&b(&[("P", p)])).unwrap();
        assert_eq!(phi, p * (p - 1.0) / 2.0);
        assert_eq!(
            omega,
            p * (p - 1.0) / 2.0,
            "every link carries P(P-1)/2 hops"
        );
        assert_eq!(tt, p * (p - 1.0) / 2.0);
    }
}

#[test]
fn resources_of_different_families_do_not_alias() {
    let src = "resource cpu(i) = fcfs(i, 1)\nresource mem(i) = fcfs(i, 1)\n\
               process main = use(cpu(0), 2) || use(mem(0), 3)";
    assert_eq!(t(src, &[]), 3.0);
    // the same family and index do
    let src = "resource cpu(i) = fcfs(i, 1)\nresource boss = cpu(0)\nprocess main = use(cpu(0), 2) || use(boss, 3)";
    assert_eq!(t(src, &[]), 5.0);
    // infinite server
    assert_eq!(t("process main = use(rho, 2) || use(rho, 3)", &[]), 3.0);
}

#[test]
fn set_fixes_parameters_and_overrides_numerics() {
    let src = std::fs::read_to_string(format!(
        "{}/tests/pamela/mrm.pam",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut p = pamela::parse(&src).unwrap();
    assert_eq!(p.parameters(), ["P", "N"]);
    p.set("P", 1000.0).unwrap();
    p.set("N", 1e6).unwrap();
    let m = p.compile().unwrap();
    assert!(m.parameters().is_empty());
    assert_eq!(m.t_main(), &Expr::Num(1e8), "the paper: T_main = 100000000");
    p.set("t_s", 1.0).unwrap();
    assert_eq!(p.compile().unwrap().eval(&Bindings::new()).unwrap(), 1e9);
    assert!(p.set("nope", 1.0).is_err());
    assert!(p.set("s", 1.0).is_err(), "a resource cannot be set");
}

#[test]
fn wait_signal_polynomial_task_graph() {
    // Example 3.1: the parallel polynomial evaluation, tau_m = 3, tau_a = 1
    let src = "numeric tm = 3\nnumeric ta = 1\n\
               process main = par (i = 1, 8) task(i)\n\
               task(i) = if (i == 1) { delay(tm) ; signal({c13, c14}) }\n\
                    else if (i == 2) { delay(tm) ; signal(c25) }\n\
                    else if (i == 3) { wait(c13) ; delay(tm) ; signal(c36) }\n\
                    else if (i == 4) { wait(c14) ; delay(tm) ; signal(c47) }\n\
                    else if (i == 5) { wait(c25) ; delay(ta) ; signal(c57) }\n\
                    else if (i == 6) { wait(c36) ; delay(tm) ; signal(c68) }\n\
                    else if (i == 7) { wait({c47, c57}) ; delay(ta) ; signal(c78) }\n\
                    else { wait({c68, c78}) ; delay(ta) }";
    // critical path: t1 -> t3 -> t6 -> t8 = 3 + 3 + 3 + 1
    assert_eq!(t(src, &[]), 10.0);
    // indexed conditions: a chain of N stages
    let src = "numeric parameter N\nprocess main = par (i = 1, N) { if (i > 1) wait(done(i - 1)) ; delay(2) ; signal(done(i)) }";
    assert_eq!(t(src, &[("N", 6.0)]), 12.0);
}

#[test]
fn equations_without_type_keywords() {
    // thesis notation: the kind of an equation follows from its right-hand side
    let src =
        "N = 3\nr(i) = fcfs(i, 1)\nw(i) = use(r(i), 2) ; delay(1)\nL2 = w(1) || w(1)\nmain = L2";
    // phi = 3, omega = 4 (two uses of r(1) for 2)
    assert_eq!(t(src, &[]), 4.0);
    let src =
        "main = L1 || L2\nL1 = delay(1) ; delay(2)\nL2 = delay(3) ; L3\nL3 = delay(4) || delay(5)";
    assert_eq!(t(src, &[]), 8.0);
}
