//! Extra-P interoperability through the `lca` binary: reading the text and JSON Lines
//! fixtures of tests/data/extrap (README there says how they were made and what they must
//! give), `--format`, `--emit extrap` round trips, and file:line:column errors.

#[path = "support/run.rs"]
mod run;
use run::lca;

fn model_lines(file: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "model",
        "-f",
        file,
        "-v",
        "n,p",
        "--tag",
        "cols",
        "--emit",
        "annotation",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = lca(&args);
    assert_eq!(code, 0, "{file}: {err}");
    out
}

#[test]
fn text_and_jsonl_fixtures_give_the_same_models() {
    let text = model_lines("tests/data/extrap/cols.txt", &[]);
    let m = lca::annotation::parse_models(&text).unwrap();
    assert_eq!(m[0].name, "cols");
    let rt = m[0].category("rt").unwrap().to_string();
    let li = m[0].category("li").unwrap().to_string();
    assert!(rt.ends_with("*n^2*log2(n)"), "{text}");
    assert!(li.ends_with("*n^2*log2(p)"), "{text}");
    assert_eq!(m[0].ranges[0].to_string(), "n = 64..1024");
    let jsonl = model_lines("tests/data/extrap/cols.jsonl", &[]);
    assert_eq!(jsonl, text);
    // Named formats give the same as detection.
    assert_eq!(
        model_lines("tests/data/extrap/cols.txt", &["--format", "extrap-text"]),
        text
    );
    assert_eq!(
        model_lines(
            "tests/data/extrap/cols.jsonl",
            &["--format", "extrap-jsonl"]
        ),
        text
    );
    // 25 points x 2 repetitions.
    let (code, out, _) = lca(&[
        "model",
        "-f",
        "tests/data/extrap/cols.txt",
        "-v",
        "n,p",
        "--tag",
        "cols",
        "--json",
    ]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["rows"].as_array().unwrap().len(), 50);
}

#[test]
fn emit_extrap_round_trips_through_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    // fft.pp: profile records of fragment `cols` and session records (see its header).
    let (code, jsonl, err) = lca(&[
        "model",
        "-f",
        "tests/data/fft.pp",
        "-v",
        "n,p",
        "--all-tags",
        "--emit",
        "extrap",
    ]);
    assert_eq!(code, 0, "{err}");
    for line in jsonl.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(
            v["params"]["n"].is_number() && v["params"]["p"].is_number(),
            "{line}"
        );
        assert!(v["value"].is_number() && v["metric"].is_string(), "{line}");
    }
    assert!(jsonl.contains(r#""callpath":"cols""#));
    assert!(
        jsonl.lines().any(|l| !l.contains("callpath")),
        "session records"
    );
    assert!(
        jsonl.contains(r#""metric":"time""#),
        "tt/p is written as time"
    );
    let path = dir.path().join("fft.jsonl");
    std::fs::write(&path, &jsonl).unwrap();
    let strip = |s: String| -> String {
        s.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let direct = lca(&[
        "model",
        "-f",
        "tests/data/fft.pp",
        "-v",
        "n,p",
        "--all-tags",
        "--emit",
        "annotation",
    ]);
    let via = lca(&[
        "model",
        "-f",
        path.to_str().unwrap(),
        "-v",
        "n,p",
        "--all-tags",
        "--emit",
        "annotation",
    ]);
    assert_eq!(via.0, 0, "{}", via.2);
    assert_eq!(strip(via.1), strip(direct.1));
    // One fragment only.
    let (code, one, _) = lca(&[
        "model",
        "-f",
        "tests/data/fft.pp",
        "-v",
        "n,p",
        "--tag",
        "cols",
        "--emit",
        "extrap",
    ]);
    assert_eq!(code, 0);
    assert!(one.lines().all(|l| l.contains(r#""callpath":"cols""#)));
    // --emit extrap belongs to `lca model`.
    let (code, _, _) = lca(&[
        "-c",
        "rt",
        "-v",
        "n,p",
        "-f",
        "tests/data/fft.pp",
        "--tag",
        "cols",
        "--emit",
        "extrap",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn bad_extrap_input_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "bad.txt",
            "PARAMETER n\nPOINTS 1 2\nDATA 1 x\n",
            "bad.txt:3:8:",
        ),
        (
            "bad2.txt",
            "PARAMETER n p\nPOINTS ( 1 2 ) ( 3 )\n",
            "bad2.txt:2:16:",
        ),
        (
            "bad.jsonl",
            "{\"params\":{\"n\":1},\"value\":1}\n{\"params\":{\"n\":2},\"value\":}\n",
            "bad.jsonl:2:27:",
        ),
    ];
    for (name, text, want) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (code, out, err) = lca(&["model", "-f", path.to_str().unwrap(), "-v", "n"]);
        assert_eq!(code, 1, "{err}");
        assert!(out.is_empty());
        assert!(err.contains(want), "{name}: {err}");
    }
    // A records file read as Extra-P text is bad input, not a crash.
    let (code, _, err) = lca(&[
        "model",
        "-f",
        "tests/data/fft.pp",
        "-v",
        "n,p",
        "--format",
        "extrap-text",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("fft.pp:7:1: expected PARAMETER"), "{err}");
    // An unknown format is a usage error.
    assert_eq!(
        lca(&[
            "model",
            "-f",
            "tests/data/fft.pp",
            "-v",
            "n",
            "--format",
            "csv"
        ])
        .0,
        2
    );
}
