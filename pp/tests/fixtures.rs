//! Every `.pptrace` fixture in `tests/fixtures/` carries its hand-computed expectations in
//! comments; this test computes each profile and compares every category, and checks the
//! invariant `li + ip + sl + wc + rt = tt` on every profile of every fixture.
//!
//! Comment lines understood:
//! - `# options: all-tags | tag=NAME | miss-latency=NS | baseline=FILE | histograms`
//! - `# expect: key=value ...` — the session profile; the keys listed must be exactly the
//!   categories present (values in seconds).
//! - `# expect tag=NAME: key=value ...` — the profile of fragment NAME.
//! - `# expect thread=N: li= ip= sl= wc= rt=` — thread N's row of the session profile.
//! - `# expect unattributed: li= ip=` — idle processor-time no present thread took.
//! - `# expect counters: nivcsw= nivcsw_busy= llc_misses=` — counts of the session profile
//!   (the keys listed must be exactly those present).
//! - `# expect recording: events= event_cost_ns= cost_s= share_of_tt=` — what the recording
//!   cost (a trace with an `event_cost_ns` line); without it, the cost must be unknown.
//! - `# expect recording thread=N: events= cost_s= share_of_elapsed=` — thread N's part.
//! - `# warning: TEXT` — some warning contains TEXT; a fixture without one has no warning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pp::recording::CostSource;
use pp::{analyze, Analysis, Category, Options, Profile, TagSelection};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture_paths() -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pptrace"))
        .collect();
    v.sort();
    v
}

#[derive(Default)]
struct Spec {
    options: Options,
    baseline: Option<PathBuf>,
    session: Option<BTreeMap<String, f64>>,
    tags: Vec<(String, BTreeMap<String, f64>)>,
    threads: Vec<(u32, BTreeMap<String, f64>)>,
    unattributed: Option<BTreeMap<String, f64>>,
    counters: Option<BTreeMap<String, f64>>,
    recording: Option<BTreeMap<String, f64>>,
    recording_threads: Vec<(u32, BTreeMap<String, f64>)>,
    warnings: Vec<String>,
}

fn values(text: &str) -> BTreeMap<String, f64> {
    text.split_whitespace()
        .map(|tok| {
            let (k, v) = tok
                .split_once('=')
                .unwrap_or_else(|| panic!("bad token {tok}"));
            (
                k.to_owned(),
                v.parse().unwrap_or_else(|_| panic!("bad value {tok}")),
            )
        })
        .collect()
}

fn spec(path: &Path) -> Spec {
    let text = std::fs::read_to_string(path).unwrap();
    let mut s = Spec::default();
    for line in text.lines() {
        let Some(c) = line.strip_prefix('#') else {
            continue;
        };
        let c = c.trim();
        if let Some(rest) = c.strip_prefix("options:") {
            for opt in rest.split_whitespace() {
                match opt.split_once('=') {
                    None if opt == "all-tags" => s.options.tags = TagSelection::All,
                    None if opt == "histograms" => s.options.histograms = true,
                    Some(("tag", t)) => s.options.tags = TagSelection::One(t.to_owned()),
                    Some(("miss-latency", v)) => {
                        s.options.miss_latency_ns = Some(v.parse().unwrap())
                    }
                    Some(("baseline", f)) => s.baseline = Some(fixtures_dir().join(f)),
                    _ => panic!("{}: unknown option {opt}", path.display()),
                }
            }
        } else if let Some(rest) = c.strip_prefix("expect:") {
            s.session = Some(values(rest));
        } else if let Some(rest) = c.strip_prefix("expect tag=") {
            let (name, vals) = rest.split_once(':').unwrap();
            s.tags.push((name.to_owned(), values(vals)));
        } else if let Some(rest) = c.strip_prefix("expect thread=") {
            let (id, vals) = rest.split_once(':').unwrap();
            s.threads.push((id.parse().unwrap(), values(vals)));
        } else if let Some(rest) = c.strip_prefix("expect counters:") {
            s.counters = Some(values(rest));
        } else if let Some(rest) = c.strip_prefix("expect recording thread=") {
            let (id, vals) = rest.split_once(':').unwrap();
            s.recording_threads
                .push((id.parse().unwrap(), values(vals)));
        } else if let Some(rest) = c.strip_prefix("expect recording:") {
            s.recording = Some(values(rest));
        } else if let Some(rest) = c.strip_prefix("expect unattributed:") {
            s.unattributed = Some(values(rest));
        } else if let Some(rest) = c.strip_prefix("warning:") {
            s.warnings.push(rest.trim().to_owned());
        }
    }
    s
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= 1e-9 * expected.abs().max(1e-6)
}

