//! The human-readable views: Crovella's Figure 4.3 table, the per-thread table (his
//! Table 4.2) and the duration percentiles.

use std::fmt::Write;

use crate::analysis::Analysis;
use crate::category::Category;
use crate::profile::{Percentiles, Profile};

/// Losses a diagnosis may name, in tie-break order. `ml` includes `cl` and `rc`, so the
/// finer ones are only named when `ml` is absent.
const LOSSES: [Category; 7] = [
    Category::Ip,
    Category::Li,
    Category::Sl,
    Category::Wc,
    Category::Ml,
    Category::Os,
    Category::Over,
];

/// The one-line diagnosis: the largest loss and its share of Total Time, e.g.
/// `primary loss: insufficient parallelism, 34% of processor time (serial code)`. When it
/// is load imbalance with fork/join latency in it, the line splits it into `fj` and the
/// rest, each with its cause.
pub fn diagnosis(p: &Profile) -> String {
    if p.tt <= 0.0 {
        return "no time in this window".to_owned();
    }
    let mut candidates: Vec<(Category, f64)> = LOSSES
        .iter()
        .filter_map(|&c| p.get(c).map(|v| (c, v)))
        .collect();
    if p.ml.is_none() {
        if let Some(cl) = p.cl {
            candidates.push((Category::Cl, cl));
        }
    }
    let best = candidates
        .into_iter()
        .fold(None::<(Category, f64)>, |best, (c, v)| match best {
            Some((_, bv)) if bv >= v => best,
            _ => Some((c, v)),
        });
    match best {
        Some((Category::Li, v)) if v / p.tt >= 0.01 && p.fj > 0.0 => format!(
            "primary loss: load imbalance, {} of processor time: fork/join latency {} ({}), \
             the rest {} ({})",
            percent(v / p.tt),
            percent(p.fj / p.tt),
            Category::Fj.cause(),
            percent((v - p.fj).max(0.0) / p.tt),
            Category::Li.cause()
        ),
        Some((c, v)) if v / p.tt >= 0.01 => format!(
            "primary loss: {}, {} of processor time ({})",
            c.title().to_lowercase(),
            percent(v / p.tt),
            c.cause()
        ),
        _ => format!(
            "no significant loss: computation is {} of processor time",
            percent(p.rt / p.tt)
        ),
    }
}

fn percent(fraction: f64) -> String {
    let pct = fraction * 100.0;
    if pct >= 10.0 {
        format!("{pct:.0}%")
    } else {
        format!("{pct:.1}%")
    }
}

fn row(out: &mut String, label: &str, v: f64, tt: f64) {
    let pct = if tt > 0.0 { v / tt * 100.0 } else { 0.0 };
    let _ = writeln!(out, "{label:<32}{v:>14.6}{pct:>10.2}");
}

