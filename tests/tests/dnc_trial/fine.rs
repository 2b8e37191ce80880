//! Parallel merge sort of n random u64 keys, version `fine`: rayon::join recursion down to
//! a sequential cutoff of 64 keys (many tiny tasks); merges are sequential.
//! Usage: fine -n N [-p P] [--iters I]; prints time_s=SECONDS (inside the session).

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a whole number"))
        .unwrap_or(default)
}

fn keys(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

fn merge(a: &[u64], b: &[u64], out: &mut [u64]) {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out[k] = a[i];
            i += 1;
        } else {
            out[k] = b[j];
            j += 1;
        }
        k += 1;
    }
    out[k..k + a.len() - i].copy_from_slice(&a[i..]);
    k += a.len() - i;
    out[k..].copy_from_slice(&b[j..]);
}

fn msort(v: &mut [u64], buf: &mut [u64], cutoff: usize) {
    if v.len() <= cutoff {
        pplib::frag_scope("leaf", || v.sort_unstable());
        return;
    }
    let mid = v.len() / 2;
    {
        let (vl, vr) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        pplib::join(|| msort(vl, bl, cutoff), || msort(vr, br, cutoff));
    }
    pplib::frag_scope("merge", || {
        merge(&v[..mid], &v[mid..], buf);
        v.copy_from_slice(buf);
    });
}

fn main() {
    let n = arg("-n", 1 << 20);
    let p = arg("-p", 1);
    let iters = arg("--iters", 1);
    let input = keys(n, 42);
    let cutoff = 64;
    let secs = pplib::run(p, || {
        let mut v = input.clone();
        let mut buf = vec![0u64; n];
        let start = std::time::Instant::now();
        // lcm: iterations = iters
        for _ in 0..iters {
            v.copy_from_slice(&input);
            // Derived from coarse's measured models (cutoff n/8 at p = 1): the leaves sort
            // 64 keys instead of n/8 (work per key ~ log2 of the leaf size), the merges run
            // log2(n/64) levels instead of 3, and n/64 - 1 joins replace 7 (join_s each).
            // lcm: like sort
            // lcm: pc = sort.pc + leaf.pc*(6/log2(n/8) - 1) + merge.pc*(log2(n/64)/3 - 1) + (n/64 - 8)*join_s
            pplib::frag_scope("sort", || msort(&mut v, &mut buf, cutoff));
        }
        let secs = start.elapsed().as_secs_f64();
        assert!(v.windows(2).all(|w| w[0] <= w[1]));
        secs
    })
    .expect("pplib session");
    println!("n={n} p={p} iters={iters} cutoff={cutoff} time_s={secs}");
}