fn check_profile(name: &str, prof: &Profile, expected: &BTreeMap<String, f64>) -> Vec<String> {
    let mut errors = Vec::new();
    let present: Vec<String> = prof
        .categories()
        .iter()
        .map(|(c, _)| c.key().to_owned())
        .collect();
    let listed: Vec<String> = Category::ALL
        .iter()
        .map(|c| c.key().to_owned())
        .filter(|k| expected.contains_key(k))
        .collect();
    if present != listed {
        errors.push(format!(
            "{name}: categories present {present:?}, expected {listed:?}"
        ));
    }
    for (k, &v) in expected {
        let c = Category::from_key(k).unwrap_or_else(|| panic!("unknown key {k}"));
        match prof.get(c) {
            Some(a) if close(a, v) => {}
            other => errors.push(format!("{name}: {k} = {other:?}, expected {v}")),
        }
    }
    errors
}

fn analyze_fixture(path: &Path) -> (Spec, Analysis) {
    let s = spec(path);
    let mut a = analyze(path, &s.options).unwrap_or_else(|e| panic!("{e}"));
    if let Some(b) = &s.baseline {
        let base = analyze(b, &s.options).unwrap();
        a.apply_baseline(&base);
    }
    (s, a)
}

#[test]
fn at_least_twelve_fixtures_with_expectations() {
    let with_expect = fixture_paths()
        .iter()
        .filter(|p| spec(p).session.is_some())
        .count();
    assert!(
        with_expect >= 12,
        "only {with_expect} fixtures with expectations"
    );
}

#[test]
fn every_fixture_gives_its_hand_computed_profile() {
    let mut errors = Vec::new();
    for path in fixture_paths() {
        let (s, a) = analyze_fixture(&path);
        let f = path.file_name().unwrap().to_string_lossy().into_owned();
        let session = s
            .session
            .as_ref()
            .unwrap_or_else(|| panic!("{f}: no `# expect:` line"));
        errors.extend(check_profile(&format!("{f} session"), a.session(), session));
        for (tag, exp) in &s.tags {
            match a.tag(tag) {
                Some(p) => errors.extend(check_profile(&format!("{f} tag {tag}"), p, exp)),
                None => errors.push(format!("{f}: no profile for tag {tag}")),
            }
        }
        for (id, exp) in &s.threads {
            let Some(row) = a.session().threads.iter().find(|t| t.thread == *id) else {
                errors.push(format!("{f}: no thread {id}"));
                continue;
            };
            let got = [
                ("li", row.li),
                ("ip", row.ip),
                ("sl", row.sl),
                ("wc", row.wc),
                ("rt", row.rt),
            ];
            for (k, v) in got {
                let e = exp[k];
                if !close(v, e) {
                    errors.push(format!("{f} thread {id}: {k} = {v}, expected {e}"));
                }
            }
        }
        if let Some(exp) = &s.unattributed {
            let (li, ip) = a.session().unattributed;
            if !close(li, exp["li"]) || !close(ip, exp["ip"]) {
                errors.push(format!(
                    "{f}: unattributed = ({li}, {ip}), expected {exp:?}"
                ));
            }
        }
        let session = a.session();
        let counts = [
            ("nivcsw", session.nivcsw),
            ("nivcsw_busy", session.nivcsw_busy),
            ("llc_misses", session.llc_misses),
        ];
        let no_counts = BTreeMap::new();
        let expected_counts = s.counters.as_ref().unwrap_or(&no_counts);
        for (k, v) in counts {
            match (v, expected_counts.get(k)) {
                (None, None) => {}
                (Some(v), Some(&e)) if close(v, e) => {}
                (v, e) => errors.push(format!("{f}: {k} = {v:?}, expected {e:?}")),
            }
        }
        errors.extend(check_recording(&f, &s, &a));
        for w in &s.warnings {
            if !a.warnings.iter().any(|x| x.contains(w.as_str())) {
                errors.push(format!(
                    "{f}: no warning containing {w:?} in {:?}",
                    a.warnings
                ));
            }
        }
        if s.warnings.is_empty() && !a.warnings.is_empty() {
            errors.push(format!("{f}: unexpected warnings {:?}", a.warnings));
        }
    }
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
}

