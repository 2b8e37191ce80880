//! Runs a user's executable at a point: the command template rendered at the point, with
//! the processor count in the environment and `PPLIB_LOG` naming the repetition's log.
//!
//! Environment of every run (on top of the campaign's own):
//! - `PPLIB_LOG`: the repetition's log file (removed for warm-up runs, which record
//!   nothing);
//! - `PPLIB_PROCESSORS`, `RAYON_NUM_THREADS`, `OMP_NUM_THREADS`: p (pplib's header team
//!   size, rayon's global pool and OpenMP's team, so that a program that reads any of them
//!   runs on p threads and its log says p).
//!
//! The run's seconds are the wall-clock time from starting the process to its exit, or,
//! with a time key `K`, the value of the last `K=SECONDS` token the program printed on its
//! standard output (a program that times its own region: `histogram` prints `time_s=`).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::grid::Point;
use super::runner::{PointRunner, RunError};
use super::template::CommandTemplate;

/// Environment variables that carry p to the program.
pub const PROCESSOR_VARIABLES: [&str; 3] =
    ["PPLIB_PROCESSORS", "RAYON_NUM_THREADS", "OMP_NUM_THREADS"];

/// Runs an executable (see the module docs).
#[derive(Clone, Debug)]
pub struct ExecRunner {
    /// The command.
    pub template: CommandTemplate,
    /// Take the seconds from the program's `KEY=SECONDS` output instead of the wall clock.
    pub time_key: Option<String>,
}

impl ExecRunner {
    /// A runner of `template`, timed by the wall clock.
    pub fn new(template: CommandTemplate) -> ExecRunner {
        ExecRunner {
            template,
            time_key: None,
        }
    }
}

impl PointRunner for ExecRunner {
    type Point = Point;

    fn label(&self, point: &Point) -> String {
        point
            .label()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "=.-_".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }

    fn run(&mut self, point: &Point, log: Option<&Path>) -> Result<f64, RunError> {
        let err = |message: String| RunError {
            point: point.label(),
            message,
        };
        let argv = self.template.render(point);
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for v in PROCESSOR_VARIABLES {
            cmd.env(v, point.p.to_string());
        }
        match log {
            Some(l) => cmd.env("PPLIB_LOG", l),
            None => cmd.env_remove("PPLIB_LOG"),
        };
        let start = Instant::now();
        let out = cmd
            .output()
            .map_err(|e| err(format!("could not run {:?}: {e}", argv[0])))?;
        let wall = start.elapsed().as_secs_f64();
        if !out.status.success() {
            return Err(err(format!(
                "`{}` failed ({}): {}",
                argv.join(" "),
                out.status,
                last_lines(&String::from_utf8_lossy(&out.stderr), 5)
            )));
        }
        match &self.time_key {
            None => Ok(wall),
            Some(key) => {
                timed_seconds(&String::from_utf8_lossy(&out.stdout), key).ok_or_else(|| {
                    err(format!(
                    "expected a `{key}=SECONDS` token on the standard output of `{}`, found none",
                    argv.join(" ")
                ))
                })
            }
        }
    }
}

/// The value of the last `key=SECONDS` token of `stdout` (a finite number >= 0).
pub fn timed_seconds(stdout: &str, key: &str) -> Option<f64> {
    stdout
        .split_whitespace()
        .filter_map(|tok| tok.strip_prefix(key)?.strip_prefix('='))
        .filter_map(|v| v.trim_end_matches([',', ';']).parse::<f64>().ok())
        .rfind(|v| v.is_finite() && *v >= 0.0)
}

fn last_lines(text: &str, k: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(k)..];
    if tail.is_empty() {
        "(nothing on stderr)".into()
    } else {
        tail.join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::grid::Grid;

    #[test]
    fn time_key_takes_the_last_finite_value() {
        let out = "warm time_s=9\nhistogram: impl=locked n=4 p=2 time_s=0.012500 total=4\n";
        assert_eq!(timed_seconds(out, "time_s"), Some(0.0125));
        assert_eq!(timed_seconds("time_s=NaN time_s=-1", "time_s"), None);
        assert_eq!(timed_seconds("xtime_s=1", "time_s"), None);
        assert_eq!(timed_seconds("t=1.5, ok", "t"), Some(1.5));
    }

    #[test]
    fn runs_with_p_and_the_log_in_the_environment() {
        let grid = Grid::parse(&["n=7".to_string()], "3").unwrap();
        let words: Vec<String> = [
            "sh",
            "-c",
            "echo \"n=$1 log=${{PPLIB_LOG:-none}} $PPLIB_PROCESSORS $RAYON_NUM_THREADS $OMP_NUM_THREADS\" > \"$0\"; echo t=0.25",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let mut words = words;
        words.push(out.display().to_string());
        words.push("{n}".into());
        let mut r = ExecRunner::new(CommandTemplate::parse(&words, &grid).unwrap());
        let pt = &grid.points()[0];
        assert_eq!(r.label(pt), "n=7_p=3");
        let wall = r.run(pt, Some(Path::new("x.pplog"))).unwrap();
        assert!(wall > 0.0 && wall < 30.0);
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            "n=7 log=x.pplog 3 3 3\n"
        );
        r.time_key = Some("t".into());
        assert_eq!(r.run(pt, None).unwrap(), 0.25);
        assert!(std::fs::read_to_string(&out).unwrap().contains("log=none"));
        r.time_key = Some("absent".into());
        assert!(r
            .run(pt, None)
            .unwrap_err()
            .message
            .contains("absent=SECONDS"));
    }

    #[test]
    fn a_failing_program_says_what_it_said() {
        let grid = Grid::parse(&[], "1").unwrap();
        let words: Vec<String> = ["sh", "-c", "echo first >&2; echo 'bad input n' >&2; exit 3"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut r = ExecRunner::new(CommandTemplate::parse(&words, &grid).unwrap());
        let e = r.run(&grid.points()[0], None).unwrap_err();
        assert!(
            e.message.contains("bad input n") && e.message.contains('3'),
            "{e}"
        );
        let mut missing = ExecRunner::new(
            CommandTemplate::parse(&["/nonexistent/prog".to_string()], &grid).unwrap(),
        );
        assert!(missing.run(&grid.points()[0], None).is_err());
    }
}
