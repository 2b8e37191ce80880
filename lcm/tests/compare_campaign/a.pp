# Fixture for lcm/tests/compare_campaign.rs. Made by copying lines (unchanged) from the
# new-user trial of issue 18 (a rayon merge sort, version a: cutoff 4096), its file
# runs/a-65536.pp and runs/a-262144.pp, written by pp-campaign --per-execution
# --iterations iters --per-iteration leaf,merge on a shared 2-core machine: the three
# header lines of such a file, then the session records (no tag=) of n = 65536 (p = 1,
# 5 repetitions) and n = 262144 (p = 1, 5 repetitions), and one fragment record that
# lcm compare --times-a must ignore. It must give two measured points: n=65536 iters=32
# p=1 (5 runs, median tt 0.00170396396875 x 32 iterations) and n=262144 iters=8 p=1.
# pp-campaign records (docs/records.md): ./target/release/msort --impl a -n {n} -p {p} --iters {iters}
# counted (quiet) repetitions, one record per profile; pc/ml from the p = 1 point
# per execution (docs/campaigns.md): each fragment's amounts over its executions, the session's and leaf's and merge's over the point's iters
impl=a n=65536 iters=32 rep=1 run_s=0.07539 p=1 li=2.56603125e-6 fj=2.56603125e-6 ip=0 sl=0 wc=0 ml=0 os=2.9707936739328508e-6 pc=0.00170138759375 rt=0.00170138759375 tt=0.001703953625
impl=a n=65536 iters=32 rep=3 run_s=0.076992 p=1 li=3.206375e-6 fj=3.206375e-6 ip=0 sl=0 wc=0 ml=0 os=3.204096376784001e-5 pc=0.00174525515625 rt=0.00174525515625 tt=0.00174846153125
impl=a n=65536 iters=32 rep=5 run_s=0.076953 p=1 li=3.12028125e-6 fj=3.12028125e-6 ip=0 sl=0 wc=0 ml=0 os=3.551212730412397e-6 pc=0.0017467706875 rt=0.0017467706875 tt=0.00174989096875
impl=a n=65536 iters=32 rep=7 run_s=0.074976 p=1 li=3.15884375e-6 fj=3.15884375e-6 ip=0 sl=0 wc=0 ml=0 os=3.3147570689599235e-6 pc=0.001687853375 rt=0.001687853375 tt=0.00169101221875
impl=a n=65536 iters=32 rep=8 run_s=0.075343 p=1 li=2.54146875e-6 fj=2.54146875e-6 ip=0 sl=0 wc=0 ml=0 os=3.0162228082429538e-6 pc=0.0017014225 rt=0.0017014225 tt=0.00170396396875
impl=a n=65536 iters=32 rep=1 run_s=0.07539 tag=sort p=1 li=2.56603125e-6 fj=2.56603125e-6 ip=0 sl=0 wc=0 ml=0 os=2.0971056227693516e-6 pc=0.00165744190625 rt=0.00165744190625 tt=0.0016600079375
# pp-campaign records (docs/records.md): ./target/release/msort --impl a -n {n} -p {p} --iters {iters}
# counted (quiet) repetitions, one record per profile; pc/ml from the p = 1 point
# per execution (docs/campaigns.md): each fragment's amounts over its executions, the session's and leaf's and merge's over the point's iters
impl=a n=262144 iters=8 rep=1 run_s=0.098977 p=1 li=1.71065e-5 fj=1.71065e-5 ip=0 sl=0 wc=0 ml=0 os=1.9559844586767403e-5 pc=0.009733631375 rt=0.009733631375 tt=0.009750737875
impl=a n=262144 iters=8 rep=2 run_s=0.106336 p=1 li=4.09765e-5 fj=4.09765e-5 ip=0 sl=0 wc=0 ml=0 os=2.632209764997641e-5 pc=0.010637982625 rt=0.010637982625 tt=0.010678959125
impl=a n=262144 iters=8 rep=4 run_s=0.114225 p=1 li=3.249925e-5 fj=3.249925e-5 ip=0 sl=0 wc=0 ml=0 os=1.21632096274059e-5 pc=0.011597793125 rt=0.011597793125 tt=0.011630292375
impl=a n=262144 iters=8 rep=5 run_s=0.11575 p=1 li=3.4977875e-5 fj=3.4977875e-5 ip=0 sl=0 wc=0 ml=0 os=0.0002617449400506076 pc=0.011797637375 rt=0.011797637375 tt=0.01183261525
impl=a n=262144 iters=8 rep=8 run_s=0.095553 p=1 li=1.1303875e-5 fj=1.1303875e-5 ip=0 sl=0 wc=0 ml=0 os=1.4072503321327342e-5 pc=0.009316462125 rt=0.009316462125 tt=0.009327766
