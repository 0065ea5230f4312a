//! Knuth's 64-bit linear congruential step (MMIX's constants): deterministic pseudo-random
//! numbers for the generated benchmark corpus and the tests, with no random-number crate. Callers
//! take the high bits of the state (the low ones cycle quickly).

/// The state after `state`.
#[inline]
pub(crate) fn lcg(state: u64) -> u64 {
    state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407)
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
}
