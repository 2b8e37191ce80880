//! The `lca` binary: the human table (snapshot), exit codes and messages for bad input.

#[path = "support/run.rs"]
mod run;
use run::lca;
use std::process::Command;

/// Runs `lca` with the whitespace-separated words of `line` as its arguments.
fn lca_words(line: &str) -> (i32, String, String) {
    lca(&line.split_whitespace().collect::<Vec<_>>())
}

#[test]
fn figure_5_2_table() {
    let (code, out, err) = lca_words("-c li -v p -f tests/data/runfast.pp -x d=32");
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out);
}

#[test]
fn emit_annotation_and_json() {
    let (code, out, _) =
        lca_words("-c ip -v p -f tests/data/runfast.pp --auto --emit annotation --tag session");
    // --tag selects tag=session records: there are none in this file (bad input).
    assert_eq!(code, 1);
    assert!(out.is_empty());
    let (code, out, err) = lca_words("-c ip -v p -f tests/data/runfast.pp --auto --json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sel = j["selected"].as_u64().unwrap() as usize;
    // --auto is the fitting policy of `lca model`: ip vanishes at p = 1 and is fitted on
    // p > 1 (15 observations); its order is the policy's, the first selected.
    assert_eq!(j["models"][sel]["model"], "0.002*(p - 1)");
    assert_eq!(j["order"], "policy");
    assert_eq!(j["points"], 15);
    assert_eq!(sel, 0);
    let model = lca_words("model -f tests/data/runfast.pp -v p --json").1;
    let model: serde_json::Value = serde_json::from_str(&model).unwrap();
    let ip = model["categories"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == "ip")
        .unwrap();
    assert_eq!(
        ip["model"], j["models"][sel]["model"],
        "one policy for both"
    );
    // A formula given with --auto is weighed beside the policy's candidates and listed.
    let (code, out, err) = lca_words("-c ip -v p -f tests/data/runfast.pp --auto --json p^3");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let models = j["models"].as_array().unwrap();
    assert!(models.iter().any(|m| m["form"] == "p^3"), "{out}");
    assert_eq!(j["models"][0]["model"], "0.002*(p - 1)");
}

#[test]
fn model_subcommand() {
    let (code, out, err) = lca_words("model -f tests/data/runfast.pp -v p");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Mean relative error"), "{out}");
    let (code, out, _) = lca_words("model -f tests/data/runfast.pp -v p --emit annotation");
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
    assert_eq!(lca_words("-v p -f tests/data/runfast.pp").0, 2);
    assert_eq!(
        lca(&["-c", "li", "-v", "p", "-f", "tests/data/runfast.pp", "p +"]).0,
        2
    );
    assert_eq!(lca_words("-c li -v p -f tests/data/runfast.pp -x p").0, 2);
    assert_eq!(lca_words("--frobnicate").0, 2);
    let (code, out, _) = lca_words("--help");
    assert_eq!(code, 0);
    assert!(out.contains("Examples:"));
}

#[test]
fn model_of_a_two_variable_fragment() {
    // Fixture tests/data/fft.pp: see its header for how it was made and what it must give.
    let (code, out, err) =
        lca_words("model -f tests/data/fft.pp -v n,p --tag cols --emit annotation");
    assert_eq!(code, 0, "{err}");
    let m = lca::annotation::parse_models(&out).unwrap();
    assert_eq!(m[0].name, "cols");
    let text = |c: &str| m[0].category(c).unwrap().to_string();
    assert!(text("rt").ends_with("*n^2*log2(n)"), "{out}");
    assert!(text("li").ends_with("*n^2*log2(p)"), "{out}");
    assert_eq!(text("ip"), "3.3e-5*(p - 1)");
    let (code, out, _) = lca_words("model -f tests/data/fft.pp -v n,p --tag cols --json");
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(j["mean_relative_error"].as_f64().unwrap() < 0.02);
    assert_eq!(j["rows"].as_array().unwrap().len(), 25);
    // Without --tag the session records (no tag) are modeled, not mixed with `cols`.
    let (code, out, _) = lca_words("model -f tests/data/fft.pp -v n,p --emit annotation");
    assert_eq!(code, 0);
    assert!(out.contains("// lcm: rt = 0.001*p"), "{out}");
}

#[test]
fn plots_are_written() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["li.svg", "li.png"] {
        let path = dir.path().join(name);
        let (code, _, err) = lca(&[
            "-c",
            "li",
            "-v",
            "p",
            "-f",
            "tests/data/runfast.pp",
            "-g",
            path.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(std::fs::metadata(&path).unwrap().len() > 1000, "{name}");
    }
    let path = dir.path().join("li2.svg");
    let (code, _, err) = lca(&[
        "-c",
        "li",
        "-v",
        "n,p",
        "-f",
        "tests/data/fft.pp",
        "--tag",
        "cols",
        "--auto",
        "-g",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg"));
    // The text does not depend on the machine's fonts (the font is compiled in).
    for text in ["li vs n", "residual", "1: "] {
        assert!(svg.contains(text), "{text} missing from the plot");
    }
    for name in ["p.svg", "p.png"] {
        let path = dir.path().join(name);
        let out = Command::new(env!("CARGO_BIN_EXE_lca"))
            .args([
                "-c",
                "li",
                "-v",
                "p",
                "-f",
                "tests/data/runfast.pp",
                "-g",
                path.to_str().unwrap(),
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(std::fs::metadata(&path).unwrap().len() > 500, "{name}");
    }
}

#[test]
fn forms_file_option() {
    let dir = tempfile::tempdir().unwrap();
    let forms = dir.path().join("my.forms");
    std::fs::write(
        &forms,
        "# mine\nli p k1*p^2 + k2\nli p max(k1*p + k2, k3)\n",
    )
    .unwrap();
    let (code, out, err) = lca(&[
        "-c",
        "li",
        "-v",
        "p",
        "-f",
        "tests/data/runfast.pp",
        "--forms",
        forms.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let forms_seen: Vec<&str> = j["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["form"].as_str().unwrap())
        .collect();
    assert_eq!(forms_seen.len(), 2, "{forms_seen:?}");
    assert!(forms_seen.contains(&"max(k1*p + k2, k3)"));
    std::fs::write(&forms, "li p k1*p^\n").unwrap();
    let (code, _, err) = lca(&[
        "-c",
        "li",
        "-v",
        "p",
        "-f",
        "tests/data/runfast.pp",
        "--forms",
        forms.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("my.forms: line 1:"), "{err}");
}

#[test]
fn zero_at_option() {
    // ip = 0.002*(p - 1) exactly in the fixture: constrained, no constant is fitted.
    let (code, out, err) =
        lca_words("-c ip -v p -f tests/data/runfast.pp --auto --zero-at p=1 --json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sel = j["selected"].as_u64().unwrap() as usize;
    assert_eq!(j["models"][sel]["model"], "0.002*(p - 1)");
    assert_eq!(j["models"][sel]["selected"], true);
    assert_eq!(j["zero_at"], "p=1");
    let (code, out, err) = lca_words("-c ip -v p -f tests/data/runfast.pp --auto --zero-at p=1");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Zero at: p=1"), "{out}");
    assert!(out.contains("*(p - 1)  "), "{out}");
    assert!(out.contains("Selected: ip = 0.002*(p - 1)"), "{out}");
    for bad in ["q=1", "p", "p=x"] {
        let (code, _, err) = lca(&[
            "-c",
            "ip",
            "-v",
            "p",
            "-f",
            "tests/data/runfast.pp",
            "--auto",
            "--zero-at",
            bad,
        ]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--zero-at: expected"), "{err}");
    }
}

#[test]
fn formulae_on_the_command_line_replace_the_default_forms() {
    // runfast.pp: li over p (Crovella's Figure 5.2); the defaults fit several forms.
    let (code, defaults, err) = lca_words("-c li -v p -f tests/data/runfast.pp --json");
    assert_eq!(code, 0, "{err}");
    let defaults: serde_json::Value = serde_json::from_str(&defaults).unwrap();
    assert!(defaults["models"].as_array().unwrap().len() > 1);
    let (code, out, err) = lca(&[
        "-c",
        "li",
        "-v",
        "p",
        "-f",
        "tests/data/runfast.pp",
        "--json",
        "p*sqrt(p)",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let models = v["models"].as_array().unwrap();
    assert_eq!(models.len(), 1, "only the given formula: {out}");
    // A forms file and formulae together: which one counts would be a guess.
    let (code, _, _) = lca(&[
        "-c",
        "li",
        "-v",
        "p",
        "-f",
        "tests/data/runfast.pp",
        "--forms",
        "tests/data/runfast.pp",
        "p",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn a_tag_without_records_lists_the_tags_there_are() {
    let (code, _, err) = lca_words("-c li -v n,p -f tests/data/fft.pp --tag nope --auto");
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("the file's records have tags: (session), cols"),
        "{err}"
    );
}
