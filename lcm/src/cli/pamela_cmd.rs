//! `lcm pamela` and `lcm simulate` arguments.
use clap::Args;

/// Arguments of `lcm pamela`.
#[derive(Args, Debug)]
pub struct PamelaArgs {}
/// Arguments of `lcm simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {}

pub fn run_pamela(_a: PamelaArgs) -> i32 {
    eprintln!("lcm pamela: not built yet");
    2
}
pub fn run_simulate(_a: SimulateArgs) -> i32 {
    eprintln!("lcm simulate: not built yet");
    2
}
