//! Whether a `--baseline` log was a run of the same program on the same input.
//!
//! `pc` and `ml` compare a run with a p = 1 run of the same program, fragment and input
//! (see `docs/predicates.md`). pp cannot see the input itself, but a binary log records the
//! command line of the run: the baseline should have the same program (the last component of
//! `argv[0]`) and the same arguments once the processor count is taken out of both. A
//! `.pptrace` text trace records no command line; nothing is compared then.

/// Options whose value is a processor or thread count: they may differ between a run and
/// its baseline.
const PROCESSOR_OPTIONS: [&str; 10] = [
    "-p",
    "--p",
    "--processors",
    "--procs",
    "-t",
    "--threads",
    "--nthreads",
    "--num-threads",
    "-j",
    "--jobs",
];

/// What differs between the command line of a run and that of its baseline, as warnings
/// (empty when they agree or either is unknown).
pub fn command_line_differences(run: &[String], baseline: &[String]) -> Vec<String> {
    let (Some((run_prog, run_args)), Some((base_prog, base_args))) =
        (run.split_first(), baseline.split_first())
    else {
        return Vec::new();
    };
    let mut warnings = Vec::new();
    let (run_prog, base_prog) = (program(run_prog), program(base_prog));
    if run_prog != base_prog {
        warnings.push(format!(
            "baseline is another program ({base_prog}, this run {run_prog}): pc and ml compare \
             different work"
        ));
    }
    let (run_input, base_input) = (without_processors(run_args), without_processors(base_args));
    if run_input != base_input {
        warnings.push(format!(
            "baseline has other arguments besides the processor count ({:?}, this run {:?}): \
             if they set the size or input, pc and ml compare different work",
            base_input.join(" "),
            run_input.join(" ")
        ));
    }
    warnings
}

fn program(argv0: &str) -> &str {
    argv0.rsplit('/').next().unwrap_or(argv0)
}

/// The arguments with every processor-count option (and its value) removed: `-p 4`,
/// `-p4`, `--threads=4`.
fn without_processors(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut skip_value = false;
    for a in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        let (name, inline_value) = match a.split_once('=') {
            Some((n, _)) => (n, true),
            None => (a.as_str(), false),
        };
        if PROCESSOR_OPTIONS.contains(&name) {
            skip_value = !inline_value;
            continue;
        }
        let short_with_digits = PROCESSOR_OPTIONS.iter().filter(|o| o.len() == 2).any(|o| {
            a.strip_prefix(o)
                .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        });
        if !short_with_digits {
            out.push(a.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn same_program_and_input_at_other_p_agrees() {
        let run = v("target/release/fft2d -n 1024 -p 4");
        assert!(command_line_differences(&run, &v("./fft2d -n 1024 -p 1")).is_empty());
        assert!(command_line_differences(&run, &v("fft2d -p1 -n 1024")).is_empty());
        assert!(command_line_differences(&run, &v("fft2d --threads=1 -n 1024")).is_empty());
    }

    #[test]
    fn another_size_or_program_is_reported() {
        let run = v("fft2d -n 1024 -p 4");
        let w = command_line_differences(&run, &v("fft2d -n 512 -p 1"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("\"-n 512\"") && w[0].contains("\"-n 1024\""),
            "{w:?}"
        );
        let w = command_line_differences(&run, &v("queens -n 1024 -p 1"));
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("another program (queens, this run fft2d)"),
            "{w:?}"
        );
    }

    #[test]
    fn unknown_command_lines_are_not_compared() {
        assert!(command_line_differences(&[], &v("fft2d -n 512")).is_empty());
        assert!(command_line_differences(&v("fft2d -n 512"), &[]).is_empty());
    }
}
