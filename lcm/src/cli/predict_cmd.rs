//! `lcm predict`, `compare`, `tree`, `calibrate` arguments.
use clap::Args;

/// Arguments of `lcm predict`.
#[derive(Args, Debug)]
pub struct PredictArgs {}
/// Arguments of `lcm compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {}
/// Arguments of `lcm tree`.
#[derive(Args, Debug)]
pub struct TreeArgs {}
/// Arguments of `lcm calibrate`.
#[derive(Args, Debug)]
pub struct CalibrateArgs {}

pub fn run_predict(_a: PredictArgs) -> i32 {
    eprintln!("lcm predict: not built yet");
    2
}
pub fn run_compare(_a: CompareArgs) -> i32 {
    eprintln!("lcm compare: not built yet");
    2
}
pub fn run_tree(_a: TreeArgs) -> i32 {
    eprintln!("lcm tree: not built yet");
    2
}
pub fn run_calibrate(_a: CalibrateArgs) -> i32 {
    eprintln!("lcm calibrate: not built yet");
    2
}
