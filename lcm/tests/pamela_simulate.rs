//! Golden tests of the simulator against the seeds (thesis chapters 3.5-3.6, 5.4, 6.2).
use lcm::pamela::{self, Arbitration, Bindings, PamelaError, SimOptions, SimReport};

fn b(pairs: &[(&str, f64)]) -> Bindings {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn sim(src: &str, bind: &[(&str, f64)], runs: usize, seed: u64) -> SimReport {
    let p = pamela::parse(src).unwrap_or_else(|e| panic!("parse: {e}"));
    pamela::simulate(&p, &b(bind), &SimOptions { runs, seed })
        .unwrap_or_else(|e| panic!("simulate: {e}"))
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/pamela/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn delayed_contention_bound_3_simulated_4() {
    // thesis section 5.4.2: Eq. 3.14 gives 3, the event list gives 4 for every arbitration
    let r = sim(
        "resource r = fcfs(0,1)\nprocess main = {delay(1) ; use(r,2)} || {delay(2) ; use(r,1)}",
        &[],
        20,
        1,
    );
    assert_eq!(r.t_lower, 3.0);
    assert_eq!(r.mean, 4.0);
    assert_eq!(r.sd, 0.0);
    assert_eq!(r.samples, vec![4.0; 20]);
}

#[test]
fn crossed_resources_bound_100_simulated_by_arbitration() {
    // thesis section 6.2.1: T^l = 100; if L2 wins r1 the run takes T^u = 199. If L1 wins, the
    // run ends at 101 (L2's last unit on r2 follows L1's 99), which the thesis rounds to T^l.
    let src = "resource r1 = fcfs(0,1)\nresource r2 = fcfs(1,1)\n\
               process main = {use(r1,1) ; use(r2,99)} || {use(r1,99) ; use(r2,1)}";
    let r = sim(src, &[], 200, 5);
    assert_eq!(r.t_lower, 100.0);
    let mut outcomes: Vec<f64> = r.samples.clone();
    outcomes.sort_by(f64::total_cmp);
    outcomes.dedup();
    assert_eq!(
        outcomes,
        vec![101.0, 199.0],
        "both arbitrations occur, nothing else"
    );
    // random arbitration: each order about half the time
    let long = r.samples.iter().filter(|&&t| t == 199.0).count();
    assert!((60..=140).contains(&long), "{long} of 200 runs took 199");
}

#[test]
fn processor_sharing_removes_the_arbitration_variance() {
    // thesis section 5.4.2: FCFS gives 4 or 5 depending on arbitration, PS always 4
    let fcfs = sim(
        "resource r = fcfs(0,1)\nprocess main = {use(r,1) ; delay(2)} || {use(r,2) ; delay(1)}",
        &[],
        100,
        2,
    );
    let mut o = fcfs.samples.clone();
    o.sort_by(f64::total_cmp);
    o.dedup();
    assert_eq!(o, vec![4.0, 5.0]);
    let ps = sim(
        "resource r = ps(0,1)\nprocess main = {use(r,1) ; delay(2)} || {use(r,2) ; delay(1)}",
        &[],
        50,
        2,
    );
    for t in &ps.samples {
        assert!((t - 4.0).abs() < 1e-9, "PS run took {t}");
    }
}

#[test]
fn machine_repair_deterministic_equals_bound_far_from_saturation() {
    // t_l = 10, t_s = 1: saturation at P* = 11. Far below it, only the one-time skew of the
    // initial conflicts ((P-1)*t_s, Eq. 3.16) separates simulation and bound.
    let src = "numeric parameter P\nnumeric parameter N\nresource s = fcfs(0,1)\n\
               process main = par (p = 1, P) seq (i = 1, N) { delay(10) ; use(s, 1) }";
    for p in [1.0, 2.0, 3.0] {
        let n = 200.0;
        let r = sim(src, &[("P", p), ("N", n)], 3, 9);
        assert_eq!(r.t_lower, n * 11.0);
        assert_eq!(r.mean, n * 11.0 + (p - 1.0), "P={p}");
        assert!(r.ratio() > 0.999);
    }
    // far above saturation the bound P*N*t_s is again within the skew
    let r = sim(src, &[("P", 40.0), ("N", 200.0)], 3, 9);
    assert_eq!(r.t_lower, 8000.0);
    assert_eq!(r.mean, 8000.0 + 10.0, "omega + phi/N - t_s (Eq. 3.16)");
}

/// Exact mean value analysis of the closed machine repair network (thesis Example 3.7).
fn mva_cycle_time(p: usize, think: f64, service: f64) -> f64 {
    let mut queue = 0.0;
    let mut response = 0.0;
    for n in 1..=p {
        response = service * (1.0 + queue);
        queue = n as f64 / (think + response) * response;
    }
    response + think
}

#[test]
fn machine_repair_exponential_ratio_matches_mva_at_p11() {
    let src = "numeric parameter P\nnumeric parameter N\nnumeric t_l = 10\nnumeric t_s = 1\n\
               resource s = fcfs(0,1)\n\
               process main = par (p = 1, P) seq (i = 1, N) { delay(exp(t_l)) ; use(s, exp(t_s)) }";
    let (p, n) = (11.0, 2000.0);
    let r = sim(src, &[("P", p), ("N", n)], 8, 11);
    assert_eq!(r.t_lower, n * 11.0, "bound N*max(t_l + t_s, P*t_s)");
    let mva = n * 11.0 / (n * mva_cycle_time(11, 10.0, 1.0));
    assert!((mva - 0.84).abs() < 0.01, "MVA ratio {mva}");
    assert!(
        (r.ratio() - mva).abs() < 0.03,
        "simulated ratio {} vs MVA {mva}",
        r.ratio()
    );
    assert!((r.ratio() - 0.84).abs() < 0.03);
    assert!(r.sd > 0.0, "stochastic runs differ");
}

#[test]
fn pipeline_simulates_to_startup_plus_bandwidth() {
    // Example 3.8: T^l = max(M, N)*t, T = (M + N - 1)*t
    let src =
        "numeric parameter N\nnumeric parameter M\nnumeric t = 2\nresource u(m) = fcfs(m, 1)\n\
               process main = par (i = 1, N) seq (m = 1, M) use(u(m), t)";
    for (n, m) in [
        (1.0, 1.0),
        (4.0, 4.0),
        (8.0, 3.0),
        (3.0, 12.0),
        (50.0, 50.0),
    ] {
        let r = sim(src, &[("N", n), ("M", m)], 4, 3);
        assert_eq!(r.t_lower, n.max(m) * 2.0);
        assert_eq!(r.mean, (m + n - 1.0) * 2.0, "N={n} M={m}");
        assert_eq!(r.sd, 0.0);
    }
}

#[test]
fn generalized_machine_repair_matches_eq_3_16() {
    // Eq. 3.16: T = max(phi + P*tau*, omega + phi/N) - tau*, exact for deterministic times.
    let src = "numeric parameter P\nnumeric parameter N\nnumeric parameter tl\nnumeric M = 3\n\
               numeric tau(m) = if (m == 2) 3 else 1\nresource u(m) = fcfs(m, 1)\n\
               process main = par (p = 1, P) seq (i = 1, N) { delay(tl) ; seq (m = 1, M) use(u(m), tau(m)) }";
    for (p, n, tl) in [
        (2.0, 10.0, 5.0),
        (4.0, 10.0, 5.0),
        (10.0, 10.0, 5.0),
        (3.0, 1.0, 0.0),
        (8.0, 1.0, 0.0),
        (5.0, 20.0, 0.0),
    ] {
        let r = sim(src, &[("P", p), ("N", n), ("tl", tl)], 3, 4);
        let (phi, omega, tau) = (n * (tl + 5.0), p * n * 3.0, 3.0);
        let eq316 = (phi + p * tau).max(omega + phi / n) - tau;
        assert_eq!(r.mean, eq316, "P={p} N={n} tl={tl}");
        assert_eq!(r.t_lower, phi.max(omega), "the plain bound (Eq. 3.14)");
    }
}

#[test]
fn ring_matrix_vector_communication_table_6_2() {
    let src = fixture("ring.pam");
    let program = pamela::parse(&src).unwrap();
    let model = program.compile().unwrap();
    // Table 6.2: P, T^l, simulated T
    let table = [
        (4.0, 6.0, 9.0),
        (8.0, 28.0, 43.0),
        (16.0, 120.0, 207.0),
        (32.0, 496.0, 900.0),
        (64.0, 2016.0, 3822.0),
    ];
    for (p, tl, t) in table {
        let bind = b(&[("P", p)]);
        assert_eq!(model.eval(&bind).unwrap(), p * (p - 1.0) / 2.0);
        assert_eq!(tl, p * (p - 1.0) / 2.0);
        let runs = if p > 32.0 { 10 } else { 60 };
        let r = pamela::simulate(&program, &bind, &SimOptions { runs, seed: 17 }).unwrap();
        assert_eq!(r.t_lower, tl);
        // The thesis reports one run of its simulator; the mean over random arbitrations is
        // within 3% for P = 4, 16, 32, 64 and 4.5% for P = 8 (mean 44.9; 43 itself is one of
        // the outcomes), so the test takes the table value as within the sample range and
        // the mean within 3% (5% at P = 8).
        let tol = if p == 8.0 { 0.05 } else { 0.03 };
        assert!(
            (r.mean - t).abs() <= tol * t,
            "P={p}: mean {} vs table {t}",
            r.mean
        );
        let lo = r.samples.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = r.samples.iter().cloned().fold(0.0, f64::max);
        assert!(
            lo <= t * 1.03 && hi >= t * 0.97,
            "P={p}: table {t} outside [{lo}, {hi}]"
        );
    }
}

#[test]
fn fifo_arbitration_is_deterministic() {
    let src = fixture("ring.pam");
    let program = pamela::parse(&src).unwrap();
    let bind = b(&[("P", 16.0)]);
    let a = pamela::simulate_with(
        &program,
        &bind,
        &SimOptions { runs: 5, seed: 1 },
        Arbitration::Fifo,
        u64::MAX,
    )
    .unwrap();
    assert_eq!(a.sd, 0.0);
    let c = pamela::simulate_with(
        &program,
        &bind,
        &SimOptions { runs: 1, seed: 99 },
        Arbitration::Fifo,
        u64::MAX,
    )
    .unwrap();
    assert_eq!(a.mean, c.mean);
    assert!((a.mean - 207.0).abs() <= 0.03 * 207.0);
}

#[test]
fn same_seed_same_runs_different_seed_different_runs() {
    let src = "resource s = fcfs(0,1)\nprocess main = par (p = 1, 5) seq (i = 1, 20) { delay(exp(3)) ; use(s, uniform(0.5, 1.5)) }";
    let a = sim(src, &[], 4, 42);
    let a2 = sim(src, &[], 4, 42);
    let c = sim(src, &[], 4, 43);
    assert_eq!(a.samples, a2.samples);
    assert_ne!(a.samples, c.samples);
    assert!(
        a.samples.windows(2).any(|w| w[0] != w[1]),
        "replications differ"
    );
}

#[test]
fn exponential_and_uniform_delays_have_the_right_means() {
    let e = sim("process main = delay(exp(2))", &[], 4000, 7);
    assert!((e.mean - 2.0).abs() < 0.15, "exp mean {}", e.mean);
    assert!((e.sd - 2.0).abs() < 0.2, "exp sd {}", e.sd);
    assert_eq!(e.t_lower, 2.0, "the calculus uses the mean");
    let u = sim("process main = delay(uniform(1, 3))", &[], 4000, 7);
    assert!((u.mean - 2.0).abs() < 0.05, "uniform mean {}", u.mean);
    assert!((u.sd - (4.0f64 / 12.0).sqrt()).abs() < 0.05);
    assert!(u.samples.iter().all(|t| (1.0..=3.0).contains(t)));
    assert_eq!(u.t_lower, 2.0);
}

#[test]
fn multiplicity_and_multiset_acquisition() {
    // two servers: four unit jobs take 2
    let r = sim(
        "resource r = fcfs(0, 2)\nprocess main = par (i = 1, 4) use(r, 1)",
        &[],
        10,
        1,
    );
    assert_eq!((r.mean, r.t_lower), (2.0, 2.0));
    // each job needs both units at once: serialized
    let r = sim(
        "resource r = fcfs(0, 2)\nprocess main = par (i = 1, 4) use({r, r}, 1)",
        &[],
        10,
        1,
    );
    assert_eq!((r.mean, r.t_lower), (4.0, 4.0));
    // simultaneous possession of two resources (Eq. 3.17 in the bound)
    let r = sim(
        "resource a = fcfs(0,1)\nresource b = fcfs(1,1)\nprocess main = use({a, b}, 1) || use(a, 1) || use(b, 1)",
        &[],
        30,
        1,
    );
    assert_eq!(r.mean, 2.0);
    assert_eq!(r.t_lower, 2.0);
    // processor sharing with two servers: four unit jobs at rate 1/2 each end together at 2
    let r = sim(
        "resource r = ps(0, 2)\nprocess main = par (i = 1, 4) use(r, 1)",
        &[],
        3,
        1,
    );
    assert!((r.mean - 2.0).abs() < 1e-9);
}

#[test]
fn condition_synchronization_in_simulation_and_compilation() {
    // thesis section 3.2.2: T = 10
    let src = "process main = {delay(1) ; wait(c) ; delay(5)} || {delay(5) ; signal(c) ; delay(1)}";
    let r = sim(src, &[], 3, 1);
    assert_eq!(r.mean, 10.0);
    assert_eq!(r.t_lower, 10.0, "the time equations give the critical path");
    let m = pamela::parse(src).unwrap().compile().unwrap();
    assert_eq!(m.eval(&Bindings::new()).unwrap(), 10.0);
}

#[test]
fn deadlock_is_reported_not_hung() {
    let p = pamela::parse("process main = {wait(a) ; signal(b)} || {wait(b) ; signal(a)}").unwrap();
    match pamela::simulate(&p, &Bindings::new(), &SimOptions::default()) {
        Err(PamelaError::Deadlock {
            blocked, detail, ..
        }) => {
            assert_eq!(blocked, 2);
            assert!(detail.contains("wait("), "{detail}");
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
    let p = pamela::parse("process main = {wait(never) ; delay(1)} || delay(3)").unwrap();
    let e = pamela::simulate(&p, &Bindings::new(), &SimOptions::default()).unwrap_err();
    assert!(e.to_string().contains("deadlock at virtual time 3"), "{e}");
}

#[test]
fn event_limit_stops_large_simulations() {
    let p = pamela::parse("numeric parameter N\nprocess main = seq (i = 1, N) delay(1)").unwrap();
    let e =
        pamela::simulate_limited(&p, &b(&[("N", 1e7)]), &SimOptions::default(), 1000).unwrap_err();
    assert!(matches!(e, PamelaError::TooManyEvents { .. }), "{e}");
}

#[test]
fn missing_parameter_is_an_error() {
    let p = pamela::parse("numeric parameter N\nprocess main = seq (i = 1, N) delay(1)").unwrap();
    let e = pamela::simulate(&p, &Bindings::new(), &SimOptions::default()).unwrap_err();
    assert_eq!(e, PamelaError::Unbound { name: "N".into() });
}

#[test]
fn models_without_events_cannot_run_forever() {
    let p = pamela::parse("numeric parameter N\nprocess main = seq (i = 1, N) { }").unwrap();
    let e = pamela::simulate_limited(&p, &b(&[("N", 1e15)]), &SimOptions::default(), 10_000)
        .unwrap_err();
    assert!(matches!(e, PamelaError::TooManyEvents { .. }), "{e}");
    let p = pamela::parse("numeric parameter N\nprocess main = par (i = 1, N) delay(1)").unwrap();
    let e = pamela::simulate_limited(&p, &b(&[("N", 1e12)]), &SimOptions::default(), 10_000)
        .unwrap_err();
    assert!(matches!(e, PamelaError::TooManyEvents { .. }), "{e}");
}
