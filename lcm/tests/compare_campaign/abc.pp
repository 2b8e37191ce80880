# Fixture for lcm/tests/compare_campaign.rs. Made by copying lines (unchanged) from the
# new-user trial of issue 18 (a rayon merge sort), its file runs/abc.pp: pp-campaign ran
# versions a (cutoff 4096) and b (cutoff 64) interleaved as grid variable impl, with
# --per-execution --iterations iters, on a shared 2-core machine. Kept: the header and
# the session records of n = 65536 at p = 1 of impl=a and impl=b. Both versions in one
# file: --times-where-a impl=a and --times-where-b impl=b must give each version its own
# records (a: the impl=a lines, b: the impl=b lines), one point each (n=65536 iters=32 p=1).
# pp-campaign records (docs/records.md): ./target/release/msort --impl {impl} -n {n} -p {p} --iters {iters}
# counted (quiet) repetitions, one record per profile; pc/ml from the p = 1 point
# per execution (docs/campaigns.md): each fragment's amounts over its executions, the session's and leaf's and merge's over the point's iters
impl=a n=65536 iters=32 rep=12 run_s=0.075453 p=1 li=2.5993125e-6 fj=2.5993125e-6 ip=0 sl=0 wc=0 ml=0 os=3.0962247251901537e-6 pc=0.0016991629375 rt=0.0016991629375 tt=0.00170176225
impl=b n=65536 iters=32 rep=5 run_s=0.137748 p=1 li=7.782975e-5 fj=7.782975e-5 ip=0 sl=0 wc=0 ml=0 os=2.8259551777238376e-6 pc=0.00356204278125 rt=0.00356204278125 tt=0.00363987253125
