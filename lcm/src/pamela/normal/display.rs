//! The normal form printed as PAMELA text (`lcm pamela --normal-form`).
use super::{NCond, NProc, NRes};
use crate::pamela::ast::{ServerKind, Time};

impl std::fmt::Display for NRes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ServerKind::Infinite => write!(f, "rho"),
            ServerKind::Fcfs | ServerKind::Ps if self.family == "fcfs" || self.family == "ps" => {
                write!(f, "{}({}, {})", self.family, self.index, self.multiplicity)
            }
            ServerKind::Fcfs | ServerKind::Ps => write!(f, "{}({})", self.family, self.index),
        }
    }
}

fn fmt_time(t: &Time) -> String {
    match t {
        Time::Det(e) => e.to_string(),
        Time::Exp(e) => format!("exp({e})"),
        Time::Uniform(a, b) => format!("uniform({a}, {b})"),
    }
}

fn fmt_conds(cs: &[NCond]) -> String {
    let one = |c: &NCond| {
        if c.args.is_empty() {
            c.name.clone()
        } else {
            let a: Vec<String> = c.args.iter().map(|x| x.to_string()).collect();
            format!("{}({})", c.name, a.join(", "))
        }
    };
    if cs.len() == 1 {
        one(&cs[0])
    } else {
        format!("{{{}}}", cs.iter().map(one).collect::<Vec<_>>().join(", "))
    }
}

impl NProc {
    fn write(&self, f: &mut std::fmt::Formatter<'_>, indent: usize) -> std::fmt::Result {
        let pad = "  ".repeat(indent);
        match self {
            NProc::Nil => write!(f, "{{ }}"),
            NProc::Delay(t) => write!(f, "delay({})", fmt_time(t)),
            NProc::Use(rs, t) => {
                let r = if rs.len() == 1 {
                    rs[0].to_string()
                } else {
                    format!(
                        "{{{}}}",
                        rs.iter()
                            .map(|r| r.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                write!(f, "use({r}, {})", fmt_time(t))
            }
            NProc::Wait(cs) => write!(f, "wait({})", fmt_conds(cs)),
            NProc::Signal(cs) => write!(f, "signal({})", fmt_conds(cs)),
            NProc::Seq(v) | NProc::Par(v) => {
                let op = if matches!(self, NProc::Seq(_)) {
                    " ;"
                } else {
                    " ||"
                };
                writeln!(f, "{{")?;
                for (k, p) in v.iter().enumerate() {
                    write!(f, "{pad}  ")?;
                    p.write(f, indent + 1)?;
                    if k + 1 < v.len() {
                        write!(f, "{op}")?;
                    }
                    writeln!(f)?;
                }
                write!(f, "{pad}}}")
            }
            NProc::Loop {
                par,
                index,
                lo,
                hi,
                body,
            } => {
                write!(
                    f,
                    "{} ({index} = {lo}, {hi}) ",
                    if *par { "par" } else { "seq" }
                )?;
                body.write(f, indent)
            }
            NProc::If(c, a, b) => {
                write!(f, "if ({c}) ")?;
                a.write(f, indent)?;
                if **b != NProc::Nil {
                    write!(f, " else ")?;
                    b.write(f, indent)?;
                }
                Ok(())
            }
        }
    }
}

/// Prints the process in PAMELA syntax (the compiler paper's normal-form listing).
impl std::fmt::Display for NProc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write(f, 0)
    }
}
