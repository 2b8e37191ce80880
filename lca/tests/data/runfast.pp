# Fixture for Crovella's Figure 5.2: li = 0.01022*p*sqrt(p) with 2% multiplicative
# Gaussian noise (python random.seed(52)), p = 1..16, d=32; ip = 0.002*(p-1) exactly
# (zero at p = 1); rt = 1.3 + 0.001*p; tt = li+ip+rt. Expected: `lca -c li -v p` ranks
# k1*p*sqrt(p) first with k1 ~ 0.0102 and R2 > 0.97.
d=32 p=1 li=0.0102878 ip=0 sl=0 rt=1.301 tt=1.31129
d=32 p=2 li=0.0288803 ip=0.002 sl=0 rt=1.302 tt=1.33288
d=32 p=3 li=0.0529186 ip=0.004 sl=0 rt=1.303 tt=1.35992
d=32 p=4 li=0.0799013 ip=0.006 sl=0 rt=1.304 tt=1.3899
d=32 p=5 li=0.116444 ip=0.008 sl=0 rt=1.305 tt=1.42944
d=32 p=6 li=0.149103 ip=0.01 sl=0 rt=1.306 tt=1.4651
d=32 p=7 li=0.191225 ip=0.012 sl=0 rt=1.307 tt=1.51023
d=32 p=8 li=0.229929 ip=0.014 sl=0 rt=1.308 tt=1.55193
d=32 p=9 li=0.281633 ip=0.016 sl=0 rt=1.309 tt=1.60663
d=32 p=10 li=0.322966 ip=0.018 sl=0 rt=1.31 tt=1.65097
d=32 p=11 li=0.375658 ip=0.02 sl=0 rt=1.311 tt=1.70666
d=32 p=12 li=0.431988 ip=0.022 sl=0 rt=1.312 tt=1.76599
d=32 p=13 li=0.477313 ip=0.024 sl=0 rt=1.313 tt=1.81431
d=32 p=14 li=0.533288 ip=0.026 sl=0 rt=1.314 tt=1.87329
d=32 p=15 li=0.592381 ip=0.028 sl=0 rt=1.315 tt=1.93538
d=32 p=16 li=0.655353 ip=0.03 sl=0 rt=1.316 tt=2.00135
