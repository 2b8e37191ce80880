//! Shared by the fuzz targets: run the reader and the whole pp engine on a log in memory
//! and check what must hold for any input.

use pp::{analyze_bytes, Options, TagSelection};

/// Any bytes: an `Err` (never a panic), or profiles that satisfy the invariant.
pub fn check(bytes: &[u8]) {
    let options = Options {
        tags: TagSelection::All,
        miss_latency_ns: Some(100.0),
        histograms: true,
        allow_truncated: bytes.len() % 2 == 0,
        sequential: true,
    };
    match analyze_bytes(bytes.to_vec(), "fuzz.pplog", &options) {
        Err(e) => {
            // Errors are one line.
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "multi-line error: {msg}");
        }
        Ok(a) => {
            for p in &a.profiles {
                assert!(p.tt >= 0.0 && p.tt.is_finite(), "tt = {}", p.tt);
                for (c, v) in p.categories() {
                    assert!(v.is_finite(), "{c} = {v}");
                }
                assert!(
                    p.invariant_error() <= 1e-6,
                    "invariant: li+ip+sl+wc+rt = {} tt = {}",
                    p.li + p.ip + p.sl + p.wc + p.rt,
                    p.tt
                );
                for line in a.record_lines(&[]) {
                    assert!(!line.contains('\n'));
                }
            }
            let _ = pp::table::analysis_text(&a, true);
        }
    }
}
