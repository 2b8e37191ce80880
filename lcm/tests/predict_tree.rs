//! `lcm tree` snapshots on sources shaped like Crovella's Figure 6.1 (task-parallel 2D FFT:
//! two parallel sections pipelined through a channel, Figure 6.3's structure) and Figure 6.7
//! (data-parallel 2D FFT: four parallel loops in sequence, each fragment in a followed
//! helper). Fixtures: tests/predict/fft_tp.rs and fft_dp.rs (their headers say what they are);
//! snapshots: tests/predict/snapshots (review changes with `cargo insta review`).

use lcm::predict::program::structure;
use lcm::predict::tree::{render, NodeKind};
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/predict")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn tree(name: &str) -> (String, lcm::predict::tree::Node, Vec<lcm::predict::Warning>) {
    let (root, warnings) = structure(name, &fixture(name), "main", None).unwrap();
    (render(&root, name), root, warnings)
}

#[test]
fn tree_of_task_parallel_fft_like_figure_6_3() {
    let (text, root, warnings) = tree("fft_tp.rs");
    assert!(warnings.is_empty(), "{warnings:?}");
    // Figure 6.3: a serial root whose parallel node holds the two sections; here the sections
    // are linked by a channel and recognized as a two-stage pipeline.
    let NodeKind::Parallel { .. } = &root.children[1].kind else {
        panic!("expected the parallel node second: {text}")
    };
    assert!(matches!(
        root.children[1].children[0].kind,
        NodeKind::Pipeline { .. }
    ));
    insta::with_settings!({snapshot_path => "predict/snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("tree_fft_tp", text);
    });
}

#[test]
fn tree_of_data_parallel_fft_like_figure_6_8() {
    let (text, root, warnings) = tree("fft_dp.rs");
    assert!(warnings.is_empty(), "{warnings:?}");
    let names: Vec<&str> = root.fragments().iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["setup", "init", "cols", "transpose", "rows"]);
    insta::with_settings!({snapshot_path => "predict/snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("tree_fft_dp", text);
    });
}
