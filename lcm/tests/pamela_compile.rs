//! Golden tests of the compile-time calculus (thesis chapter 3.4-3.6, compiler paper 2.2).
use lcm::pamela::{self, Bindings, Expr};

fn b(pairs: &[(&str, f64)]) -> Bindings {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn compile(src: &str) -> pamela::CompiledModel {
    pamela::parse(src)
        .unwrap_or_else(|e| panic!("parse: {e}"))
        .compile()
        .unwrap_or_else(|e| panic!("compile: {e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn machine_repair_compiles_to_the_papers_closed_form() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pamela/mrm.pam"))
        .unwrap();
    let m = compile(&src);
    let t = m.t_main();
    assert!(!t.has_reductions(), "T_main still has reductions: {t}");
    assert_eq!(m.parameters(), ["N", "P"]);
    let expected = pamela::parse_expr("max(N*10.1, P*N*0.1)").unwrap();
    for (p, n) in [
        (1.0, 1.0),
        (10.0, 7.0),
        (101.0, 3.0),
        (1000.0, 1e6),
        (3.0, 0.0),
    ] {
        let bb = b(&[("P", p), ("N", n)]);
        assert!(
            close(m.eval(&bb).unwrap(), expected.eval(&bb).unwrap()),
            "P={p} N={n}: {t}"
        );
    }
    // printed form is the paper's
    assert_eq!(t.to_string(), "max(N*10.1, P*N*0.1)");
    assert_eq!(m.phi().to_string(), "N*10.1");
    assert_eq!(m.omega().to_string(), "P*N*0.1");
}

#[test]
fn machine_repair_evaluates_instantly_at_huge_parameters() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/pamela/mrm.pam"))
        .unwrap();
    let m = compile(&src);
    let bb = b(&[("P", 1000.0), ("N", 1e6)]);
    let start = std::time::Instant::now();
    let mut v = 0.0;
    for _ in 0..1000 {
        v = m.eval(&bb).unwrap();
    }
    let per_eval = start.elapsed() / 1000;
    assert!(close(v, 1e8), "T_main = {v}");
    // an unsimplified model would loop 10^9 times; the closed form takes microseconds
    assert!(
        per_eval < std::time::Duration::from_millis(20),
        "{per_eval:?} per evaluation"
    );
}

#[test]
fn example_3_10_recursive_rule_gives_n_p_t() {
    let m = compile(
        "numeric parameter N\nnumeric parameter P\nnumeric parameter t\n\
         resource r(i) = fcfs(i, 1)\n\
         process main = seq (i = 1, N) par (p = 1, P) use(r(i), t)",
    );
    assert!(!m.t_main().has_reductions(), "{}", m.t_main());
    for (n, p, t) in [(1.0, 1.0, 1.0), (5.0, 3.0, 2.0), (10.0, 100.0, 0.5)] {
        let v = m.eval(&b(&[("N", n), ("P", p), ("t", t)])).unwrap();
        assert!(
            close(v, n * p * t),
            "N={n} P={p} t={t}: {v} from {}",
            m.t_main()
        );
    }
    // the non-recursive bound max(phi, omega) would be max(N*t, P*t): the recursion is sharper
    let (_, phi, omega) = m
        .eval_parts(&b(&[("N", 10.0), ("P", 10.0), ("t", 1.0)]))
        .unwrap();
    assert!(close(phi.max(omega), 10.0));
}

#[test]
fn pipeline_bound_is_max_m_n_times_t() {
    let m = compile(
        "numeric parameter N\nnumeric parameter M\nnumeric parameter t\n\
         resource u(m) = fcfs(m, 1)\n\
         process main = par (i = 1, N) seq (m = 1, M) use(u(m), t)",
    );
    assert!(!m.t_main().has_reductions(), "{}", m.t_main());
    for (n, mm) in [(1.0, 1.0), (4.0, 4.0), (3.0, 10.0), (100.0, 5.0)] {
        let v = m.eval(&b(&[("N", n), ("M", mm), ("t", 2.0)])).unwrap();
        assert!(
            close(v, n.max(mm) * 2.0),
            "N={n} M={mm}: {v} from {}",
            m.t_main()
        );
    }
}

#[test]
fn two_processes_one_resource_bound_is_3() {
    let m = compile(
        "resource r = fcfs(0, 1)\nprocess main = {delay(1) ; use(r,2)} || {delay(2) ; use(r,1)}",
    );
    assert_eq!(m.eval(&Bindings::new()).unwrap(), 3.0);
}

#[test]
fn crossed_resources_bound_is_100() {
    let m = compile(
        "resource r1 = fcfs(0, 1)\nresource r2 = fcfs(1, 1)\n\
         process main = {use(r1,1) ; use(r2,99)} || {use(r1,99) ; use(r2,1)}",
    );
    assert_eq!(m.eval(&Bindings::new()).unwrap(), 100.0);
    assert_eq!(m.t_main(), &Expr::Num(100.0));
}