/// The recording cost against the fixture's `expect recording` lines; without them, an
/// unknown cost (the events still counted).
fn check_recording(f: &str, s: &Spec, a: &Analysis) -> Vec<String> {
    let r = &a.recording;
    let mut errors = Vec::new();
    if r.events != a.events {
        errors.push(format!(
            "{f}: recording counts {} events of {}",
            r.events, a.events
        ));
    }
    let Some(exp) = &s.recording else {
        if r.source != CostSource::Unknown || r.event_cost_ns.is_some() {
            errors.push(format!(
                "{f}: a recording cost without `expect recording`: {r:?}"
            ));
        }
        return errors;
    };
    let got = [
        ("events", Some(r.events as f64)),
        ("event_cost_ns", r.event_cost_ns),
        ("cost_s", r.cost_s),
        ("share_of_tt", r.share_of_tt),
    ];
    for (k, v) in got {
        match (v, exp.get(k)) {
            (Some(v), Some(&e)) if close(v, e) => {}
            (v, e) => errors.push(format!("{f}: recording {k} = {v:?}, expected {e:?}")),
        }
    }
    for (id, exp) in &s.recording_threads {
        let Some(t) = r.threads.iter().find(|t| t.thread == *id) else {
            errors.push(format!("{f}: no recording row for thread {id}"));
            continue;
        };
        let got = [
            ("events", Some(t.events as f64)),
            ("cost_s", t.cost_s),
            ("share_of_elapsed", t.share_of_elapsed),
        ];
        for (k, v) in got {
            match (v, exp.get(k)) {
                (Some(v), Some(&e)) if close(v, e) => {}
                (v, e) => errors.push(format!(
                    "{f}: thread {id} recording {k} = {v:?}, expected {e:?}"
                )),
            }
        }
    }
    errors
}

#[test]
fn invariant_holds_on_every_profile_of_every_fixture() {
    for path in fixture_paths() {
        let (_, a) = analyze_fixture(&path);
        for p in &a.profiles {
            assert!(
                p.fj >= 0.0 && p.fj <= p.li,
                "{}: {}: fj = {} is not a part of li = {}",
                path.display(),
                p.window_name(),
                p.fj,
                p.li
            );
            assert!(
                p.invariant_error() <= 1e-9,
                "{}: {}: li+ip+sl+wc+rt = {} but tt = {}",
                path.display(),
                p.window_name(),
                p.li + p.ip + p.sl + p.wc + p.rt,
                p.tt
            );
            // The per-thread rows plus the unattributed idle time add up to the profile.
            let sum: f64 = p
                .threads
                .iter()
                .map(|t| t.li + t.ip + t.sl + t.wc + t.rt)
                .sum::<f64>()
                + p.unattributed.0
                + p.unattributed.1;
            assert!(
                (sum - p.tt).abs() <= 1e-9 * p.tt.max(1e-9),
                "{}: {}: threads sum to {sum}, tt = {}",
                path.display(),
                p.window_name(),
                p.tt
            );
        }
    }
}

#[test]
fn sequential_and_threaded_decoding_give_the_same_profiles() {
    for path in fixture_paths() {
        let s = spec(&path);
        let threaded = analyze(&path, &s.options).unwrap();
        let sequential = analyze(
            &path,
            &Options {
                sequential: true,
                ..s.options.clone()
            },
        )
        .unwrap();
        assert_eq!(threaded.profiles, sequential.profiles, "{}", path.display());
        assert_eq!(threaded.warnings, sequential.warnings, "{}", path.display());
    }
}

#[test]
fn fragment_executions_count_the_intervals_of_the_union() {
    // fragments.pptrace: outer, inner and y run once; x runs on thread 0 at 2..3 and on
    // thread 1 at 5..8 (two intervals).
    let (_, a) = analyze_fixture(&fixtures_dir().join("fragments.pptrace"));
    assert_eq!(a.session().executions, None);
    let runs = |t: &str| a.tag(t).and_then(|p| p.executions);
    assert_eq!(runs("outer"), Some(1));
    assert_eq!(runs("inner"), Some(1));
    assert_eq!(runs("x"), Some(2));
    assert_eq!(runs("y"), Some(1));
    // Executions that overlap on two threads count once; three in sequence count three.
    let text = "pptrace 1\nprocessors 2\n\
        0 0 session_begin\n0 0 par_begin\n0 0 task_begin\n0 1 task_begin\n\
        0 0 frag_begin f\n1000 1 frag_begin f\n2000 0 frag_end f\n3000 1 frag_end f\n\
        4000 0 frag_begin f\n5000 0 frag_end f\n6000 0 frag_begin f\n7000 0 frag_end f\n\
        8000 1 task_end\n8000 0 task_end\n8000 0 par_end\n8000 0 session_end\n";
    let a = pp::analyze_bytes(text.as_bytes().to_vec(), "t.pptrace", &Options::all_tags())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(a.tag("f").and_then(|p| p.executions), Some(3));
}
