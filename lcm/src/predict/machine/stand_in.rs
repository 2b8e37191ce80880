//! Keys a prediction binds from other keys where the machine file lacks them.

use super::Machine;

impl Machine {
    /// The keys [`Machine::bindings`] binds from others because the file lacks them, as
    /// `(key, what stands in, its value)`: `line_trip_s` from `latency_s`, `line_lock_s`
    /// from two whole trips. Empty for a file that holds them (or lacks both ends).
    pub fn stand_ins(&self) -> Vec<(String, String, f64)> {
        let b = self.bindings();
        let mut out = Vec::new();
        let trip_stood_in = !self.values.contains_key("line_trip_s");
        if trip_stood_in {
            if let Some(&v) = b.get("line_trip_s") {
                out.push(("line_trip_s".into(), "latency_s".into(), v));
            }
        }
        if !self.values.contains_key("line_lock_s") {
            if let Some(&v) = b.get("line_lock_s") {
                let by = if trip_stood_in {
                    "2 * latency_s"
                } else {
                    "2 * line_trip_s"
                };
                out.push(("line_lock_s".into(), by.into(), v));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of an earlier version: no `line_trip_s`, no `line_lock_s`: both stand in
    /// from `latency_s`; one with `line_trip_s` only: the lock from two trips; one with
    /// both: nothing.
    #[test]
    fn missing_line_keys_are_named_with_what_stands_in() {
        let old =
            Machine::parse("old.txt", "latency_s = 3e-8\nbandwidth_bytes_per_s = 1e9\n").unwrap();
        let s = old.stand_ins();
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(
            (s[0].0.as_str(), s[0].1.as_str(), s[0].2),
            ("line_trip_s", "latency_s", 3e-8)
        );
        assert_eq!(
            (s[1].0.as_str(), s[1].1.as_str(), s[1].2),
            ("line_lock_s", "2 * latency_s", 6e-8)
        );
        let trip = Machine::parse(
            "t.txt",
            "latency_s = 3e-8\nbandwidth_bytes_per_s = 1e9\nline_trip_s = 4e-8\n",
        )
        .unwrap();
        let s = trip.stand_ins();
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!((s[0].1.as_str(), s[0].2), ("2 * line_trip_s", 8e-8));
        let both = Machine::parse("b.txt", "latency_s = 3e-8\nbandwidth_bytes_per_s = 1e9\nline_trip_s = 4e-8\nline_lock_s = 5e-8\n").unwrap();
        assert!(both.stand_ins().is_empty());
    }
}
