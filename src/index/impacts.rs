//! The postings in plain arrays, read once when the index opens, with what dynamic pruning needs:
//! each term's largest tf and the shortest document that holds it.
//!
//! BM25's term weight rises with tf and falls with the document's length for every variant and
//! every k1 ≥ 0, b ∈ [0, 1], δ ≥ 0, so `weight(max tf, shortest length)` bounds a term's weights
//! whatever parameters the question is ranked with: the bounds are computed once, not per k1
//! and b. [`top_k_max_score`] uses them for MaxScore (Turtle & Flood 1995), and returns exactly
//! the ranking exhaustive scoring gives, bit for bit: a document's score is the same sum in the
//! same order.

use crate::corpus::DocId;
use crate::topk::{SmallestKeys, key_doc, key_score, rank_key};

/// Every term's postings: documents, term frequencies, and each term's bounds.
#[derive(Debug, Clone, Default)]
pub struct Impacts {
    /// Where term `o`'s postings start in `docs` / `tfs` (`offsets[o]..offsets[o + 1]`).
    offsets: Vec<usize>,
    docs: Vec<u32>,
    tfs: Vec<u32>,
    max_tf: Vec<u32>,
    min_len: Vec<u32>,
}

/// One term's postings and bounds.
#[derive(Debug, Clone, Copy)]
pub struct TermImpacts<'a> {
    /// Where the term's postings start in the index's posting arrays ([`Impacts::postings`]).
    pub start: usize,
    /// Documents, ascending.
    pub docs: &'a [u32],
    /// Their term frequencies.
    pub tfs: &'a [u32],
    /// Largest tf of the term.
    pub max_tf: u32,
    /// Shortest document holding the term.
    pub min_len: u32,
}

/// Collects the postings term by term, in the index's term order.
#[derive(Debug, Default)]
pub struct ImpactsBuilder {
    impacts: Impacts,
    current: Vec<(u32, u32)>,
}

impl ImpactsBuilder {
    /// Add one posting of the current term.
    pub fn push(&mut self, doc: u32, tf: u32) {
        self.current.push((doc, tf));
    }

    /// The current term's postings are all in; their bounds need the documents' lengths.
    pub fn end_term(&mut self) {
        let im = &mut self.impacts;
        im.offsets.push(im.docs.len());
        for (d, tf) in self.current.drain(..) {
            im.docs.push(d);
            im.tfs.push(tf);
        }
    }

    /// Finish with the exact document lengths.
    pub fn finish(mut self, doc_lens: &[u32]) -> Impacts {
        let im = &mut self.impacts;
        let terms = im.offsets.len();
        im.offsets.push(im.docs.len());
        let len = |d: u32| doc_lens.get(d as usize).copied().unwrap_or(0);
        for o in 0..terms {
            let (start, end) = (im.offsets[o], im.offsets[o + 1]);
            im.max_tf.push(im.tfs[start..end].iter().copied().max().unwrap_or(0));
            im.min_len.push(im.docs[start..end].iter().map(|&d| len(d)).min().unwrap_or(0));
        }
        self.impacts
    }
}

impl Impacts {
    /// Term `ordinal`'s postings and bounds.
    pub fn term(&self, ordinal: usize) -> Option<TermImpacts<'_>> {
        let (start, end) = (*self.offsets.get(ordinal)?, *self.offsets.get(ordinal + 1)?);
        Some(TermImpacts {
            start,
            docs: &self.docs[start..end],
            tfs: &self.tfs[start..end],
            max_tf: self.max_tf[ordinal],
            min_len: self.min_len[ordinal],
        })
    }

    /// How many terms have postings here.
    pub fn num_terms(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Every posting's document and term frequency, term after term.
    pub fn postings(&self) -> (&[u32], &[u32]) {
        (&self.docs, &self.tfs)
    }
}

/// One query term for pruned scoring.
#[derive(Debug, Clone, Copy)]
pub struct ScoredTerm<'a> {
    /// Its postings and bounds.
    pub impacts: TermImpacts<'a>,
    /// Each posting's term weight (the formula's tf part for that document), aligned with
    /// `impacts.docs`.
    pub weights: &'a [f64],
    /// What its weight is multiplied by (qtf · idf), ≥ 0.
    pub qw: f64,
}

impl ScoredTerm<'_> {
    /// The contribution of posting `p`: qw · weight, as exhaustive scoring computes it.
    #[inline(always)]
    fn part(&self, p: usize) -> f64 {
        (self.qw + 0.0) * self.weights[p]
    }
}

/// How a posting's contribution is made of its term's `qw` and its own weight, and how a
/// document's sum of contributions becomes its score.
pub trait Combine {
    /// One posting's contribution (≥ +0.0 when `qw` and `w` are).
    fn part(qw: f64, w: f64) -> f64;
    /// The score of a document whose contributions sum to `sum` (monotone; −0.0 stays −0.0).
    fn finish(sum: f64) -> f64;
    /// `finish(sum)` is `sum` rounded to f32 (Lucene's float scores): the pass over the
    /// accumulators then compares eight scores at a time as f32 bits.
    const FINISHES_IN_F32: bool = false;
}

/// qw · w, summed in f64: every formula but Lucene's own float arithmetic.
pub struct Product;

impl Combine for Product {
    #[inline(always)]
    fn part(qw: f64, w: f64) -> f64 {
        qw * w
    }

    #[inline(always)]
    fn finish(sum: f64) -> f64 {
        sum
    }
}

/// Floating-point sums of the same parts in another order may differ in the last bits: bounds
/// are raised by this much so a bound is never below the score it bounds.
fn raise(bound: f64) -> f64 {
    bound * (1.0 + 1e-12) + 1e-300
}

