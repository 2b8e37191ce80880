//! The loser tree that picks, among the threads' head events, the next in time order.

/// A tournament (loser) tree over `n` slots keyed on `(time, slot)`: the smallest key
/// wins; changing the winner's key and replaying costs ⌈log2 n⌉ comparisons.
#[derive(Debug, Clone)]
pub struct LoserTree {
    /// Leaves, rounded up to a power of two.
    k: usize,
    /// `nodes[0]`: the winner; `nodes[1..k]`: the loser at each internal node.
    nodes: Vec<u32>,
    /// Key per leaf: `time << 64 | slot`, or [`LoserTree::DONE`].
    keys: Vec<u128>,
}

impl LoserTree {
    /// The key of a slot with nothing left (loses to every other key).
    pub const DONE: u128 = u128::MAX;

    /// A tree over `n` slots, all [`LoserTree::DONE`].
    pub fn new(n: usize) -> LoserTree {
        let k = n.max(1).next_power_of_two();
        LoserTree {
            k,
            nodes: vec![0; k],
            keys: vec![LoserTree::DONE; k],
        }
    }

    /// The key of an event at `time` of slot `slot`.
    #[inline]
    pub fn key(time: u64, slot: usize) -> u128 {
        (u128::from(time) << 64) | slot as u128
    }

    /// Sets every slot's key (at the start), then plays the whole tournament.
    pub fn build(&mut self, keys: impl IntoIterator<Item = u128>) {
        for (leaf, key) in self.keys.iter_mut().zip(keys) {
            *leaf = key;
        }
        let k = self.k;
        let mut win = vec![0u32; 2 * k];
        for (i, w) in win[k..].iter_mut().enumerate() {
            *w = i as u32;
        }
        for node in (1..k).rev() {
            let (a, b) = (win[2 * node], win[2 * node + 1]);
            let (w, l) = if self.keys[a as usize] <= self.keys[b as usize] {
                (a, b)
            } else {
                (b, a)
            };
            win[node] = w;
            self.nodes[node] = l;
        }
        self.nodes[0] = win[1];
    }

    /// The slot with the smallest key.
    #[inline]
    pub fn winner(&self) -> usize {
        self.nodes[0] as usize
    }

    /// The smallest key.
    #[inline]
    pub fn winning_key(&self) -> u128 {
        self.keys[self.nodes[0] as usize]
    }

    /// Changes the winner's key and finds the new winner.
    #[inline]
    pub fn replace_winner(&mut self, key: u128) {
        let mut w = self.nodes[0];
        let mut kw = key;
        self.keys[w as usize] = key;
        let mut node = (w as usize + self.k) >> 1;
        // Which stream comes next is data (threads interleave at random), so the
        // comparisons are unpredictable: select without branches.
        while node > 0 {
            let l = self.nodes[node];
            let kl = self.keys[l as usize];
            let lose = kl < kw;
            self.nodes[node] = select(lose, w, l);
            w = select(lose, l, w);
            kw = if lose { kl } else { kw };
            node >>= 1;
        }
        self.nodes[0] = w;
    }
}

/// `if c { a } else { b }` computed without a branch.
#[inline(always)]
fn select(c: bool, a: u32, b: u32) -> u32 {
    let mask = (c as u32).wrapping_neg();
    (a & mask) | (b & !mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loser_tree_orders_many_slots() {
        for n in 1..=9 {
            let mut t = LoserTree::new(n);
            // Slot s holds times s, s + n, s + 2n, ... (3 each), given in reverse slot order.
            let mut next: Vec<u64> = (0..n as u64).collect();
            t.build((0..n).map(|s| LoserTree::key(next[s], s)));
            let mut out = Vec::new();
            while t.winning_key() != LoserTree::DONE {
                let s = t.winner();
                out.push(next[s]);
                next[s] += n as u64;
                let key = if next[s] < 3 * n as u64 {
                    LoserTree::key(next[s], s)
                } else {
                    LoserTree::DONE
                };
                t.replace_winner(key);
            }
            assert_eq!(out, (0..3 * n as u64).collect::<Vec<_>>(), "n = {n}");
        }
    }
}
