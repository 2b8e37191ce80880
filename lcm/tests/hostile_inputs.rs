//! Hostile inputs end with exit 1 (or 2 for a bad command line) and a one-line message,
//! within bounded time and memory: deep nesting, equations whose substitution grows
//! exponentially, NaN and infinite values, huge files, huge replications and grids.
//!
//! Every input is generated here (what it is and what it must give is said where it is
//! made). Each run of `lcm` is a child process under an address-space limit of
//! [`LIMIT_MB`] (`ulimit -v`: an allocation beyond it aborts the child, which fails the
//! test) and a wall-clock limit of [`TIME_LIMIT`] (the child is killed and the test fails).
//! A refused run also stays under 500 MiB resident. The limits are generous for a loaded
//! 2-core machine; before these bounds, every case here either aborted (stack overflow,
//! rc 134), ran out of memory, took minutes or printed a wrong number with exit 0.
#[path = "support/limited.rs"]
mod limited;
use limited::{lcm_limited, Run};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Address-space limit of each `lcm` run (the binary reserves a 256 MiB stack).
const LIMIT_MB: u64 = 2048;
/// Wall-clock limit of each run.
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// Runs `lcm args` under the limits; panics when the time limit passes.
fn lcm(dir: &Path, args: &[&str]) -> Run {
    lcm_limited(dir, args, LIMIT_MB, TIME_LIMIT)
}

/// Peak resident memory of a refused run.
const REFUSED_PEAK_MB: u64 = 500;

/// The run failed cleanly: exit `code`, a one-line message containing `needle`, under
/// [`REFUSED_PEAK_MB`] of resident memory.
fn assert_refused(r: &Run, code: i32, needle: &str) {
    assert!(
        r.peak_rss_mb < REFUSED_PEAK_MB,
        "peak resident {} MiB",
        r.peak_rss_mb
    );
    assert_eq!(r.code, code, "stderr: {}\nstdout: {}", r.stderr, r.stdout);
    assert!(
        r.stderr.contains(needle),
        "expected `{needle}` in: {}",
        r.stderr
    );
    assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr.len() < 1200,
        "a message of {} bytes",
        r.stderr.len()
    );
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const DEEP: usize = 10_000;