/// The first posting at or after `pos` whose document is ≥ `doc` (galloping, then binary search).
fn seek(docs: &[u32], pos: usize, doc: u32) -> usize {
    if docs.get(pos).is_none_or(|&d| d >= doc) {
        return pos;
    }
    let (mut lo, mut step) = (pos, 1);
    while lo + step < docs.len() && docs[lo + step] < doc {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step + 1).min(docs.len());
    lo + docs[lo..hi].partition_point(|&d| d < doc)
}

/// An accumulator no posting has reached holds −0.0: every contribution is ≥ +0.0 (qw and the
/// weights are never negative, and qw is made +0.0 when it is −0.0), and −0.0 + x is x bit for
/// bit, so a sum started from −0.0 is the sum started from 0.0, and −0.0 marks "unseen" with no
/// array of flags to keep.
const UNSEEN: f64 = -0.0;

fn unseen(a: f64) -> bool {
    a.to_bits() == UNSEEN.to_bits()
}

/// Accumulators reused from one question to the next on a thread (left all [`UNSEEN`] and
/// unflagged after each question), so ranking a question allocates nothing corpus-sized.
#[derive(Default)]
struct Scratch {
    acc: Vec<f64>,
    seen: Vec<bool>,
    touched: Vec<u32>,
    in_f32: InF32,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

fn with_scratch<T>(num_docs: usize, f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|cell| {
        let mut fresh = Scratch::default();
        let mut guard = cell.try_borrow_mut();
        let s = match guard.as_deref_mut() {
            Ok(s) => s,
            // Re-entered on this thread (never in practice): use a scratch of its own.
            Err(_) => &mut fresh,
        };
        if s.acc.len() < num_docs {
            s.acc.resize(num_docs, UNSEEN);
            s.seen.resize(num_docs, false);
        }
        let out = f(s);
        for &d in &s.touched {
            s.acc[d as usize] = UNSEEN;
            s.seen[d as usize] = false;
        }
        s.touched.clear();
        out
    })
}

/// `(score, doc)` pairs of the k smallest keys, best first.
fn pairs(top: SmallestKeys) -> Vec<(f64, DocId)> {
    top.into_sorted().into_iter().map(|key| (key_score(key), key_doc(key))).collect()
}

/// Keep the k best of `(score, doc)` pairs, best first, ties by ascending document.
fn best_k(scored: impl Iterator<Item = (f64, u32)>, k: usize) -> Vec<(f64, DocId)> {
    let mut top = SmallestKeys::new(k);
    for (score, doc) in scored {
        top.push(rank_key(score, DocId(doc)));
    }
    pairs(top)
}

