// Fixture of lcm/tests/predict_report.rs: fragment `fill` sits in a function that is called
// from three places: twice in a loop of 2 (line 9), once alone (line 11) and four times in
// a loop inside `batch`, which is itself called three times (line 13 calling line 22).
// Hand-written; it is parsed, never compiled. At p = 1 the fragment table must give `fill`
// three rows at its own line 29 that differ in `called at`: `9 x2` (2 runs), `11` (1 run)
// and `13 x3 > 22 x4` (12 runs); `work`, in main's own code, has none. T = 15 x 1 ms + 1 s.
fn main() {
    for _ in 0..2 {
        fill();
    }
    fill();
    for _ in 0..3 {
        batch();
    }
    // lcm: fragment work
    // lcm: rt = 1
    work();
}

fn batch() {
    for _ in 0..4 {
        fill();
    }
}

fn fill() {
    // lcm: fragment fill
    // lcm: rt = 1e-3
    zero();
}
