//! The `lca` binary: the human table (snapshot), exit codes and messages for bad input.

use std::process::Command;

fn lca(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lca"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn figure_5_2_table() {
    let (code, out, err) = lca(&[
        "-c",
        "li",
        "-v",
        "p",
        "-f",
        "tests/data/runfast.pp",
        "-x",
        "d=32",
    ]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn emit_annotation_and_json() {
    let (code, out, _) = lca(&[
        "-c",
        "ip",
        "-v",
        "p",
        "-f",
        "tests/data/runfast.pp",
        "--auto",
        "--emit",
        "annotation",
        "--tag",
        "session",
    ]);
    // --tag selects tag=session records: there are none in this file (bad input).
    assert_eq!(code, 1);
    assert!(out.is_empty());
    let (code, out, err) = lca(&[
        "-c",
        "ip",
        "-v",
        "p",
        "-f",
        "tests/data/runfast.pp",
        "--auto",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["models"][0]["model"], "0.002*p - 0.002");
}

#[test]
fn model_subcommand() {
    let (code, out, err) = lca(&["model", "-f", "tests/data/runfast.pp", "-v", "p"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Mean relative error"), "{out}");
    let (code, out, _) = lca(&[
        "model",
        "-f",
        "tests/data/runfast.pp",
        "-v",
        "p",
        "--emit",
        "annotation",
    ]);
    assert_eq!(code, 0);
    let m = lca::annotation::parse_models(&out).unwrap();
    assert_eq!(m[0].name, "session");
    assert!(m[0].category("ip").is_some());
}

#[test]
fn bad_input_exits_1_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.pp");
    std::fs::write(&f, "p=1 li=0.1\np=2 li=abc\n").unwrap();
    let (code, _, err) = lca(&["-c", "li", "-v", "p", "-f", f.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.pp: line 2: `li`: expected a finite number, found `abc`"),
        "{err}"
    );
    std::fs::write(&f, "p=1 li=0.1\np=2 li=inf\n").unwrap();
    let (code, _, err) = lca(&["-c", "li", "-v", "p", "-f", f.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("line 2"), "{err}");
    std::fs::write(&f, "p=1 li=0.1\np=2 li 3\n").unwrap();
    let (code, _, err) = lca(&["-c", "li", "-v", "p", "-f", f.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("line 2, column 5"), "{err}");
    // Too few points for every form.
    std::fs::write(&f, "p=1 li=0.1\n").unwrap();
    let (code, _, err) = lca(&["-c", "li", "-v", "p", "-f", f.to_str().unwrap(), "p^2 + p"]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(lca(&["-v", "p", "-f", "tests/data/runfast.pp"]).0, 2);
    assert_eq!(
        lca(&["-c", "li", "-v", "p", "-f", "tests/data/runfast.pp", "p +"]).0,
        2
    );
    assert_eq!(
        lca(&[
            "-c",
            "li",
            "-v",
            "p",
            "-f",
            "tests/data/runfast.pp",
            "-x",
            "p"
        ])
        .0,
        2
    );
    assert_eq!(lca(&["--frobnicate"]).0, 2);
    let (code, out, _) = lca(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("Examples:"));
}
