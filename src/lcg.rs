//! Deterministic pseudo-random numbers, the same on every machine, with no random-number crate:
//! Knuth's 64-bit linear congruential step (MMIX's constants) for the generated benchmark corpus
//! and the tests (callers take the high bits of the state; the low ones cycle quickly), and
//! SplitMix64 for every seeded draw and shuffle (assignments, the listwise three orders, the
//! adapter's batches).

/// The state after `state`.
#[inline]
pub(crate) fn lcg(state: u64) -> u64 {
    state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407)
}

/// A SplitMix64 generator: small, fast, and the same numbers on every machine.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// Seeded.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }
    /// One of the items.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() { None } else { items.get(self.below(items.len())) }
    }
    /// Shuffle in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_step_is_knuths() {
        // 1 · 6364136223846793005 + 1442695040888963407, then once more modulo 2⁶⁴ (by hand in
        // u128).
        assert_eq!(super::lcg(1), 7_806_831_264_735_756_412);
        let want = ((7_806_831_264_735_756_412u128 * 6_364_136_223_846_793_005 + 1_442_695_040_888_963_407)
            % (1u128 << 64)) as u64;
        assert_eq!(super::lcg(super::lcg(1)), want);
    }

    #[test]
    fn splitmix64_is_the_published_sequence() {
        // The first outputs of SplitMix64 seeded with 1234567 (Vigna's reference implementation).
        let mut r = super::SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
        assert_eq!(r.next_u64(), 9817491932198370423);
    }
}
