//! Dot products in a fixed order of operations, so that a ranking, its explanation and the
//! compressed index agree bit for bit on every CPU: [`dot`] for one vector against another as the
//! dense retriever and the map score them, [`dot16`] for the token index and the approximate
//! dense index (fast, and the same whatever the CPU's vector width).

/// Cosine of two L2-normalised vectors, accumulated in f32 in one fixed order (so ranking and
/// explanation agree bit for bit).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The dot product in one fixed order (sixteen running sums, then added in order): the same on
/// every CPU, whatever its vector width — no step is fused or reordered, so the AVX-512, AVX2 and
/// plain builds below give the same bits — and fast because the sixteen sums fit vector registers.
#[inline]
pub fn dot16(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { dot16_avx512(a, b) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { dot16_avx2(a, b) };
        }
    }
    dot16_plain(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn dot16_avx512(a: &[f32], b: &[f32]) -> f32 {
    dot16_plain(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot16_avx2(a: &[f32], b: &[f32]) -> f32 {
    dot16_plain(a, b)
}

#[inline(always)]
fn dot16_plain(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    // Sixty-four running sums (four independent vector chains), then sixteen-wide chunks, then
    // the tail; the sums are folded in halves in a fixed order.
    let mut acc = [0f32; 64];
    let (ca, cb) = (a.chunks_exact(64), b.chunks_exact(64));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..64 {
            acc[i] += x[i] * y[i];
        }
    }
    let (ca, cb) = (ra.chunks_exact(16), rb.chunks_exact(16));
    let (ta, tb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut width = 32;
    while width > 0 {
        for i in 0..width {
            acc[i] += acc[i + width];
        }
        width /= 2;
    }
    let mut s = acc[0];
    for (x, y) in ta.iter().zip(tb) {
        s += x * y;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot16_is_the_dot_product() {
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..37).map(|i| 1.0 - i as f32 * 0.25).collect();
        // Σ i/2 · (1 − i/4) for i < 37 = Σ i/2 − Σ i²/8 = 333 − 16206/8 = −1692.75, exact in f32
        // (every partial sum is a multiple of 1/8 far below 2^24).
        assert_eq!(dot16(&a, &b), -1692.75);
        assert_eq!(dot16(&[], &[]), 0.0);
        // Every build of it gives the same bits, whatever the CPU runs.
        let a: Vec<f32> = (0..389).map(|i| ((i * 7919) % 1000) as f32 / 997.0 - 0.4).collect();
        let b: Vec<f32> = (0..389).map(|i| ((i * 104729) % 1000) as f32 / 991.0 - 0.6).collect();
        let plain = dot16_plain(&a, &b);
        assert_eq!(dot16(&a, &b).to_bits(), plain.to_bits());
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                assert_eq!(unsafe { dot16_avx2(&a, &b) }.to_bits(), plain.to_bits());
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                assert_eq!(unsafe { dot16_avx512(&a, &b) }.to_bits(), plain.to_bits());
            }
        }
    }
}