#[test]
fn deep_nesting_in_pamela_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 10 000 nested parentheses around a numeric, 10 000 nested braces around a process,
    // and a 100 000-long `/` chain (a left-deep tree): each beyond the parser's 256 levels.
    let paren = format!(
        "numeric t = {}1{}\nprocess main = delay(t)\n",
        "(".repeat(DEEP),
        ")".repeat(DEEP)
    );
    let brace = format!(
        "process main = {}delay(1){}\n",
        "{".repeat(DEEP),
        "}".repeat(DEEP)
    );
    let div = format!(
        "numeric t = 1{}\nprocess main = delay(t)\n",
        " / 1".repeat(100_000)
    );
    write(d, "paren.pam", &paren);
    write(d, "brace.pam", &brace);
    write(d, "div.pam", &div);
    for args in [
        &["pamela", "paren.pam"][..],
        &["pamela", "brace.pam"],
        &["simulate", "brace.pam"],
        &["pamela", "div.pam"],
    ] {
        let r = lcm(d, args);
        assert_refused(&r, 1, "at most 256 levels of nesting");
        assert!(
            r.stderr.contains(&format!("{}: line ", args[1])),
            "{}",
            r.stderr
        );
    }
    // Within the limit the same shapes compile and simulate.
    let ok = format!(
        "process main = {}delay(1){}\n",
        "{".repeat(200),
        "}".repeat(200)
    );
    write(d, "ok.pam", &ok);
    let r = lcm(d, &["pamela", "ok.pam"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.ends_with("T_main = 1\n"), "{}", r.stdout);
    let r = lcm(d, &["simulate", "ok.pam"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// `p_k = p_{k-1} ; p_{k-1}` for k = 1..levels: the normal form has 2^levels delays.
fn doubling_chain(levels: usize, op: &str) -> String {
    let mut s = String::from("process p0 = delay(1)\n");
    for k in 1..=levels {
        s += &format!("process p{k} = p{} {op} p{}\n", k - 1, k - 1);
    }
    s + &format!("process main = p{levels}\n")
}

#[test]
fn exponential_substitution_in_pamela_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 40 doubling levels: 2^40 delays (ran out of memory before).
    write(d, "seq40.pam", &doubling_chain(40, ";"));
    write(d, "par40.pam", &doubling_chain(40, "||"));
    // The same through numerics and through a formal parameter.
    let mut num = String::from("numeric a0 = 1\n");
    let mut arg = String::from("process f0(x) = delay(x)\n");
    for k in 1..=40 {
        num += &format!("numeric a{k} = a{} + a{}\n", k - 1, k - 1);
        arg += &format!("process f{k}(x) = f{}(x + x)\n", k - 1);
    }
    write(d, "num40.pam", &(num + "process main = delay(a40)\n"));
    write(d, "arg40.pam", &(arg + "process main = f40(1)\n"));
    for args in [
        &["pamela", "seq40.pam"][..],
        &["pamela", "par40.pam"],
        &["simulate", "seq40.pam"],
        &["pamela", "num40.pam"],
        &["pamela", "arg40.pam"],
    ] {
        let r = lcm(d, args);
        assert_refused(&r, 1, "the model's normal form exceeds 1000000 nodes");
        assert!(r.elapsed < Duration::from_secs(30), "{:?}", r.elapsed);
    }
    // 16 levels (65 536 delays) stay within the bound and give the exact time.
    write(d, "seq16.pam", &doubling_chain(16, ";"));
    let r = lcm(d, &["pamela", "seq16.pam"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.ends_with("T_main = 65536\n"), "{}", r.stdout);
}

#[test]
fn nan_and_infinite_values_are_errors_naming_what_is_not_finite() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mrm = format!("{}/tests/pamela/mrm.pam", env!("CARGO_MANIFEST_DIR"));
    // Printed `T_main = 10.1` with exit 0 before (max ignored the NaN).
    let r = lcm(d, &["pamela", &mrm, "--set", "P=nan", "--set", "N=1"]);
    assert_refused(&r, 1, "`P` = NaN: expected a finite number");
    let r = lcm(d, &["simulate", &mrm, "--set", "P=inf", "--set", "N=1"]);
    assert_refused(&r, 1, "`P` = inf: expected a finite number");
    // `numeric t = 0/0` printed `T_main = 0` with exit 0 before.
    write(d, "nan.pam", "numeric t = 0/0\nprocess main = delay(t)\n");
    let r = lcm(d, &["pamela", "nan.pam"]);
    assert_refused(&r, 1, "numeric `t` = 0/0 is NaN, expected a finite number");
    assert!(
        r.stderr.contains("nan.pam: line 1, column 1"),
        "{}",
        r.stderr
    );
    let r = lcm(d, &["simulate", "nan.pam"]);
    assert_refused(&r, 1, "numeric `t` = 0/0 is NaN");
    // A time model that divides by zero at the point asked for.
    write(
        d,
        "inf.pam",
        "numeric parameter P\nprocess main = delay(1/(P-1))\n",
    );
    let r = lcm(d, &["pamela", "inf.pam", "--grid", "P=1..3"]);
    assert_refused(&r, 1, "T_main = inf at P=1: expected a finite number");
    let r = lcm(d, &["pamela", "inf.pam", "--set", "P=3"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.ends_with("T_main = 0.5\n"), "{}", r.stdout);
}

#[test]
fn huge_files_are_refused_without_being_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A 2 GiB sparse file (no disk blocks): `lcm pamela` grew to 10.5 GB on it before.
    let f = std::fs::File::create(d.join("huge")).unwrap();
    f.set_len(2 << 30).unwrap();
    for args in [
        &["pamela", "huge"][..],
        &["simulate", "huge"],
        &["tree", "huge"],
        &["predict", "huge"],
    ] {
        let r = lcm(d, args);
        assert_refused(&r, 1, "expected at most 16 MiB of text");
        assert!(r.elapsed < Duration::from_secs(20), "{:?}", r.elapsed);
    }
}

#[test]
fn simulating_a_billion_processes_is_an_error_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // `par (p = 1, P)` with P = 1e9: tried to allocate 7 GB and aborted before.
    write(
        d,
        "wide.pam",
        "numeric parameter P\nprocess main = par (p = 1, P) delay(1)\n",
    );
    let r = lcm(d, &["simulate", "wide.pam", "--set", "P=1e9"]);
    assert_refused(&r, 1, "more than the simulator holds at once (1048576)");
    let r = lcm(d, &["simulate", "wide.pam", "--set", "P=1000"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("simulated: T=1 "), "{}", r.stdout);
}

#[test]
fn grids_say_how_many_points_are_too_many() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mrm = format!("{}/tests/pamela/mrm.pam", env!("CARGO_MANIFEST_DIR"));
    let fft = format!("{}/tests/predict/fft_dp.rs", env!("CARGO_MANIFEST_DIR"));
    // Said only "expects NAME=A..B" before.
    let r = lcm(
        d,
        &["pamela", &mrm, "--set", "N=1", "--grid", "P=1..100000000"],
    );
    assert_refused(&r, 2, "has 100000000 points, more than the 1000000");
    let r = lcm(
        d,
        &["predict", &fft, "--set", "n=64", "--grid", "p=1..100000000"],
    );
    assert_refused(&r, 2, "gives 100000000 values, more than the 100000");
    let r = lcm(d, &["predict", &fft, "--grid", "n=1..1000,p=1..1000"]);
    assert_refused(&r, 2, "the grid has 1000000 points, more than 100000");
    // 30 000 points: the speedup column was quadratic (about a minute here); now linear.
    let r = lcm(
        d,
        &["predict", &fft, "--set", "n=64", "--grid", "p=1..30000"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 30_002);
    assert!(r.elapsed < Duration::from_secs(20), "{:?}", r.elapsed);
}

#[test]
fn deep_rust_sources_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 10 000 nested parentheses, 10 000 nested blocks, a 100 000-term sum and 100 000
    // unary minus signs: each overflowed syn's or lcm's stack before.
    let sources = [
        (
            "paren.rs",
            format!(
                "fn main() {{\n    let x = {}1{};\n}}\n",
                "(".repeat(DEEP),
                ")".repeat(DEEP)
            ),
        ),
        (
            "brace.rs",
            format!("fn main() {}{}\n", "{".repeat(DEEP), "}".repeat(DEEP)),
        ),
        (
            "sum.rs",
            format!(
                "fn main() {{\n    let x = 1{};\n}}\n",
                " + 1".repeat(100_000)
            ),
        ),
        (
            "neg.rs",
            format!("fn main() {{\n    let x = {}1;\n}}\n", "-".repeat(100_000)),
        ),
    ];
    for (name, text) in &sources {
        write(d, name, text);
        for args in [
            &["tree", name][..],
            &["predict", name, "--set", "p=1"],
            &["compare", name, name, "--set", "p=1"],
        ] {
            let r = lcm(d, args);
            assert_refused(&r, 1, "at most 1000 levels of nesting");
            assert!(r.stderr.contains(&format!("{name}:")), "{}", r.stderr);
        }
    }
    // 100 000 lock guards, one per statement: each holds the rest of the block.
    let locks = format!(
        "fn main() {{\n{}}}\n",
        "    let g = m.lock();\n".repeat(100_000)
    );
    write(d, "locks.rs", &locks);
    let r = lcm(d, &["tree", "locks.rs"]);
    assert_refused(&r, 1, "nest deeper than 2000 levels");
    // Just within the limit: parsed and recognized.
    let ok = format!(
        "fn main() {{\n    let x = {}1{};\n}}\n",
        "(".repeat(900),
        ")".repeat(900)
    );
    write(d, "ok.rs", &ok);
    let r = lcm(d, &["tree", "ok.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn functions_calling_each_other_twice_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // f_k calls f_{k-1} twice, 22 levels: 4 million fragment instances (62 s and 15.7 GB
    // before).
    let chain = |levels: usize| {
        let mut s = String::from(
            "fn f0(a: &mut [f64]) {\n    // lcm: fragment f0\n    // lcm: rt = 1e-9*n\n    \
             a.iter_mut().for_each(|x| *x += 1.0);\n}\n",
        );
        for k in 1..=levels {
            s += &format!(
                "fn f{k}(a: &mut [f64]) {{\n    f{0}(a);\n    f{0}(a);\n}}\n",
                k - 1
            );
        }
        s + &format!("fn main() {{\n    let mut a = vec![0.0; 8];\n    f{levels}(&mut a);\n}}\n")
    };
    write(d, "chain22.rs", &chain(22));
    let r = lcm(
        d,
        &["predict", "chain22.rs", "--set", "n=1", "--set", "p=1"],
    );
    assert_refused(&r, 1, "exceeds 100000 expressions with every call followed");
    assert!(r.elapsed < Duration::from_secs(30), "{:?}", r.elapsed);
    // 8 levels: 256 instances of f0, 256 ns.
    write(d, "chain8.rs", &chain(8));
    let r = lcm(d, &["predict", "chain8.rs", "--set", "n=1", "--set", "p=1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.trim_end().ends_with("predicted: T=0.000000256"),
        "{}",
        r.stdout
    );
}

#[test]
fn messages_quote_at_most_a_short_piece_of_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A 10 MiB undefined name: the message named it whole before.
    write(
        d,
        "name.pam",
        &format!("process main = delay({})\n", "y".repeat(10 << 20)),
    );
    let r = lcm(d, &["pamela", "name.pam"]);
    assert_refused(&r, 1, "undefined name `yyy");
    assert!(r.stderr.contains("more bytes)"), "{}", r.stderr);
}