/// The k best documents of a disjunctive query by scoring every posting, term by term in query
/// order (a document's score is Σ qw · weight over its postings, added in that order), and how
/// many documents match.
pub fn top_k_exhaustive(
    terms: &[ScoredTerm<'_>],
    k: usize,
    allowed: Option<&[bool]>,
    num_docs: usize,
) -> (Vec<(f64, DocId)>, usize) {
    top_k_exhaustive_by::<Product>(terms, k, allowed, num_docs)
}

/// As [`top_k_exhaustive`], each posting's contribution and each document's score made as `C`
/// makes them.
pub fn top_k_exhaustive_by<C: Combine>(
    terms: &[ScoredTerm<'_>],
    k: usize,
    allowed: Option<&[bool]>,
    num_docs: usize,
) -> (Vec<(f64, DocId)>, usize) {
    let usable = |t: &&ScoredTerm<'_>| {
        // Documents are ascending: one check of the last keeps every index in bounds.
        t.impacts.docs.last().is_none_or(|&d| (d as usize) < num_docs) && t.weights.len() == t.impacts.docs.len()
    };
    let postings: usize = terms.iter().filter(usable).map(|t| t.impacts.docs.len()).sum();
    // Short lists against the corpus: remember the documents reached and rank those; otherwise
    // one pass over every accumulator is cheaper than a list of them.
    let sparse = postings.saturating_mul(4) < num_docs;
    with_scratch(num_docs, |s| {
        let ok = |d: u32| allowed.is_none_or(|a| a.get(d as usize).copied().unwrap_or(false));
        let acc = &mut s.acc[..num_docs];
        for t in terms.iter().filter(usable) {
            // +0.0 for −0.0, so no contribution is −0.0 (see UNSEEN).
            let qw = t.qw + 0.0;
            let (docs, weights) = (t.impacts.docs, t.weights);
            match (allowed, sparse) {
                (None, false) => {
                    for (&d, &w) in docs.iter().zip(weights) {
                        acc[d as usize] += C::part(qw, w);
                    }
                }
                _ => {
                    for (&d, &w) in docs.iter().zip(weights) {
                        if ok(d) {
                            let a = &mut acc[d as usize];
                            if sparse && unseen(*a) {
                                s.touched.push(d);
                            }
                            *a += C::part(qw, w);
                        }
                    }
                }
            }
        }
        if sparse {
            let top = best_k(s.touched.iter().map(|&d| (C::finish(acc[d as usize]), d)), k);
            return (top, s.touched.len());
        }
        let mut top = SmallestKeys::new(k);
        let total = offer_all::<C>(acc, &mut top, &mut s.in_f32);
        (pairs(top), total)
    })
}

/// Offer every document an accumulator has reached to `top` (its score made by `C::finish`),
/// leave every accumulator [`UNSEEN`], and return how many were reached. `f` is scratch for a
/// [`Combine`] that finishes in f32.
fn offer_all<C: Combine>(acc: &mut [f64], top: &mut SmallestKeys, f: &mut InF32) -> usize {
    if C::FINISHES_IN_F32 {
        return offer_all_in_f32(acc, top, f, true);
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the only feature the function is compiled for.
        return unsafe { offer_all_avx2::<C>(acc, top) };
    }
    offer_all_plain::<C>(acc, top)
}

/// Scratch of [`offer_all_in_f32`]: each accumulator's score as f32 bits, each block's largest.
#[derive(Default)]
struct InF32 {
    bits: Vec<u32>,
    block_max: Vec<i32>,
    picked: Vec<i32>,
}

/// Documents per block of [`offer_all_in_f32`].
const BLOCK: usize = 64;

/// [`offer_all_plain`] for scores that are the sums rounded to f32 (Lucene's), in two passes.
///
/// The first rounds every accumulator to f32 (`vcvtpd2ps` rounds to nearest even, as `as f32`
/// does), keeps the bits, counts the documents reached, keeps each block of 64 documents'
/// largest score, and resets the accumulators to [`UNSEEN`] — eight at a time where the CPU has
/// AVX2 (`vector`), one at a time otherwise. For scores ≥ +0.0 and the unseen −0.0 (whose f32 bits
/// are the least i32) the order of f32 bits as integers is the order of the scores.
///
/// k blocks hold a document scoring at least the k-th largest of the blocks' maxima, so the k-th
/// best score is at least that much: the second pass reads only the blocks whose maximum reaches
/// it, and offers their documents that do, in document order. A document left out scores below
/// k others, so the k kept are those a pass offering every document keeps, ties included (the
/// keys break them by document). This offers a top 10 a few dozen documents instead of the
/// hundred or so a single pass in document order meets as its k-th score rises.
fn offer_all_in_f32(acc: &mut [f64], top: &mut SmallestKeys, f: &mut InF32, vector: bool) -> usize {
    let n = acc.len();
    let blocks = n.div_ceil(BLOCK);
    if f.bits.len() < n {
        f.bits.resize(n, 0);
    }
    f.block_max.clear();
    f.block_max.resize(blocks, i32::MIN);
    let (bits, block_max) = (&mut f.bits[..n], &mut f.block_max[..]);
    #[cfg(target_arch = "x86_64")]
    let total = if vector && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the only feature the function is compiled for.
        unsafe { finish_in_f32_avx2(acc, bits, block_max) }
    } else {
        finish_in_f32_plain(acc, bits, block_max, 0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let total = {
        let _ = vector;
        finish_in_f32_plain(acc, bits, block_max, 0)
    };
    let k = top.k();
    if k == 0 {
        return total;
    }
    // The k-th largest maximum of the blocks any document reached (0 = any score, while fewer
    // than k blocks hold one).
    f.picked.clear();
    f.picked.extend(block_max.iter().copied().filter(|&m| m >= 0));
    let least = match f.picked.len() >= k {
        true => *f.picked.select_nth_unstable_by(k - 1, |a, b| b.cmp(a)).1,
        false => 0,
    };
    #[cfg(target_arch = "x86_64")]
    if vector && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, the only feature the function is compiled for.
        unsafe { offer_blocks_avx2(bits, block_max, least, top) };
        return total;
    }
    offer_blocks(bits, block_max, least, top);
    total
}

/// The second pass of [`offer_all_in_f32`]: offer the documents of the blocks whose maximum
/// reaches `least` that score at least `least` and the k-th score kept so far.
#[inline(always)]
fn offer_blocks(bits: &[u32], block_max: &[i32], least: i32, top: &mut SmallestKeys) {
    let floor_bits = |top: &SmallestKeys| match top.floor() {
        u128::MAX => least,
        key => least.max((key_score(key) as f32).to_bits() as i32),
    };
    let mut floor = floor_bits(top);
    for (b, &m) in block_max.iter().enumerate() {
        if m < floor {
            continue;
        }
        let first = b * BLOCK;
        let block = bits.get(first..bits.len().min(first + BLOCK)).unwrap_or_default();
        // Eight at a time, so the comparison is one vector operation; only a group holding a
        // document that reaches the floor is offered one by one.
        let mut offer = |group: &[u32], at: usize, floor: &mut i32| {
            for (j, &score) in group.iter().enumerate() {
                if score as i32 >= *floor {
                    top.push(rank_key(f64::from(f32::from_bits(score)), DocId((at + j) as u32)));
                    *floor = floor_bits(top);
                }
            }
        };
        let (groups, rest) = block.as_chunks::<8>();
        for (g, group) in groups.iter().enumerate() {
            if group.iter().fold(false, |c, &s| c | (s as i32 >= floor)) {
                offer(group, first + g * 8, &mut floor);
            }
        }
        offer(rest, first + block.len() - rest.len(), &mut floor);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn offer_blocks_avx2(bits: &[u32], block_max: &[i32], least: i32, top: &mut SmallestKeys) {
    offer_blocks(bits, block_max, least, top)
}

/// The first pass of [`offer_all_in_f32`] from accumulator `from` on, one at a time.
fn finish_in_f32_plain(acc: &mut [f64], bits: &mut [u32], block_max: &mut [i32], from: usize) -> usize {
    let mut total = 0;
    let mut d = from;
    let n = acc.len().min(bits.len());
    while d < n {
        // To the end of `d`'s block.
        let end = n.min((d / BLOCK + 1) * BLOCK);
        let mut most = i32::MIN;
        for (a, out) in acc[d..end].iter_mut().zip(&mut bits[d..end]) {
            let score = (std::mem::replace(a, UNSEEN) as f32).to_bits();
            total += usize::from(score != (UNSEEN as f32).to_bits());
            *out = score;
            most = most.max(score as i32);
        }
        if let Some(m) = block_max.get_mut(d / BLOCK) {
            *m = (*m).max(most);
        }
        d = end;
    }
    total
}

/// The first pass of [`offer_all_in_f32`], eight accumulators at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn finish_in_f32_avx2(acc: &mut [f64], bits: &mut [u32], block_max: &mut [i32]) -> usize {
    use std::arch::x86_64::*;
    const GROUP: usize = 8;
    const _: () = assert!(BLOCK.is_multiple_of(GROUP));
    let unseen_pd = _mm256_set1_pd(UNSEEN);
    let unseen_ps = _mm256_set1_epi32((UNSEEN as f32).to_bits() as i32);
    let n = acc.len().min(bits.len());
    let groups = n / GROUP;
    let (p, out) = (acc.as_mut_ptr(), bits.as_mut_ptr());
    // Unseen accumulators, counted down lane by lane (a comparison's true is −1).
    let mut unseen = _mm256_setzero_si256();
    let mut most = _mm256_set1_epi32(i32::MIN);
    let lanes = |v: __m256i| {
        let mut l = [0i32; GROUP];
        // SAFETY: eight 32-bit lanes into eight i32.
        unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), v) };
        l
    };
    for g in 0..groups {
        let first = g * GROUP;
        // SAFETY: first + 8 ≤ groups · 8 ≤ acc.len(), bits.len().
        let b = unsafe {
            let q = p.add(first);
            let (lo, hi) = (_mm256_loadu_pd(q), _mm256_loadu_pd(q.add(4)));
            _mm256_storeu_pd(q, unseen_pd);
            _mm256_storeu_pd(q.add(4), unseen_pd);
            let b = _mm256_castps_si256(_mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
            _mm256_storeu_si256(out.add(first).cast(), b);
            b
        };
        unseen = _mm256_add_epi32(unseen, _mm256_cmpeq_epi32(b, unseen_ps));
        most = _mm256_max_epi32(most, b);
        if (first + GROUP).is_multiple_of(BLOCK) || g + 1 == groups {
            if let Some(m) = block_max.get_mut(first / BLOCK) {
                *m = lanes(most).into_iter().fold(*m, i32::max);
            }
            most = _mm256_set1_epi32(i32::MIN);
        }
    }
    let unseen: usize = lanes(unseen).iter().map(|&c| c.unsigned_abs() as usize).sum();
    groups * GROUP - unseen + finish_in_f32_plain(acc, bits, block_max, groups * GROUP)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn offer_all_avx2<C: Combine>(acc: &mut [f64], top: &mut SmallestKeys) -> usize {
    offer_all_plain::<C>(acc, top)
}

#[inline(always)]
fn offer_all_plain<C: Combine>(acc: &mut [f64], top: &mut SmallestKeys) -> usize {
    // One pass: count the matches, offer them, and leave every accumulator UNSEEN. Scores
    // are ≥ +0.0, whose bits order as integers do, and UNSEEN's bits are the least i64: one
    // integer comparison with the k-th score turns away the unseen and the too-low alike,
    // with no branch on whether a document was seen (half of them are, at random).
    let floor_bits = |top: &SmallestKeys| match top.floor() {
        u128::MAX => 0,
        key => key_score(key).to_bits() as i64,
    };
    let mut floor = floor_bits(top);
    let mut total = 0;
    // Eight accumulators at a time, so the finishing, the reset, the count and the comparison
    // run as vector operations; only a group holding a document that clears the floor (rare
    // once k are kept) is offered one by one, in order, as a plain loop would.
    const GROUP: usize = 8;
    let mut groups = acc.chunks_exact_mut(GROUP);
    let mut first = 0usize;
    for group in &mut groups {
        let mut bits = [0u64; GROUP];
        for (b, a) in bits.iter_mut().zip(group.iter_mut()) {
            *b = C::finish(std::mem::replace(a, UNSEEN)).to_bits();
        }
        let mut clears = false;
        for &b in &bits {
            total += usize::from(b != UNSEEN.to_bits());
            clears |= b as i64 >= floor;
        }
        if clears {
            for (j, &b) in bits.iter().enumerate() {
                if b as i64 >= floor {
                    top.push(rank_key(f64::from_bits(b), DocId((first + j) as u32)));
                    floor = floor_bits(top);
                }
            }
        }
        first += GROUP;
    }
    for (j, a) in groups.into_remainder().iter_mut().enumerate() {
        let bits = C::finish(std::mem::replace(a, UNSEEN)).to_bits();
        total += usize::from(bits != UNSEEN.to_bits());
        if bits as i64 >= floor {
            top.push(rank_key(f64::from_bits(bits), DocId((first + j) as u32)));
            floor = floor_bits(top);
        }
    }
    total
}

/// The k best documents `(score, doc)` of a disjunctive query, best first (ties by ascending
/// document), exactly as [`top_k_exhaustive`] ranks them — pruned in the manner of MaxScore,
/// term at a time (Turtle & Flood 1995; the "quit and continue" of Moffat & Zobel 1996).
///
/// Terms are read from the largest bound down. Once k documents score above what every unread
/// term could still add, no document unseen so far can make the list: the unread lists (the long
/// ones of common words, whose bounds are small) are then only probed for the candidates that can
/// still reach the k-th score θ, and candidates drop out as θ rises. The survivors are scored
/// exactly — their contributions added in query-term order, as exhaustive scoring adds them — so
/// the ranking is the exhaustive one bit for bit.
///
/// `bound(slot, tf, len)` bounds term `slot`'s contribution to any document holding it at most
/// `tf` times with a length of at least `len`. Documents `allowed` rejects are skipped. Also
/// returns how many documents match any term (and are allowed).
pub fn top_k_max_score(
    terms: &[ScoredTerm<'_>],
    k: usize,
    bound: impl Fn(usize, u32, u32) -> f64,
    allowed: Option<&[bool]>,
    num_docs: usize,
) -> (Vec<(f64, DocId)>, usize) {
    if k == 0 {
        return (Vec::new(), top_k_exhaustive(terms, 0, allowed, num_docs).1);
    }
    match max_score(terms, k, bound, allowed, num_docs) {
        Some(p) => (p.top, p.total),
        None => top_k_exhaustive(terms, k, allowed, num_docs),
    }
}

/// What MaxScore ranked by itself.
struct Pruned {
    /// The k best, best first.
    top: Vec<(f64, DocId)>,
    /// Documents matching any term.
    total: usize,
    /// Lists read whole before the others were only probed for candidates (the tests check that
    /// MaxScore skips what it should).
    #[cfg_attr(not(test), allow(dead_code))]
    lists_read: usize,
}

/// MaxScore proper (k ≥ 1), as [`top_k_max_score`] describes it; `None` where documents that
/// score 0 may tie at the bottom of the list, which exhaustive scoring then decides.
fn max_score(
    terms: &[ScoredTerm<'_>],
    k: usize,
    bound: impl Fn(usize, u32, u32) -> f64,
    allowed: Option<&[bool]>,
    num_docs: usize,
) -> Option<Pruned> {
    let ok = |d: u32| allowed.is_none_or(|a| a.get(d as usize).copied().unwrap_or(false));
    // Terms from the largest bound down, and what the terms after each could still add.
    let bounds: Vec<f64> =
        terms.iter().enumerate().map(|(s, t)| raise(bound(s, t.impacts.max_tf, t.impacts.min_len))).collect();
    let mut order: Vec<usize> = (0..terms.len()).filter(|&s| !terms[s].impacts.docs.is_empty()).collect();
    order.sort_by(|&a, &b| bounds[b].total_cmp(&bounds[a]).then(a.cmp(&b)));
    let mut rest = vec![0.0f64; order.len() + 1];
    for i in (0..order.len()).rev() {
        rest[i] = raise(rest[i + 1] + bounds[order[i]]);
    }
    with_scratch(num_docs, |s| {
        // Phase 1: whole lists into the accumulators, until no unseen document can make the list.
        let mut read = 0;
        let mut best = 0.0f64;
        while read < order.len() {
            let t = &terms[order[read]];
            for (p, &d) in t.impacts.docs.iter().enumerate() {
                let i = d as usize;
                if i >= num_docs || p >= t.weights.len() || !ok(d) {
                    continue;
                }
                if !s.seen[i] {
                    s.seen[i] = true;
                    s.touched.push(d);
                }
                let a = &mut s.acc[i];
                *a += t.part(p);
                best = best.max(*a);
            }
            read += 1;
            // Stop once k documents score above all the unread terms could add (looked at only
            // when the best score does, which is necessary for it).
            if read < order.len() && s.touched.len() >= k && rest[read] < best {
                let above = s.touched.iter().filter(|&&d| s.acc[d as usize] > rest[read]).take(k).count();
                if above >= k {
                    break;
                }
            }
        }
        // Documents only the unread lists hold still count as matches.
        let mut total = s.touched.len();
        for &slot in &order[read..] {
            for &d in terms[slot].impacts.docs {
                let i = d as usize;
                if i < num_docs && !s.seen[i] && ok(d) {
                    s.seen[i] = true;
                    s.touched.push(d);
                    total += 1;
                }
            }
        }
        // Phase 2: candidates that can still reach the k-th score, probing the unread lists.
        // When every list was read there is nothing to probe, but the sums were added in bound
        // order: the candidates are those that reach the k-th sum, and their exact sums follow.
        let theta_of = |values: &mut Vec<f64>| -> f64 {
            if values.len() < k {
                return f64::NEG_INFINITY;
            }
            let (_, t, _) = values.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
            *t
        };
        let mut values: Vec<f64> = s.touched.iter().map(|&d| s.acc[d as usize]).collect();
        let mut theta = theta_of(&mut values);
        let r = rest[read];
        let mut cands: Vec<(u32, f64)> =
            s.touched.iter().map(|&d| (d, s.acc[d as usize])).filter(|&(_, a)| raise(a + r) >= theta).collect();
        cands.sort_unstable_by_key(|c| c.0);
        for (i, &slot) in order.iter().enumerate().skip(read) {
            let t = &terms[slot];
            let mut pos = 0;
            for c in cands.iter_mut() {
                pos = seek(t.impacts.docs, pos, c.0);
                if t.impacts.docs.get(pos) == Some(&c.0) && pos < t.weights.len() {
                    c.1 += t.part(pos);
                }
            }
            values.clear();
            values.extend(cands.iter().map(|c| c.1));
            theta = theta.max(theta_of(&mut values));
            cands.retain(|c| raise(c.1 + rest[i + 1]) >= theta);
        }
        // Exact scores of the survivors, parts in query order.
        let mut exact = Vec::with_capacity(cands.len());
        for &(d, _) in &cands {
            let mut sum = 0.0;
            for t in terms {
                let docs = t.impacts.docs;
                let p = docs.partition_point(|&x| x < d);
                if docs.get(p) == Some(&d) && p < t.weights.len() {
                    sum += t.part(p);
                }
            }
            exact.push((sum, d));
        }
        let top = best_k(exact.into_iter(), k);
        // Documents that score 0 (terms whose weight is 0) may tie at the bottom: exhaustive
        // scoring ranks every match, so let it decide those rare lists.
        let zero_can_tie = top.len() < k.min(total) || top.get(k - 1).is_some_and(|e| e.0 <= 0.0);
        if zero_can_tie { None } else { Some(Pruned { top, total, lists_read: read }) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exhaustive scoring, written again: every posting, summed term by term.
    fn exhaustive(lists: &[Vec<(u32, u32)>], qw: &[f64], lens: &[u32], k: usize) -> Vec<(f64, u32)> {
        let mut acc = vec![0.0f64; lens.len()];
        let mut seen = vec![false; lens.len()];
        for (t, list) in lists.iter().enumerate() {
            for &(d, tf) in list {
                acc[d as usize] += qw[t] * w(tf, lens[d as usize]);
                seen[d as usize] = true;
            }
        }
        let mut all: Vec<(f64, u32)> = (0..lens.len()).filter(|&d| seen[d]).map(|d| (acc[d], d as u32)).collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(k);
        all
    }

    fn w(tf: u32, len: u32) -> f64 {
        let tf = f64::from(tf);
        tf / (tf + 1.2 * (0.25 + 0.75 * f64::from(len) / 20.0))
    }

    /// The postings of `lists` (term after term) and each posting's weight `w(tf, len)`.
    fn index(lists: &[Vec<(u32, u32)>], lens: &[u32]) -> (Impacts, Vec<f64>) {
        let mut b = ImpactsBuilder::default();
        for list in lists {
            for &(d, tf) in list {
                b.push(d, tf);
            }
            b.end_term();
        }
        let im = b.finish(lens);
        let (docs, tfs) = im.postings();
        let weights = docs.iter().zip(tfs).map(|(&d, &tf)| w(tf, lens[d as usize])).collect();
        (im, weights)
    }

    #[test]
    fn the_index_counts_its_terms_an_empty_one_included() {
        let (im, _) = index(&[vec![(0, 1)], vec![], vec![(1, 2), (2, 1)]], &[3, 4, 5]);
        assert_eq!(im.num_terms(), 3, "three lists, the empty one counted");
        assert_eq!(im.term(1).map(|t| t.docs.len()), Some(0));
        assert_eq!(index(&[], &[]).0.num_terms(), 0);
    }

    /// Each term of the index with its weights and `qw`.
    fn scored<'a>(im: &'a Impacts, weights: &'a [f64], qw: &[f64]) -> Vec<ScoredTerm<'a>> {
        (0..qw.len())
            .map(|o| {
                let impacts = im.term(o).unwrap();
                ScoredTerm { impacts, weights: &weights[impacts.start..impacts.start + impacts.docs.len()], qw: qw[o] }
            })
            .collect()
    }

    #[test]
    fn both_builds_of_the_pass_over_the_accumulators_offer_the_same_documents() {
        // 1,003 accumulators (whole groups and a remainder), about a third unseen, some scores
        // tied.
        let mut x = 17u64;
        let acc: Vec<f64> = (0..1_003)
            .map(|_| {
                x = crate::lcg::lcg(x);
                match x >> 62 {
                    0 => UNSEEN,
                    1 => 2.5,
                    _ => ((x >> 20) % 10_000) as f64 / 100.0,
                }
            })
            .collect();
        let want = seen_best_first(&acc, Product::finish);
        let matches = want.len();
        let want = best_bits(&want, 25);
        for build in 0..2 {
            let mut a = acc.clone();
            let mut top = SmallestKeys::new(25);
            let total = if build == 0 {
                offer_all::<Product>(&mut a, &mut top, &mut InF32::default())
            } else {
                offer_all_plain::<Product>(&mut a, &mut top)
            };
            assert_eq!(total, matches, "build {build}");
            assert_eq!(bits(&pairs(top)), want, "build {build}");
            assert!(a.iter().all(|&v| unseen(v)), "build {build} left an accumulator set");
        }
    }

    /// Scores rounded to f32, as Lucene's are.
    struct RoundedToF32;

    impl Combine for RoundedToF32 {
        fn part(qw: f64, w: f64) -> f64 {
            qw * w
        }

        fn finish(sum: f64) -> f64 {
            f64::from(sum as f32)
        }

        const FINISHES_IN_F32: bool = true;
    }

    #[test]
    fn the_pass_over_accumulators_finishing_in_f32_offers_what_a_sort_of_the_rounded_scores_gives() {
        // About an eighth of the accumulators round to the same f32, 90.0, spread over every
        // block, with about fifty scores above them (ties decided by document across blocks);
        // some round to +0.0 (seen, so counted); about a quarter are unseen. 1,003 of them
        // (whole blocks of 64, whole groups of 8 and a remainder); k from 0 (nothing kept, every
        // match still counted) through the tie to more than match.
        let mut x = 5u64;
        let acc: Vec<f64> = (0..1_003)
            .map(|_| {
                x = crate::lcg::lcg(x);
                match x >> 61 {
                    0 | 1 => UNSEEN,
                    2 => 90.0 + f64::from((x >> 20) as u32 % 4) * 1e-9,
                    3 => 1e-60,
                    _ => ((x >> 20) % 100_000) as f64 / 997.0,
                }
            })
            .collect();
        let rounded = seen_best_first(&acc, RoundedToF32::finish);
        let matches = rounded.len();
        let above = rounded.iter().filter(|r| r.0 > 90.0).count();
        let tied = rounded.iter().filter(|r| r.0 == 90.0).count();
        assert!(above > 25 && above < 100 && above + tied > 100, "{above} above the tie, {tied} tied");
        assert!(rounded.iter().any(|r| r.0.to_bits() == 0), "a seen score rounding to +0.0");
        // Scratch left by a longer question with higher scores: nothing of it may leak.
        let mut scratch = InF32::default();
        let mut top = SmallestKeys::new(10);
        offer_all::<RoundedToF32>(&mut vec![500.0; 1_500], &mut top, &mut scratch);
        // k about the number of blocks a match reached: the k-th largest of their maxima exists
        // only from k = that number down.
        let reached = acc.chunks(BLOCK).filter(|b| b.iter().any(|&a| !unseen(a))).count();
        assert_eq!(reached, 16);
        for k in [0, 1, 10, reached - 1, reached, reached + 1, 25, 100, matches - 1, matches, matches + 5] {
            let want = best_bits(&rounded, k);
            for build in 0..3 {
                let mut a = acc.clone();
                let mut top = SmallestKeys::new(k);
                let total = match build {
                    0 => offer_all::<RoundedToF32>(&mut a, &mut top, &mut scratch),
                    1 => offer_all_in_f32(&mut a, &mut top, &mut scratch, false),
                    _ => offer_all_plain::<RoundedToF32>(&mut a, &mut top),
                };
                assert_eq!(total, matches, "build {build}, k {k}");
                assert_eq!(bits(&pairs(top)), want, "build {build}, k {k}");
                assert!(a.iter().all(|&v| unseen(v)), "build {build} left an accumulator set");
            }
        }
        // Fewer accumulators than a group, a block, and none.
        for len in [0, 5, 8, 63, 64, 65] {
            let want = seen_best_first(&acc[..len], RoundedToF32::finish);
            let mut a = acc[..len].to_vec();
            let mut top = SmallestKeys::new(3);
            assert_eq!(offer_all::<RoundedToF32>(&mut a, &mut top, &mut scratch), want.len(), "{len} accumulators");
            assert_eq!(bits(&pairs(top)), best_bits(&want, 3), "{len} accumulators");
        }
    }

    /// The accumulators a posting reached, as `(finish(sum), document)`, best first, ties by
    /// document: the order a pass over the accumulators must keep, made by a sort.
    fn seen_best_first(acc: &[f64], finish: fn(f64) -> f64) -> Vec<(f64, u32)> {
        let mut seen: Vec<(f64, u32)> =
            acc.iter().enumerate().filter(|(_, a)| !unseen(**a)).map(|(j, &a)| (finish(a), j as u32)).collect();
        seen.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        seen
    }

    /// The first k of a ranking, its scores as bits.
    fn best_bits(ranked: &[(f64, u32)], k: usize) -> Vec<(u64, u32)> {
        ranked.iter().take(k).map(|&(s, d)| (s.to_bits(), d)).collect()
    }

    /// A ranking's scores as bits, and its documents.
    fn bits(v: &[(f64, DocId)]) -> Vec<(u64, u32)> {
        v.iter().map(|(s, d)| (s.to_bits(), d.0)).collect()
    }

    fn run(lists: &[Vec<(u32, u32)>], qw: &[f64], lens: &[u32], k: usize) -> (Vec<(f64, u32)>, usize) {
        let (im, weights) = index(lists, lens);
        let terms = scored(&im, &weights, &qw[..lists.len()]);
        let bound = |slot: usize, tf, len| qw[slot] * w(tf, len);
        let (top, total) = top_k_max_score(&terms, k, bound, None, lens.len());
        let (plain, plain_total) = top_k_exhaustive(&terms, k, None, lens.len());
        assert_eq!(total, plain_total);
        assert_eq!(bits(&top), bits(&plain), "pruned and plain top-k agree");
        // MaxScore by itself (no fallback): where it answers, it answers exactly; it declines
        // only where a document scoring 0 could tie at the bottom.
        match max_score(&terms, k, bound, None, lens.len()) {
            Some(p) => {
                assert_eq!(bits(&p.top), bits(&plain), "MaxScore alone agrees");
                assert_eq!(p.total, plain_total);
            }
            None => assert!(plain.len() < k || plain.last().is_some_and(|e| e.0 <= 0.0), "declined needlessly"),
        }
        // A filter (every third document left out): both rank what full scoring ranks once the
        // documents left out are struck, and MaxScore still answers exactly or declines.
        let allowed: Vec<bool> = (0..lens.len()).map(|d| d % 3 != 1).collect();
        let (all, _) = top_k_exhaustive(&terms, lens.len(), None, lens.len());
        let want: Vec<(f64, DocId)> = all.into_iter().filter(|(_, d)| allowed[d.0 as usize]).take(k).collect();
        let (filtered, filtered_total) = top_k_exhaustive(&terms, k, Some(&allowed), lens.len());
        assert_eq!(bits(&filtered), bits(&want), "filtered exhaustive");
        let (pruned, pruned_total) = top_k_max_score(&terms, k, bound, Some(&allowed), lens.len());
        assert_eq!((bits(&pruned), pruned_total), (bits(&want), filtered_total), "filtered pruned");
        if let Some(p) = max_score(&terms, k, bound, Some(&allowed), lens.len()) {
            assert_eq!((bits(&p.top), p.total), (bits(&want), filtered_total), "filtered MaxScore alone");
        }
        (top.into_iter().map(|(s, d)| (s, d.0)).collect(), total)
    }

    /// Exhaustive scoring skips a term it cannot read safely (a document past the corpus,
    /// weights of another length), and a `qw` of −0.0 still counts its matches at +0.0 (the
    /// accumulators' "unseen" mark is −0.0), on both the sparse and the dense path.
    #[test]
    fn exhaustive_scoring_skips_unreadable_terms_and_minus_zero_hides_no_match() {
        let lens = vec![10u32; 100];
        let (im, weights) = index(&[vec![(1, 1), (3, 2)], vec![(2, 1), (99, 1)]], &lens);
        let terms = scored(&im, &weights, &[1.0, 1.0]);
        let docs = |top: &[(f64, DocId)]| top.iter().map(|(_, d)| d.0).collect::<Vec<_>>();
        let (top, total) = top_k_exhaustive(&terms, 10, None, 100);
        assert_eq!((docs(&top), total), (vec![3, 1, 2, 99], 4));
        // 99 documents: the second term reaches document 99, past the end, and is left out.
        let (top, total) = top_k_exhaustive(&terms, 10, None, 99);
        assert_eq!((docs(&top), total), (vec![3, 1], 2));
        let short = ScoredTerm { weights: &terms[0].weights[..1], ..terms[0] };
        let (top, total) = top_k_exhaustive(&[short, terms[1]], 10, None, 100);
        assert_eq!((docs(&top), total), (vec![2, 99], 2));
        let zero = [ScoredTerm { qw: -0.0, ..terms[0] }];
        for num_docs in [100, 5] {
            // 2 postings: sparse against 100 documents, dense against 5.
            let (top, total) = top_k_exhaustive(&zero, 10, None, num_docs);
            assert_eq!((bits(&top), total), (vec![(0, 1), (0, 3)], 2), "{num_docs} documents");
        }
    }

    /// A rare term of large weight and two common ones of small weight (every document holds
    /// them): once the rare list is read, the best k are above all the common terms could add,
    /// so the common lists are only probed for those candidates — and the ranking is exact.
    #[test]
    fn max_score_reads_the_rare_list_and_only_probes_the_common_ones() {
        let lens: Vec<u32> = (0..1000).map(|d| 10 + d % 7).collect();
        let rare: Vec<(u32, u32)> = (0..1000).step_by(50).map(|d| (d, 3)).collect();
        let common: Vec<(u32, u32)> = (0..1000).map(|d| (d, 1 + d % 2)).collect();
        let lists = [common.clone(), rare, common];
        let qw = [0.05, 5.0, 0.04];
        let (im, weights) = index(&lists, &lens);
        let terms = scored(&im, &weights, &qw);
        // Bounds by hand: the rare term 5 · w(3, 10), the common ones 0.05 · w(2, 10) and
        // 0.04 · w(2, 10).
        assert_eq!((im.term(1).unwrap().max_tf, im.term(1).unwrap().min_len), (3, 10));
        assert_eq!((im.term(0).unwrap().max_tf, im.term(0).unwrap().min_len), (2, 10));
        let p = max_score(&terms, 5, |slot, tf, len| qw[slot] * w(tf, len), None, lens.len()).expect("no zero scores");
        assert_eq!(p.lists_read, 1, "only the rare list is read whole");
        assert_eq!(p.total, 1000);
        let (plain, _) = top_k_exhaustive(&terms, 5, None, lens.len());
        assert_eq!(bits(&p.top), bits(&plain));
        // The best five hold the rare term: documents 0, 50, … of the shortest lengths first.
        assert!(p.top.iter().all(|(_, d)| d.0 % 50 == 0), "{:?}", p.top);
        // Bounds too loose to prune with: every list is read whole, and the ranking is the same.
        let p = max_score(&terms, 5, |_, _, _| 100.0, None, lens.len()).expect("no zero scores");
        assert_eq!(p.lists_read, 3);
        assert_eq!(bits(&p.top), bits(&plain));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Seeking from any position finds the first document at or after the one sought.
        #[test]
        fn seek_finds_the_first_posting_at_or_after(
            mut docs in proptest::collection::vec(0u32..5000, 0..300),
            pos in 0usize..310,
            doc in 0u32..5100,
        ) {
            docs.sort_unstable();
            docs.dedup();
            let pos = pos.min(docs.len());
            let want = pos + docs[pos..].partition_point(|&d| d < doc);
            proptest::prop_assert_eq!(seek(&docs, pos, doc), want);
        }
    }

    #[test]
    fn pruned_and_exhaustive_rankings_are_the_same_bit_for_bit() {
        let lens: Vec<u32> = (0..300).map(|d| 5 + (d * 37 % 41)).collect();
        let lists: Vec<Vec<(u32, u32)>> = (0..5u32)
            .map(|t| (0..300u32).filter(|d| (d * (t + 3) + t) % (t + 2) == 0).map(|d| (d, 1 + (d + t) % 4)).collect())
            .collect();
        let qw = [0.3, 2.5, 1.0, 0.05, 4.0];
        for k in [1, 3, 10, 50, 400] {
            let (top, total) = run(&lists, &qw, &lens, k);
            let want = exhaustive(&lists, &qw, &lens, k);
            assert_eq!(top.len(), want.len());
            for (a, b) in top.iter().zip(&want) {
                assert_eq!((a.0.to_bits(), a.1), (b.0.to_bits(), b.1), "k={k}");
            }
            let union: std::collections::BTreeSet<u32> = lists.iter().flatten().map(|p| p.0).collect();
            assert_eq!(total, union.len());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::proptest_cases()))]

        /// Any postings, weights and k: the pruned top k is the exhaustive top k, ties included.
        #[test]
        fn max_score_is_exhaustive_scoring(
            raw in proptest::collection::vec(proptest::collection::vec((0u32..200, 1u32..6), 0..120), 1..7),
            qw in proptest::collection::vec(0.0f64..5.0, 7),
            k in 1usize..30,
            seed in 0u32..50,
        ) {
            let lens: Vec<u32> = (0..200).map(|d| 1 + (d * 7 + seed) % 30).collect();
            let lists: Vec<Vec<(u32, u32)>> = raw
                .into_iter()
                .map(|mut l| {
                    l.sort_by_key(|p| p.0);
                    l.dedup_by_key(|p| p.0);
                    l
                })
                .collect();
            let (top, _) = run(&lists, &qw[..lists.len()], &lens, k);
            let want = exhaustive(&lists, &qw[..lists.len()], &lens, k);
            let bits = |v: &[(f64, u32)]| v.iter().map(|(s, d)| (s.to_bits(), *d)).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(&top), bits(&want));
        }
    }
}
