//! Counter-based random numbers: every draw is a pure function of a key
//! (seed, decision, rollout, stream, ...) and a counter, so results are the
//! same for any number of threads and on every run.
//!
//! The generator is SplitMix64 (Steele, Lea and Flood 2014): a Weyl sequence
//! through a 64-bit finaliser.  It is written here, not taken from a crate,
//! because `rand`'s generators may change their streams between versions
//! and the grades are stored.

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 finaliser: a bijection that scatters every input bit.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One stream of random numbers, keyed by the work unit it belongs to.
#[derive(Debug, Clone)]
pub struct Stream {
    state: u64,
}

impl Stream {
    /// The stream of a key such as `[seed, decision, rollout]`.
    pub fn new(key: &[u64]) -> Stream {
        let mut state = GOLDEN;
        for &part in key {
            state = mix(state ^ mix(part.wrapping_add(GOLDEN)));
        }
        Stream { state }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN);
        mix(self.state)
    }

    /// A whole number in `0..n` (multiply-shift: a bias below 2^-32, the same on every machine).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// A number in [0, 1) with 53 random bits.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal number (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Put `k` uniformly chosen items of `items` first, in random order (partial Fisher-Yates).
    pub fn choose_first<T>(&mut self, items: &mut [T], k: usize) {
        let n = items.len();
        for i in 0..k.min(n) {
            let j = i + self.below(n - i);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_values() {
        // SplitMix64 seeded with 0 starts 0xE220A8397B1DCDAF (the reference implementation).
        assert_eq!(mix(GOLDEN), 0xE220_A839_7B1D_CDAF);
        let mut a = Stream::new(&[1, 2, 3]);
        let mut b = Stream::new(&[1, 2, 3]);
        let mut c = Stream::new(&[1, 2, 4]);
        let (x, y, z) = (a.next_u64(), b.next_u64(), c.next_u64());
        assert_eq!(x, y);
        assert_ne!(x, z);
    }

    #[test]
    fn below_is_uniform_enough() {
        let mut s = Stream::new(&[7]);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[s.below(6)] += 1;
        }
        // 10,000 expected each; 5 SDs is about 460.
        assert!(
            counts.iter().all(|&c| (9_540..=10_460).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn choose_first_keeps_every_item() {
        let mut s = Stream::new(&[9]);
        let mut items: Vec<u8> = (0..52).collect();
        s.choose_first(&mut items, 20);
        let mut sorted = items.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..52).collect::<Vec<u8>>());
    }
}
