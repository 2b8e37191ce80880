//! What writing a buffer another processor read last adds over writing one the writer read
//! itself ([`lcm::calibrate::claim`]), with back-to-back stores and with computed ones,
//! beside the read prices of `lcm calibrate` (`transfer_s_B`, `local_read_s_B`), at a few
//! sizes: the median of REPS repetitions (default 9), each the mean over rounds that
//! write at least 64 MiB (16 MiB for the computed stores).
//!
//! `cargo run --release -p lcm --example claimbench [REPS]` prints one line per size and
//! pace: `claimbench: bytes=B pace=plain|computed claim_us=C local_write_us=L gap_us=C-L`,
//! then `claimbench: bytes=B transfer_us=T local_read_us=R gap_us=T-R`. The writes of a
//! repetition run on two processors drawn anew each time (the transfer's writer and reader
//! too, and the local read on the transfer's reader processor); the claim and the local
//! write alternate, so that a change of the machine's speed touches both.
use lcm::calibrate::claim::{claim_once, local_write_once, WritePace};
use lcm::calibrate::clock::MonotonicClock;
use lcm::calibrate::memory::{local_read_once, transfer_once};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(9)
        .max(1);
    let clock = MonotonicClock::new();
    for bytes in [4usize << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20] {
        let rounds = ((64usize << 20) / bytes).clamp(2, 4096);
        for (pace, name, rounds) in [
            (WritePace::Plain, "plain", rounds),
            (WritePace::Computed, "computed", (rounds / 4).max(2)),
        ] {
            let (mut claim, mut local) = (Vec::new(), Vec::new());
            for rotation in 0..reps {
                claim.push(claim_once(&clock, bytes, rounds, rotation, pace));
                local.push(local_write_once(&clock, bytes, rounds, pace));
            }
            let (claim, local) = (median(claim) * 1e6, median(local) * 1e6);
            println!(
                "claimbench: bytes={bytes} pace={name} claim_us={claim:.3} \
                 local_write_us={local:.3} gap_us={:.3}",
                claim - local
            );
        }
        let (mut transfer, mut read) = (Vec::new(), Vec::new());
        for rotation in 0..reps {
            transfer.push(transfer_once(&clock, bytes, rounds, rotation).seconds);
            read.push(local_read_once(&clock, bytes, rounds, rotation).seconds);
        }
        let (transfer, read) = (median(transfer) * 1e6, median(read) * 1e6);
        println!(
            "claimbench: bytes={bytes} transfer_us={transfer:.3} local_read_us={read:.3} gap_us={:.3}",
            transfer - read
        );
    }
}
