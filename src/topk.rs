//! Top-k selection on one integer per candidate: a [`rank_key`] orders (score descending,
//! document ascending), so the k best of any ranking are the k smallest keys. A leaf module: the
//! index's plain-postings scoring and every retriever select with it.

use crate::corpus::DocId;

/// A key whose ascending order is (score descending, DocId ascending): comparing one integer is
/// much cheaper than a float comparison followed by a tie-break, and top-k selection is a large
/// part of a lexical query's time.
#[inline]
pub fn rank_key(score: f64, doc: DocId) -> u128 {
    let bits = score.to_bits();
    // Map f64 to u64 preserving total order, then invert for descending.
    let ordered = if bits >> 63 == 1 { !bits } else { bits | (1 << 63) };
    (u128::from(!ordered) << 32) | u128::from(doc.0)
}

/// The k smallest keys, sorted. Small k keeps a sorted buffer and rejects most candidates with
/// one comparison against the current k-th key; large k uses quickselect.
pub fn smallest_keys(mut keys: Vec<u128>, k: usize) -> Vec<u128> {
    if k == 0 {
        return Vec::new();
    }
    if k <= 64 && keys.len() > 4 * k {
        let mut best = SmallestKeys::new(k);
        for key in keys {
            best.push(key);
        }
        return best.into_sorted();
    }
    if keys.len() > k {
        keys.select_nth_unstable(k - 1);
        keys.truncate(k);
    }
    keys.sort_unstable();
    keys
}

/// The score a [`rank_key`] was made from (the mapping is a bijection on the bits).
#[inline]
pub fn key_score(key: u128) -> f64 {
    let ordered = !((key >> 32) as u64);
    f64::from_bits(if ordered >> 63 == 1 { ordered & !(1 << 63) } else { !ordered })
}

/// The document a [`rank_key`] was made for.
#[inline]
pub fn key_doc(key: u128) -> DocId {
    DocId(key as u32)
}

/// The k smallest keys pushed so far, kept sorted in a buffer of k: a key at or above the k-th
/// ([`SmallestKeys::floor`]) is turned away with one comparison, which is what most candidates
/// of a top-10 meet.
#[derive(Debug, Clone)]
pub struct SmallestKeys {
    k: usize,
    best: Vec<u128>,
}

impl SmallestKeys {
    /// An empty selection of the k smallest.
    pub fn new(k: usize) -> Self {
        Self { k, best: Vec::with_capacity(k + 1) }
    }

    /// How many it keeps.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Keys at or above this cannot enter: the k-th key once there are k (`u128::MAX` before,
    /// 0 when k is 0).
    #[inline]
    pub fn floor(&self) -> u128 {
        if self.best.len() < self.k { u128::MAX } else { self.best.last().copied().unwrap_or(0) }
    }

    /// Offer a key.
    #[inline]
    pub fn push(&mut self, key: u128) {
        if key >= self.floor() {
            return;
        }
        if self.best.len() == self.k {
            self.best.pop();
        }
        let pos = self.best.partition_point(|&b| b < key);
        self.best.insert(pos, key);
    }

    /// The keys kept, smallest first.
    pub fn into_sorted(self) -> Vec<u128> {
        self.best
    }
}
