//! pp's campaign runner over a real pplib program: the `histogram` binary over a 2 x 2 grid
//! (n = 65536, 131072; p = 1, 2), two quiet repetitions each, timed by the program's own
//! `time_s=`. The records must read back in lca, one per profile and counted repetition,
//! with pc and ml from the p = 1 run of the same size, and fit as `lca model` fits them.

use pp::campaign::{self, Campaign, CommandTemplate, ExecRunner, Grid, Repeats};
use std::time::Duration;

#[test]
fn histogram_over_a_two_by_two_grid_gives_records_lca_reads() {
    let dir = tempfile::tempdir().unwrap();
    let grid = Grid::parse(&["n=65536,131072".to_string()], "1..2").unwrap();
    let words: Vec<String> = [
        env!("CARGO_BIN_EXE_histogram"),
        "--impl",
        "locked",
        "-n",
        "{n}",
        "-p",
        "{p}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut repeats = Repeats::new(2);
    repeats.wait = Duration::from_millis(200);
    let c = Campaign {
        runner: ExecRunner {
            template: CommandTemplate::parse(&words, &grid).unwrap(),
            time_key: Some("time_s".into()),
        },
        grid,
        repeats,
        wait_budget: Duration::from_secs(2),
        note: vec!["impl=locked".into()],
        logs: dir.path().join("logs"),
        keep_logs: false,
        per_execution: None,
    };
    let mut rounds = 0;
    let out = campaign::run(&c, &mut |r| rounds = r).unwrap();
    assert!((2..=6).contains(&rounds), "{rounds} rounds");
    assert_eq!(out.points.len(), 4);
    assert!(!dir.path().join("logs").exists(), "logs removed");
    let text = out.records.lines.join("\n");
    let records = lca::record::parse_records(&text).unwrap();
    let counted: usize = out.times.iter().map(|t| t.counted().len()).sum();
    // The session and the `fill` fragment of every counted repetition.
    assert_eq!(records.len(), 2 * counted, "{text}");
    for t in &out.times {
        // Two quiet repetitions, or (on a loaded machine, after the last round) the quiet
        // ones there were, or all of them when none was quiet.
        let n = t.counted().len();
        assert!(
            n >= 2 || (n >= 1 && rounds == 6),
            "{n} counted after {rounds} rounds"
        );
        assert!(t.kept().seconds > 0.0 && t.kept().seconds < 5.0);
    }
    for r in &records {
        assert_eq!(r.get("impl"), Some("locked"));
        let p = r.number("p").unwrap();
        let run_s = r.number("run_s").unwrap();
        assert!(run_s > 0.0 && run_s < 5.0, "line {}", r.line());
        assert!(r.number("rep").is_ok());
        let (pc, ml, rt) = (
            r.number("pc").unwrap(),
            r.number("ml").unwrap(),
            r.number("rt").unwrap(),
        );
        assert!(
            (pc + ml - rt).abs() <= 1e-9 * rt.max(1.0),
            "line {}",
            r.line()
        );
        if p == 1.0 {
            assert_eq!(ml, 0.0, "a p = 1 run is its own baseline");
        }
    }
    // What `lca model -v n,p --tag fill` reads: every configuration of the fragment.
    let vars = vec!["n".to_string(), "p".to_string()];
    let x = lca::extraction::Extraction::parse("tag=fill").unwrap();
    let data = lca::dataset::Dataset::from_records(&records, "campaign", "rt", &vars, &x).unwrap();
    assert_eq!(data.distinct_points(), 4);
}
