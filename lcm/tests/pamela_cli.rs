//! `lcm pamela` and `lcm simulate` output formats and exit codes.
use std::process::Command;

fn fixture(name: &str) -> String {
    format!("{}/tests/pamela/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn lcm(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lcm"))
        .args(args)
        .output()
        .expect("lcm runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn last_line(s: &str) -> &str {
    s.trim_end().lines().last().unwrap_or("")
}

#[test]
fn pamela_prints_symbolic_t_main() {
    let (code, out, err) = lcm(&["pamela", &fixture("mrm.pam")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("phi = N*10.1\n"), "{out}");
    assert!(out.contains("omega = P*N*0.1\n"), "{out}");
    assert_eq!(last_line(&out), "T_main = max(N*10.1, P*N*0.1)");
}

#[test]
fn pamela_prints_the_value_when_everything_is_set() {
    let (code, out, err) = lcm(&[
        "pamela",
        &fixture("mrm.pam"),
        "--set",
        "P=1000",
        "--set",
        "N=1000000",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(last_line(&out), "T_main = 100000000");
    // partially set: the rest stays symbolic
    let (_, out, _) = lcm(&["pamela", &fixture("mrm.pam"), "--set", "N=10"]);
    assert_eq!(last_line(&out), "T_main = max(P, 101)");
}

#[test]
fn pamela_grid_table_and_json() {
    let (code, out, err) = lcm(&[
        "pamela",
        &fixture("pipeline.pam"),
        "--grid",
        "N=1..4",
        "--grid",
        "M=2,8",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 8);
    let head: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(head, ["N", "M", "phi", "omega", "t_main"]);
    let row: Vec<&str> = lines[8].split_whitespace().collect();
    assert_eq!(row, ["4", "8", "8", "4", "8"]);
    let (code, out, _) = lcm(&[
        "pamela",
        &fixture("pipeline.pam"),
        "--grid",
        "N=1..10:3",
        "--set",
        "M=5",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["columns"],
        serde_json::json!(["N", "phi", "omega", "t_main"])
    );
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[3], serde_json::json!([10.0, 5.0, 10.0, 10.0]));
}

#[test]
fn pamela_json_single_model() {
    let (code, out, _) = lcm(&["pamela", &fixture("mrm.pam"), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["t_main"], "max(N*10.1, P*N*0.1)");
    assert_eq!(v["unset"], serde_json::json!(["N", "P"]));
    assert!(v["value"].is_null());
    let (_, out, _) = lcm(&["pamela", &fixture("contention.pam"), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["value"], 3.0);
}

#[test]
fn simulate_with_the_run_time_library_order_gives_table_6_2() {
    // thesis Table 6.2, P = 8: the run-time library's order simulates T = 43
    let (code, out, err) = lcm(&[
        "simulate",
        &fixture("ring.pam"),
        "--set",
        "P=8",
        "--arbitration",
        "fifo",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        last_line(&out),
        "simulated: T=43 sd=0 runs=1 T_lower=28 ratio=0.65116279"
    );
}

#[test]
fn simulate_last_line_format() {
    let (code, out, err) = lcm(&[
        "simulate",
        &fixture("contention.pam"),
        "--runs",
        "3",
        "--seed",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        last_line(&out),
        "simulated: T=4 sd=0 runs=3 T_lower=3 ratio=0.75"
    );
    let (code, out, _) = lcm(&[
        "simulate",
        &fixture("pipeline.pam"),
        "--set",
        "N=8",
        "--set",
        "M=8",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        last_line(&out),
        "simulated: T=15 sd=0 runs=1 T_lower=8 ratio=0.53333333"
    );
    let (_, out, _) = lcm(&[
        "simulate",
        &fixture("pipeline.pam"),
        "--set",
        "N=4",
        "--set",
        "M=4",
        "--json",
        "--runs",
        "2",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["mean"], 7.0);
    assert_eq!(v["samples"], serde_json::json!([7.0, 7.0]));
    assert_eq!(v["t_lower"], 4.0);
}

#[test]
fn bad_input_exits_1_with_file_line_and_column() {
    let f = fixture("bad_syntax.pam");
    let (code, out, err) = lcm(&["pamela", &f]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains(&format!(
            "{f}: line 4, column 23: expected `,` between resource and time, found number `2`"
        )),
        "{err}"
    );
    let (code, _, err) = lcm(&["simulate", &fixture("deadlock.pam")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("deadlock") && err.contains("2 process(es) blocked"),
        "{err}"
    );
    let (code, _, err) = lcm(&["simulate", &fixture("pipeline.pam"), "--set", "N=3"]);
    assert_eq!(code, 1);
    assert!(err.contains("no value for parameter `M`"), "{err}");
    let (code, _, err) = lcm(&["pamela", &fixture("mrm.pam"), "--set", "Q=3"]);
    assert_eq!(code, 1);
    assert!(err.contains("no numeric `Q`"), "{err}");
    let (code, _, _) = lcm(&["pamela", "/nonexistent/model.pam"]);
    assert_eq!(code, 1);
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = lcm(&["pamela", &fixture("mrm.pam"), "--set", "P"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = lcm(&["pamela", &fixture("mrm.pam"), "--grid", "P=5..1"]);
    assert_eq!(code, 2);
    let (code, _, _) = lcm(&["simulate", &fixture("contention.pam"), "--runs", "0"]);
    assert_eq!(code, 2);
    let (code, _, _) = lcm(&["simulate"]);
    assert_eq!(code, 2);
}

#[test]
fn help_has_examples() {
    let (code, out, _) = lcm(&["pamela", "--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("Examples:") && out.contains("--grid P=1..64"),
        "{out}"
    );
    let (_, out, _) = lcm(&["simulate", "--help"]);
    assert!(
        out.contains("simulated: T=MEAN sd=SD runs=K T_lower=TL ratio=R"),
        "{out}"
    );
}

#[test]
fn normal_form_listing_substitutes_every_equation() {
    let (code, out, err) = lcm(&["pamela", &fixture("mrm.pam"), "--normal-form"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("numeric parameter P\nnumeric parameter N\nprocess main = par (p = 1, P) seq (i = 1, N) {\n  delay(10) ;\n  use(s(0), 0.1)\n}\n"), "{out}");
    assert_eq!(last_line(&out), "T_main = max(N*10.1, P*N*0.1)");
}
