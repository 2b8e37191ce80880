//! The `pp` command line's files: the timeline (Chrome trace JSON) and the plot (SVG, or PNG
//! for a `.png` name), and `-` refused as either file's name.

mod common;

use std::process::Command;

use common::{fixture, pp, stderr};

#[test]
fn timeline_is_chrome_trace_json() {
    let dir = tempfile::tempdir().unwrap();
    let tl = dir.path().join("t.json");
    let o = pp(&[
        "--timeline",
        tl.to_str().unwrap(),
        "--all-tags",
        fixture("wasted_tasks.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let names: Vec<&str> = events.iter().filter_map(|e| e["name"].as_str()).collect();
    for want in [
        "Busy",
        "Wasted",
        "Idle",
        "probe",
        "task (wasted)",
        "processors",
        "thread_name",
    ] {
        assert!(names.contains(&want), "{want} missing in {names:?}");
    }
    // Wasted state time on thread 1 (tid 3) sums to its 6 ms task.
    let wasted_us: f64 = events
        .iter()
        .filter(|e| e["name"] == "Wasted" && e["tid"] == 3)
        .map(|e| e["dur"].as_f64().unwrap())
        .sum();
    assert!((wasted_us - 6000.0).abs() < 1e-6, "{wasted_us}");
}

#[test]
fn plot_writes_an_svg() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let o = pp(&[
        "--plot",
        svg.to_str().unwrap(),
        fixture("baseline_p1.pptrace").to_str().unwrap(),
        fixture("baseline_p2.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(text.matches("<rect").count() >= 6, "bars missing");
    // The text is there whatever fonts the machine has (the font is compiled in).
    assert!(
        text.contains("baseline_p1 p=1") && text.contains("baseline_p2 p=2"),
        "bar labels"
    );
    assert!(text.contains("li: load imbalance"), "legend");
    assert!(text.contains("lost cycles"), "title");
    assert!(text.contains("processor-"), "axis label");
}

/// `--plot NAME.png` writes a PNG image (a file named `.png` that held SVG text opened as a
/// broken image), as `lca --plot` does; the name's case does not matter.
#[test]
fn plot_named_png_writes_a_png() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("p.PNG");
    let o = pp(&[
        "--plot",
        png.to_str().unwrap(),
        fixture("baseline_p1.pptrace").to_str().unwrap(),
        fixture("baseline_p2.pptrace").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG file");
    // IHDR: width and height, big-endian, at bytes 16..24; the SVG's size for two bars.
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!(height, 480);
    assert!(width > 480, "{width}");
}

/// `-` is not taken as a file name for the timeline or the plot: the profile goes to the
/// standard output, so the command is refused (usage, exit 2) and no file named `-` is made.
#[test]
fn dash_is_refused_as_timeline_or_plot_file() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--timeline", "--plot"] {
        let o = Command::new(env!("CARGO_BIN_EXE_pp"))
            .current_dir(dir.path())
            .args([flag, "-", fixture("barrier.pptrace").to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("expected a file name"),
            "{}",
            stderr(&o)
        );
        assert!(
            !dir.path().join("-").exists(),
            "{flag} wrote a file named '-'"
        );
    }
}
