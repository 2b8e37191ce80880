//! The FFT study's replay: dp measured, tp predicted, with tp's stage table against the
//! fragment times the study measured in tp and the replay at half and double of each key
//! of the host's machine file.

use super::replayed::{replay, report_end, Program16};
use super::{check, example_source, Bounds, Day};
use crate::replay::bindings;
use crate::replay::fft::{fft_table, measured_fragments};
use crate::replay::points::Point;
use crate::replay::read;
use crate::replay::sensitivity::{knob_table, knobs, run_knobs};
use lca::expr::Bindings;
use lcm::predict::machine::Machine;

/// The FFT study's variables at a point: `n, p, iters`.
pub fn fft_bindings(pt: &Point) -> Bindings {
    bindings(&[
        ("n", pt.size as f64),
        ("p", pt.p as f64),
        ("iters", pt.iters as f64),
    ])
}

/// Replays the day's FFT study, prints its report (last `replay16-fft: …`) and panics when
/// a number is worse than `bounds`, or when dp's prediction moves with a machine key (every
/// parallel construct of dp.rs is inside a measured fragment, so it prices none).
pub fn fft_replay(day: &Day, bounds: &Bounds) {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let r = replay(
        day,
        Program16 {
            program: "fft",
            records: "dp-per-execution.pp",
            size_var: "n",
            sources: (
                example_source("fft", "tp.rs"),
                example_source("fft", "dp.rs"),
            ),
            entry: "fft2d",
        },
        &fft_bindings,
        tmp.path(),
    );
    assert_eq!(r.points.len(), bounds.points, "the study's points");
    let measured = measured_fragments(&read(&day.file("fft", "tp-fragments.md")));
    let mut out = fft_table(&r.points, &r.other, &r.base, &measured);

    let machine_text = read(&r.machine);
    let machine = Machine::parse("machine.txt", &machine_text).expect("the fixture parses");
    let runs = run_knobs(
        &r.versions,
        &machine_text,
        &knobs(&machine, &[]),
        &r.points,
        &fft_bindings,
        tmp.path(),
    );
    out += "\nsensitivity: tp mean |error| %, ranking (decisive) at half / double of each key\n";
    out += &knob_table(&runs);
    out += &report_end(&r, ("tp", "dp"), "replay16-fft");
    print!("{out}");
    for k in &runs {
        for v in [&k.half, &k.double] {
            assert_eq!(v.base, r.base, "{}: dp moved", k.knob.name);
        }
    }
    check(&r, bounds);
}
