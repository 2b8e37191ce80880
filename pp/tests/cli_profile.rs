//! The `pp` command line's profile: the table and its diagnosis, `--json` and its documented
//! fields, the per-thread and histogram views, and the warnings on stderr.

mod common;

use common::{fixture, pp, stderr, stdout};

#[test]
fn default_table_and_diagnosis() {
    let o = pp(&[fixture("design_example.pptrace").to_str().unwrap()]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("Load Imbalance"), "{out}");
    assert!(
        out.contains("primary loss: insufficient parallelism, 17% of processor time (serial code)")
    );
}

#[test]
fn negative_memory_loss_is_explained() {
    // The p = 2 run as the "baseline" of the p = 1 run: rt 0.012 s against 0.015 s, so
    // ml = -0.003 s; the table says what that means (and pp warns that the baseline's p is 2).
    let o = pp(&[
        "--baseline",
        fixture("baseline_p2.pptrace").to_str().unwrap(),
        fixture("baseline_p1.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("memory loss < 0"), "{}", stdout(&o));
    assert!(stderr(&o).contains("baseline has p = 2"), "{}", stderr(&o));
}

#[test]
fn json_has_the_documented_fields() {
    let o = pp(&[
        "--json",
        "--histograms",
        "--all-tags",
        fixture("wasted_tasks.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let log = &v["logs"][0];
    assert_eq!(log["processors"], 2);
    let session = &log["profiles"][0];
    assert!(session["tag"].is_null());
    assert_eq!(session["wc"], 0.007);
    assert_eq!(session["tt"], 0.016);
    assert!(
        session.get("pc").is_none(),
        "unmeasured categories are absent"
    );
    assert_eq!(session["durations"]["tasks"]["count"], 3);
    assert_eq!(
        session["record"],
        "p=2 li=0.001 fj=0 ip=0.002 sl=0 wc=0.007 rt=0.006 tt=0.016"
    );
    assert!(session["diagnosis"]
        .as_str()
        .unwrap()
        .starts_with("primary loss: wasted computation"));
    assert_eq!(log["profiles"][1]["tag"], "probe");
    assert_eq!(session["threads"].as_array().unwrap().len(), 2);
    assert_eq!(session["fj"], 0.0);
    assert_eq!(log["thread_counts"]["appeared"], 2);
    assert_eq!(log["thread_counts"]["ran_tasks"], 2);
    assert_eq!(log["disturbed"], false);
}

#[test]
fn fork_join_latency_in_json_records_and_table() {
    let path = fixture("join_delay.pptrace");
    let o = pp(&["--json", path.to_str().unwrap()]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let session = &v["logs"][0]["profiles"][0];
    assert_eq!(session["li"], 0.008);
    assert_eq!(session["fj"], 0.006);
    assert_eq!(
        session["record"],
        "p=2 li=0.008 fj=0.006 ip=0.001 sl=0 wc=0 rt=0.011 tt=0.02"
    );
    let diagnosis = session["diagnosis"].as_str().unwrap();
    assert!(
        diagnosis.starts_with(
            "primary loss: load imbalance, 40% of processor time: fork/join latency 30%"
        ),
        "{diagnosis}"
    );
    let o = pp(&[path.to_str().unwrap()]);
    let table = stdout(&o);
    let li = table
        .lines()
        .position(|l| l.starts_with("Load Imbalance"))
        .unwrap();
    assert!(
        table
            .lines()
            .nth(li + 1)
            .unwrap()
            .starts_with("  Fork/Join Latency"),
        "{table}"
    );
}

#[test]
fn set_up_and_disturbance_warnings_on_stderr_and_in_json() {
    let o = pp(&[fixture("serial_only.pptrace").to_str().unwrap()]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("only 1 thread(s) appeared but p = 2"),
        "{}",
        stderr(&o)
    );
    let o = pp(&["--json", fixture("disturbed.pptrace").to_str().unwrap()]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("the run was disturbed"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let log = &v["logs"][0];
    assert_eq!(log["disturbed"], true);
    assert_eq!(log["warnings"].as_array().unwrap().len(), 2);
    assert_eq!(log["profiles"][0]["os"], 0.001);
    assert_eq!(log["profiles"][0]["nivcsw"], 4.0);
}

#[test]
fn per_thread_and_histograms_views() {
    let o = pp(&[
        "--per-thread",
        "--histograms",
        fixture("barrier.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("thread"), "{out}");
    assert!(out.contains("p50 ms"), "{out}");
}

#[test]
fn miss_latency_without_counters_says_so() {
    // fragments.pptrace has no counters: the latency has nothing to multiply.
    let o = pp(&[
        "--miss-latency",
        "100",
        fixture("fragments.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--miss-latency has nothing to multiply"),
        "{}",
        stderr(&o)
    );
    // counters.pptrace has llc_misses: without a latency pp says how to get cl ...
    let counters = fixture("counters.pptrace");
    let o = pp(&[counters.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("give --miss-latency NS"),
        "{}",
        stderr(&o)
    );
    // ... and with one it computes cl and says nothing about it.
    let o = pp(&["--miss-latency", "100", counters.to_str().unwrap()]);
    assert!(!stderr(&o).contains("miss-latency"), "{}", stderr(&o));
    assert!(stdout(&o).contains("Communication Loss"), "{}", stdout(&o));
}
