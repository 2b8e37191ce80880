//! Producer/consumer chains: the material-oriented pipeline, fill and bottleneck (Eq. 3.16),
//! and the composed model in the calculus and the simulator.

use super::*;

#[test]
fn producer_consumer_chain_is_a_pipeline_with_fill_and_bottleneck() {
    // p = 2: each stage one processor. tau_1 = 1, tau_2 = 3, N = 4.
    // Eq. 3.16: T = phi + omega - tau* = (1 + 3) + 4*3 - 3 = 13; the bound is max(4, 12) = 12.
    let pred = predict(PIPE, &[("p", 2.0), ("A", 1.0), ("B", 3.0)]);
    close(pred.seconds, 13.0);
    let pl = &pred.accounting.pipelines[0];
    close(pl.fill_s, 4.0);
    assert_eq!(pl.bottleneck, 1);
    close(pl.bound_s, 12.0);
    assert_eq!(pl.stages[1].items, 4.0);
    // Stages wait (13 - 4)*1 + (13 - 12)*1 = 10 processor-seconds: 5 s of T.
    close(pred.contributions.pipeline_s, 5.0);
    // Bottleneck first: 4*3 + 1 = 13 again, now stage 1 limits.
    let pred = predict(PIPE, &[("p", 2.0), ("A", 3.0), ("B", 1.0)]);
    close(pred.seconds, 13.0);
    assert_eq!(pred.accounting.pipelines[0].bottleneck, 0);
    // Balanced, the worst case of the phi/omega bound: (M + N - 1)*tau = 5*2 = 10 (bound 8).
    close(
        predict(PIPE, &[("p", 2.0), ("A", 2.0), ("B", 2.0)]).seconds,
        10.0,
    );
}

#[test]
fn pplib_closure_wrappers_are_read_as_inline_code() {
    // The same pipeline as PIPE, with the send and the fragments inside pplib's closure
    // wrappers (`pplib::wait(kind, || ..)`, `pplib::task_scope(|| ..)`): their bodies run on
    // the calling thread, so the composition must be the one of PIPE (13 s, as above).
    let src = r#"
use std::sync::mpsc::channel;
fn main() {
    let (tx, rx) = channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 0..4 {
                pplib::task_scope(|| {
                    // lcm: fragment produce
                    // lcm: rt = A
                    let item = produce(k);
                    pplib::wait(pplib::WaitKind::Channel, || tx.send(item).unwrap());
                });
            }
        });
        s.spawn(move || {
            for item in rx {
                // lcm: fragment consume
                // lcm: rt = B
                consume(item);
            }
        });
    });
}
"#;
    let pred = predict(src, &[("p", 2.0), ("A", 1.0), ("B", 3.0)]);
    close(pred.seconds, 13.0);
    assert_eq!(pred.accounting.pipelines.len(), 1);
}

#[test]
fn pipeline_appears_in_the_composed_model_as_stage_resources() {
    let prog = program(PIPE);
    let text = &prog.model.text;
    assert!(text.contains("resource st_1_1 = fcfs("), "{text}");
    assert!(
        text.contains("use(st_1_1, tau_1_1) ; use(st_1_2, tau_1_2)"),
        "{text}"
    );
    assert!(text.contains("numeric T_pipe_1 ="), "{text}");
    assert!(text.contains("|| delay(T_pipe_1)"), "{text}");
}

#[test]
fn composed_pipeline_simulates_to_the_flow_shop_time() {
    // The composed model of PIPE compiles to Eq. 3.16 and simulates to the same time: the
    // FCFS stages run the flow shop (13 s for tau = 1, 3 and N = 4: fill 1 + 4*3), and the
    // critical-path branch that gives the calculus the skew does not lengthen it.
    let prog = program(PIPE);
    let model = lcm::pamela::parse(&prog.model.text).unwrap();
    for (a, b, want) in [(1.0, 3.0, 13.0), (3.0, 1.0, 13.0), (2.0, 2.0, 10.0)] {
        let bind = at(&[("p", 2.0), ("A", a), ("B", b)]);
        let compiled = model.compile().unwrap().eval(&bind).unwrap();
        close(compiled, want);
        let sim =
            lcm::pamela::simulate(&model, &bind, &lcm::pamela::SimOptions { runs: 4, seed: 3 })
                .unwrap();
        assert_eq!(sim.samples, vec![want; 4], "A={a} B={b}");
        close(sim.t_lower, want);
        // the stages alone (no critical-path branch) give the same simulated time
        let stages = prog.model.text.replace(" || delay(T_pipe_1)", "");
        assert_ne!(stages, prog.model.text);
        let stages = lcm::pamela::parse(&stages).unwrap();
        let alone = lcm::pamela::simulate(&stages, &bind, &Default::default()).unwrap();
        assert_eq!(alone.mean, want, "A={a} B={b}: flow shop of the stages");
    }
}
