//! Hostile inputs end with exit 1 (bad input) or 2 (bad command line) and a short message,
//! within bounded time and memory. Every input is generated here; each run of `lca` is a
//! child under an address-space limit of [`LIMIT_MB`] (`ulimit -v`: an allocation beyond
//! it aborts the child and fails the test) and a wall-clock limit of [`TIME_LIMIT`].
//! Before these bounds, the deep formula aborted with a stack overflow (rc 134), the huge
//! file grew lca to 6.3 GB, and `--auto --forms /nonexistent` exited 0 silently.
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LIMIT_MB: u64 = 1024;
const TIME_LIMIT: Duration = Duration::from_secs(60);

struct Run {
    code: i32,
    stderr: String,
    elapsed: Duration,
}

fn lca(dir: &Path, args: &[&str]) -> Run {
    let err_path = dir.join("stderr.txt");
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {}; exec \"$0\" \"$@\"", LIMIT_MB * 1024))
        .arg(env!("CARGO_BIN_EXE_lca"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("sh runs");
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > TIME_LIMIT {
            child.kill().ok();
            child.wait().ok();
            panic!("lca {args:?} ran past {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stderr: std::fs::read_to_string(err_path).unwrap(),
        elapsed: start.elapsed(),
    }
}

fn data() -> String {
    format!("{}/tests/data/runfast.pp", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn deep_formulae_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // 10 000 nested parentheses; a 30 000-term sum (a tree as deep as it is long).
    let paren = format!("{}p{}", "(".repeat(10_000), ")".repeat(10_000));
    let sum = format!("p{}", " + p".repeat(30_000));
    for formula in [paren, sum] {
        let r = lca(
            dir.path(),
            &["-c", "li", "-v", "p", "-f", &data(), &formula],
        );
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(
            r.stderr.contains("expected at most 500 levels of nesting"),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn huge_data_files_are_refused_without_being_read() {
    let dir = tempfile::tempdir().unwrap();
    // A 2 GiB sparse file of NUL bytes, one "line": lca grew to 6.3 GB and wrote a 2 GB
    // error message before.
    let f = std::fs::File::create(dir.path().join("huge.pp")).unwrap();
    f.set_len(2 << 30).unwrap();
    let r = lca(dir.path(), &["-c", "li", "-v", "p", "-f", "huge.pp"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("huge.pp: cannot read: expected at most 32 MiB of text"),
        "{}",
        r.stderr
    );
    assert!(r.elapsed < Duration::from_secs(20), "{:?}", r.elapsed);
    // One 8 MiB token: the message quotes its first 60 characters only.
    std::fs::write(dir.path().join("token.pp"), "x".repeat(8 << 20)).unwrap();
    let r = lca(dir.path(), &["-c", "li", "-v", "p", "-f", "token.pp"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.len() < 300,
        "a message of {} bytes",
        r.stderr.len()
    );
    // A forms file whose one form is a 1.5 MB sum: the message quoted it whole before.
    let form = format!("li p k1*p{}\n", "+k1*p".repeat(300_000));
    std::fs::write(dir.path().join("big.forms"), form).unwrap();
    let r = lca(
        dir.path(),
        &["-c", "li", "-v", "p", "-f", &data(), "--forms", "big.forms"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("levels of nesting"), "{}", r.stderr);
    assert!(
        r.stderr.len() < 600,
        "a message of {} bytes",
        r.stderr.len()
    );
}

#[test]
fn forms_with_auto_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    // Exited 0 and ignored the forms file before.
    let r = lca(
        dir.path(),
        &[
            "-c",
            "li",
            "-v",
            "p",
            "-f",
            &data(),
            "--auto",
            "--forms",
            "/nonexistent",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--forms"), "{}", r.stderr);
    // Without --auto, a missing forms file is bad input naming it.
    let r = lca(
        dir.path(),
        &[
            "-c",
            "li",
            "-v",
            "p",
            "-f",
            &data(),
            "--forms",
            "/nonexistent",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("/nonexistent: cannot read"),
        "{}",
        r.stderr
    );
}