/// The profile table of one window (Crovella's Figure 4.3, modernized): p, elapsed time
/// (and, for a fragment, its executions: the intervals of the union of its runs), each
/// measured category in seconds and % of Total Time, and the diagnosis.
pub fn profile_table(log: &str, p: &Profile) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "pp: {log}: {}", p.window_name());
    let _ = write!(
        out,
        "processors: {}   elapsed: {:.6} s",
        p.processors, p.elapsed
    );
    match p.executions {
        Some(n) => {
            let _ = writeln!(out, "   executions: {n}");
        }
        None => out.push('\n'),
    }
    let _ = writeln!(out, "{:<32}{:>14}{:>10}", "category", "seconds", "% of tt");
    row(&mut out, Category::Li.title(), p.li, p.tt);
    // A part of li, indented under it (not a term of the sum).
    row(&mut out, &format!("  {}", Category::Fj.title()), p.fj, p.tt);
    for c in [Category::Ip, Category::Sl, Category::Wc] {
        row(&mut out, c.title(), p.get(c).unwrap_or(0.0), p.tt);
    }
    row(&mut out, Category::Rt.title(), p.rt, p.tt);
    let sub = [
        (Category::Pc, "  "),
        (Category::Ml, "  "),
        (Category::Cl, "    "),
        (Category::Rc, "    "),
        (Category::Os, "  "),
    ];
    for (c, indent) in sub {
        if let Some(v) = p.get(c) {
            row(&mut out, &format!("{indent}{}", c.title()), v, p.tt);
        }
    }
    if p.ml.is_some_and(|ml| ml < 0.0) {
        let _ = writeln!(
            out,
            "  (memory loss < 0: this run's computation took less processor time than the \
             baseline's, e.g. its data fit the caches of p processors better, or noise; \
             pc + ml = rt still holds)"
        );
    }
    row(&mut out, Category::Tt.title(), p.tt, p.tt);
    if let Some(over) = p.over {
        row(&mut out, "Oversubscription (not in tt)", over, p.tt);
    }
    if let (Some(n), Some(busy)) = (p.nivcsw, p.nivcsw_busy) {
        let rate = if busy > 0.0 { n / busy } else { 0.0 };
        let _ = writeln!(
            out,
            "involuntary context switches in Busy time: {n:.1} ({rate:.1} per Busy second)"
        );
    }
    let _ = writeln!(out, "{}", diagnosis(p));
    out
}

/// The per-thread table (Crovella's Table 4.2): each thread's share of the categories.
pub fn thread_table(p: &Profile) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<14}{:>12}{:>12}{:>12}{:>12}{:>12}",
        "thread", "li", "ip", "sl", "wc", "rt"
    );
    for t in &p.threads {
        let _ = writeln!(
            out,
            "{:<14}{:>12.6}{:>12.6}{:>12.6}{:>12.6}{:>12.6}",
            t.thread, t.li, t.ip, t.sl, t.wc, t.rt
        );
    }
    let (li, ip) = p.unattributed;
    if li > 0.0 || ip > 0.0 {
        let _ = writeln!(
            out,
            "{:<14}{:>12.6}{:>12.6}{:>12}{:>12}{:>12}",
            "(no thread)", li, ip, "", "", ""
        );
    }
    out
}

fn pct_row(out: &mut String, label: &str, p: &Option<Percentiles>) {
    match p {
        Some(p) => {
            let ms = |s: f64| s * 1e3;
            let _ = writeln!(
                out,
                "{label:<14}{:>10}{:>12.3}{:>12.3}{:>12.3}{:>12.3}",
                p.count,
                ms(p.p50),
                ms(p.p90),
                ms(p.p99),
                ms(p.max)
            );
        }
        None => {
            let _ = writeln!(out, "{label:<14}{:>10}", 0);
        }
    }
}

/// Task and wait duration percentiles of a profile (milliseconds).
pub fn duration_table(p: &Profile) -> String {
    let mut out = String::new();
    let Some(d) = &p.durations else {
        return out;
    };
    let _ = writeln!(
        out,
        "{:<14}{:>10}{:>12}{:>12}{:>12}{:>12}",
        "durations", "count", "p50 ms", "p90 ms", "p99 ms", "max ms"
    );
    pct_row(&mut out, "tasks", &d.tasks);
    pct_row(&mut out, "waits", &d.waits);
    out
}

/// Everything asked for about one analysis, as text: per profile the table, then the
/// per-thread table and durations when asked. The first table (the session's, unless one
/// fragment was asked for) is followed by what the recording cost, when that is known
/// ([`crate::recording::RecordingCost::line`]).
pub fn analysis_text(a: &Analysis, per_thread: bool) -> String {
    let log = a.log.display().to_string();
    let mut out = String::new();
    for (i, p) in a.profiles.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&profile_table(&log, p));
        if i == 0 {
            if let Some(line) = a.recording.line(p.tag.is_none()) {
                let _ = writeln!(out, "{line}");
            }
        }
        if per_thread {
            out.push('\n');
            out.push_str(&thread_table(p));
        }
        if p.durations.is_some() {
            out.push('\n');
            out.push_str(&duration_table(p));
        }
    }
    out
}
