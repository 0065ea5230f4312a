//! The draws of an assignment: SplitMix64, the same numbers on every machine, and each
//! student's own stream.

pub use crate::lcg::SplitMix64;

/// A student's own stream: the seed mixed with the name (FNV-1a), so adding a student to the
/// roster does not change anyone else's variant.
pub(super) fn student_rng(seed: u64, student: &str, attempt: u64) -> SplitMix64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in student.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    SplitMix64::new(seed ^ h ^ attempt.wrapping_mul(0xA24B_AED4_963E_E407))
}

// ---------------------------------------------------------------------------------------------
// Roster
