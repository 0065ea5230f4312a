//! TF-IDF and BM25 over the sparse index: one scorer, many formulas.

use std::sync::Arc;

use super::{
    Detail, Explanation, MethodKind, Prepared, QueryContext, Ranking, Retriever, TermRow, TermTable, fmt_param,
    rank_key,
};
use crate::corpus::DocId;
use crate::formula::{
    Bm25Params, Bm25Variant, LexicalModel, LowerBounded, LuceneBm25, Saturating, SaturatingK1Plus1, Shifted,
    TfIdfVariant, TfShape, TfWeight, length_norm, small_float,
};
use crate::index::SparseIndex;
use crate::index::impacts::{Combine, Product};
use crate::{Error, Result};

/// A query term prepared once per query.
#[derive(Debug, Clone)]
struct PreparedTerm {
    /// Its position in the question's analysed terms (`PreparedQuery::words`), first occurrence.
    word: usize,
    qtf: u32,
    df: u64,
    idf: f64,
    /// Its postings in the index's plain arrays (`None`: not in the dictionary).
    ordinal: Option<usize>,
}

impl PreparedTerm {
    /// What the term's tf part is multiplied by: qtf · idf; as Lucene holds it (`lucene`), the
    /// float product of the boost (the count, as Anserini boosts a repeated word) and the idf.
    fn weight(&self, lucene: bool) -> f64 {
        if lucene { lucene_weight(self.qtf, self.idf) } else { f64::from(self.qtf) * self.idf }
    }
}

/// Top-k lists up to this long are ranked over the plain postings with a top-k heap, pruned
/// (MaxScore) when the lists are long; longer lists score every posting into a full sort.
pub const PRUNE_MAX_K: usize = 100;

/// MaxScore pruning is used when a question's postings number at least this many per document
/// of the corpus. Measured on SciFact (`ranklens bench --only-top10`): its questions hold about
/// 0.7 postings per document, where scoring every posting ran 2.6× faster than pruning (the
/// bounds, candidates and probes cost more than the postings they skip); pruning is kept for
/// questions whose lists are long against the corpus.
pub const PRUNE_MIN_POSTINGS_PER_DOC: usize = 4;

/// A question prepared for one lexical formula: its analysed terms with their statistics.
struct PreparedQuery {
    retriever: LexicalRetriever,
    query: QueryContext,
    /// The question's analysed terms, shared with the question's memo.
    words: Arc<[String]>,
    terms: Vec<PreparedTerm>,
    /// |q| for cosine.
    query_norm: f64,
}

/// Ranks with a TF-IDF or BM25 formula using statistics read from a [`SparseIndex`].
#[derive(Clone)]
pub struct LexicalRetriever {
    index: Arc<SparseIndex>,
    model: LexicalModel,
    /// BM25's 1 − b + b·|d|/avgdl per document, computed once for the retriever's b.
    len_norm: Arc<[f64]>,
    /// BM25's term weight of every posting (the formula's tf part for its document), computed
    /// once for the retriever's k1, b and δ, aligned with the index's plain postings: a question
    /// then costs a multiply-add per posting.
    weights: Arc<[f64]>,
    /// Every weight is finite and ≥ 0, as the plain-postings top-k needs (it holds for every
    /// variant with valid parameters; otherwise that path is not taken).
    weights_ok: bool,
    /// The column's name, written once.
    label: Arc<str>,
    /// `lucene` scored as Lucene does (not with exact lengths): its similarity and each
    /// document's one-byte length. `weights` then holds each posting's contribution to a
    /// question that asks its term once ([`lucene_parts`]).
    lucene: Option<Arc<LuceneNorms>>,
}

/// What Lucene's BM25 reads besides the postings: the similarity built from the field's
/// statistics, and each document's stored length byte.
#[derive(Debug)]
struct LuceneNorms {
    sim: LuceneBm25,
    norms: Vec<u8>,
}

impl LuceneNorms {
    /// `norms`' byte for each document, and Lucene's statistics: documents with at least one
    /// term (`docCount`, which leaves out a passage with no words) and their tokens.
    fn new(index: &SparseIndex, params: &Bm25Params) -> Self {
        let lens: Vec<u32> = (0..index.num_docs()).map(|d| index.doc_len(DocId(d as u32))).collect();
        let doc_count = lens.iter().filter(|&&l| l > 0).count() as u64;
        let sum_ttf: u64 = lens.iter().map(|&l| u64::from(l)).sum();
        let sim = LuceneBm25::new(params.k1, params.b, sum_ttf, doc_count);
        Self { sim, norms: lens.into_iter().map(small_float::int_to_byte4).collect() }
    }

    fn norm_inverse(&self, doc: usize) -> f32 {
        self.sim.norm_inverse(self.norms.get(doc).copied().unwrap_or(0))
    }
}

/// Lucene's way of making a term's score of its weight (boost · idf, here `qw`) and a posting's
/// 1 + freq·normInverse (here `w`), in float32 — `BM25Scorer.score` — and of a document's score
/// of its terms' scores: summed in double, then cast to float (Lucene's disjunction scorers).
pub(crate) struct LuceneFloat;

impl Combine for LuceneFloat {
    #[inline(always)]
    fn part(qw: f64, w: f64) -> f64 {
        let weight = qw as f32;
        f64::from(weight - weight / w as f32)
    }

    #[inline(always)]
    fn finish(sum: f64) -> f64 {
        f64::from(sum as f32)
    }

    const FINISHES_IN_F32: bool = true;
}

/// Lucene's contribution of one posting of a term its question asks `qtf` times: the float
/// product qtf · idf (Anserini's boost for a repeated word) as the weight, then `BM25Scorer`'s
/// weight − weight / (1 + freq·normInverse).
fn lucene_part(l: &LuceneNorms, qw: f64, doc: usize, tf: u32) -> f64 {
    LuceneFloat::part(qw, f64::from(1f32 + tf as f32 * l.norm_inverse(doc)))
}

/// Every posting's contribution to a question that asks its term once (qw = the term's idf), in
/// posting order: computed once per retriever, so such a term costs a question one addition per
/// posting, no division. The same values [`lucene_part`] gives at question time.
fn lucene_parts(index: &SparseIndex, l: &LuceneNorms) -> Vec<f64> {
    let im = index.impacts();
    let mut out = Vec::with_capacity(im.postings().0.len());
    for t in (0..im.num_terms()).filter_map(|o| im.term(o)) {
        let qw = lucene_weight(1, f64::from(l.sim.idf(t.docs.len() as u64)));
        out.extend(t.docs.iter().zip(t.tfs).map(|(&d, &tf)| lucene_part(l, qw, d as usize, tf)));
    }
    out
}

/// Lucene's weight of a term asked `qtf` times with this idf: their float product.
fn lucene_weight(qtf: u32, idf: f64) -> f64 {
    f64::from(qtf as f32 * idf as f32)
}

/// A document's score summed from contributions made beforehand (each posting's own value), then
/// cast to float as Lucene's disjunction scorers do.
struct LuceneSummed;

impl Combine for LuceneSummed {
    #[inline(always)]
    fn part(_qw: f64, w: f64) -> f64 {
        w
    }

    #[inline(always)]
    fn finish(sum: f64) -> f64 {
        LuceneFloat::finish(sum)
    }

    const FINISHES_IN_F32: bool = true;
}

/// Unique terms in first-occurrence order with their query counts.
pub fn query_term_counts(terms: &[String]) -> Vec<(String, u32)> {
    query_term_positions(terms).into_iter().map(|(i, c)| (terms[i].clone(), c)).collect()
}

/// As [`query_term_counts`], each unique term given by its first position in `terms` (no copy).
fn query_term_positions(terms: &[String]) -> Vec<(usize, u32)> {
    let mut out: Vec<(usize, u32)> = Vec::new();
    for (i, t) in terms.iter().enumerate() {
        match out.iter_mut().find(|(j, _)| terms[*j] == *t) {
            Some((_, c)) => *c += 1,
            None => out.push((i, 1)),
        }
    }
    out
}

/// A lexical column's name: the formula and its parameters.
fn label_of(model: LexicalModel) -> String {
    match model {
        LexicalModel::TfIdf { variant, normalize } => {
            let norm = if variant == TfIdfVariant::Textbook && !normalize { ", no length norm" } else { "" };
            format!("TF-IDF ({variant}{norm})")
        }
        LexicalModel::Bm25 { variant, params } => {
            let delta = if variant.uses_delta() { format!(", δ={}", fmt_param(params.delta)) } else { String::new() };
            let exact = if variant == Bm25Variant::Lucene && params.exact_lengths { ", exact lengths" } else { "" };
            format!("BM25 ({variant}, k1={}, b={}{delta}{exact})", fmt_param(params.k1), fmt_param(params.b))
        }
    }
}

impl LexicalRetriever {
    /// A retriever for one formula. `Bm25Variant::Tantivy` is refused: use [`super::TantivyBm25`].
    pub fn new(index: Arc<SparseIndex>, model: LexicalModel) -> Result<Self> {
        if let LexicalModel::Bm25 { variant, params } = model {
            params.validate()?;
            if variant == Bm25Variant::Tantivy {
                return Err(Error::invalid("variant", "the tantivy variant is scored by the engine: use TantivyBm25"));
            }
        }
        let lucene = match model {
            LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params } if !params.exact_lengths => {
                Some(Arc::new(LuceneNorms::new(&index, &params)))
            }
            _ => None,
        };
        let len_norm = match model {
            LexicalModel::Bm25 { .. } if lucene.is_some() => Vec::new(),
            LexicalModel::Bm25 { params, .. } => {
                let avgdl = index.stats().avgdl;
                (0..index.num_docs())
                    .map(|d| length_norm(f64::from(index.doc_len(DocId(d as u32))), avgdl, params.b))
                    .collect()
            }
            LexicalModel::TfIdf { .. } => Vec::new(),
        };
        let weights: Vec<f64> = match (model, &lucene) {
            (LexicalModel::Bm25 { .. }, Some(l)) => lucene_parts(&index, l),
            (LexicalModel::Bm25 { variant, params }, None) => {
                let (docs, tfs) = index.impacts().postings();
                docs.iter()
                    .zip(tfs)
                    .map(|(&d, &tf)| {
                        variant.tf_weight_normed(
                            f64::from(tf),
                            len_norm.get(d as usize).copied().unwrap_or(1.0),
                            &params,
                        )
                    })
                    .collect()
            }
            (LexicalModel::TfIdf { .. }, _) => Vec::new(),
        };
        let weights_ok = weights.iter().all(|w| w.is_finite() && *w >= 0.0);
        let label = label_of(model).into();
        Ok(Self { index, model, len_norm: len_norm.into(), weights: weights.into(), weights_ok, label, lucene })
    }

    /// The formula in use.
    pub fn model(&self) -> LexicalModel {
        self.model
    }

    /// Rank by scoring every posting, never pruning: the reference pruned rankings must equal.
    pub fn search_exhaustive(&self, query: &QueryContext, k: usize) -> Result<Ranking> {
        self.prepare_terms(query)?.exhaustive(k)
    }

    fn prepare_terms(&self, query: &QueryContext) -> Result<PreparedQuery> {
        let stats = self.index.stats();
        let words = query.terms(self.index.analyzer());
        let mut prepared = Vec::new();
        for (word, qtf) in query_term_positions(&words) {
            let term = &words[word];
            // Every term of the dictionary has its postings in the plain arrays.
            let ordinal = self.index.term_ord(term);
            let df = ordinal.and_then(|o| self.index.impacts().term(o)).map_or(0, |p| p.docs.len() as u64);
            let idf = match (self.model, &self.lucene) {
                (_, Some(l)) if df > 0 => f64::from(l.sim.idf(df)),
                (_, Some(_)) => 0.0,
                (LexicalModel::TfIdf { variant, .. }, None) => variant.idf(stats.n_docs, df),
                (LexicalModel::Bm25 { variant, params }, None) => {
                    variant.idf(stats.n_docs, df, &params, stats.okapi_mean_idf)
                }
            };
            prepared.push(PreparedTerm { word, qtf, df, idf, ordinal });
        }
        let query_norm = prepared.iter().map(|t| (f64::from(t.qtf) * t.idf).powi(2)).sum::<f64>().sqrt();
        Ok(PreparedQuery { retriever: self.clone(), query: query.clone(), words, terms: prepared, query_norm })
    }

    /// (tf weight, normaliser, contribution) of one term in one document.
    fn score_term(&self, q: &PreparedQuery, t: &PreparedTerm, tf: u32, doc: DocId) -> (f64, Option<f64>, f64) {
        if tf == 0 {
            return (0.0, None, 0.0);
        }
        if let Some(l) = &self.lucene {
            let denominator = 1f32 + tf as f32 * l.norm_inverse(doc.index());
            let part = LuceneFloat::part(t.weight(true), f64::from(denominator));
            return (1.0 - 1.0 / f64::from(denominator), None, part);
        }
        let tf = f64::from(tf);
        match self.model {
            LexicalModel::Bm25 { variant, params } => {
                let len_norm = self.len_norm.get(doc.index()).copied().unwrap_or(1.0);
                let w = variant.tf_weight_normed(tf, len_norm, &params);
                (w, None, f64::from(t.qtf) * t.idf * w)
            }
            LexicalModel::TfIdf { variant: TfIdfVariant::CosineLog2, .. } => {
                let norms = &self.index.norms().cosine_log2;
                let norm = q.query_norm * norms.get(doc.index()).copied().unwrap_or(0.0);
                let c = if norm > 0.0 { (f64::from(t.qtf) * t.idf) * (tf * t.idf) / norm } else { 0.0 };
                (tf, Some(norm), c)
            }
            LexicalModel::TfIdf { variant: TfIdfVariant::Textbook, normalize } => {
                let w = TfIdfVariant::Textbook.tf_weight(tf);
                let raw = f64::from(t.qtf) * w * t.idf;
                if normalize {
                    let norm = self.index.norms().textbook.get(doc.index()).copied().unwrap_or(0.0);
                    (w, Some(norm), if norm > 0.0 { raw / norm } else { 0.0 })
                } else {
                    (w, None, raw)
                }
            }
        }
    }

    /// The BM25 inner loop for one query term, compiled once per tf shape (tf > 0 always holds
    /// for a posting, so this is exactly `qw · tf_weight_normed`).
    #[inline]
    fn accumulate_bm25<W: TfWeight>(
        &self,
        t: &PreparedTerm,
        allowed: Option<&[bool]>,
        acc: &mut [f64],
        seen: &mut [bool],
        qw: f64,
        params: &Bm25Params,
    ) {
        let len_norm = &self.len_norm;
        self.accumulate(t, allowed, acc, seen, |tf, i| qw * W::weight(f64::from(tf), len_norm[i], params))
    }

    /// The k best over the plain postings for one tf shape, pruned (MaxScore) or not: the same
    /// contributions (`qw · W::weight(tf, len_norm[doc])`) added in the same order as
    /// [`Self::accumulate`], so either way the ranking is the exhaustive one bit for bit.
    fn bm25_top_k<W: TfWeight>(
        &self,
        q: &PreparedQuery,
        params: &Bm25Params,
        k: usize,
        prune: Option<bool>,
    ) -> Option<(Vec<(f64, DocId)>, usize)> {
        if !self.weights_ok {
            return None;
        }
        let impacts = self.index.impacts();
        let mut terms = Vec::with_capacity(q.terms.len());
        let lucene = self.lucene.is_some();
        // Lucene's contributions of a term asked more than once, made for this question (those of
        // a term asked once were made with the retriever).
        let asked_again: Vec<Option<Vec<f64>>> = q
            .terms
            .iter()
            .filter(|t| t.df > 0)
            .map(|t| match (&self.lucene, t.ordinal.and_then(|o| impacts.term(o))) {
                (Some(l), Some(im)) if t.qtf != 1 => {
                    let qw = t.weight(true);
                    Some(im.docs.iter().zip(im.tfs).map(|(&d, &tf)| lucene_part(l, qw, d as usize, tf)).collect())
                }
                _ => None,
            })
            .collect();
        for (t, again) in q.terms.iter().filter(|t| t.df > 0).zip(&asked_again) {
            let qw = t.weight(lucene);
            if !(qw >= 0.0 && qw.is_finite()) {
                return None;
            }
            let im = impacts.term(t.ordinal?)?;
            let weights = match again {
                Some(parts) => parts.as_slice(),
                None => self.weights.get(im.start..im.start + im.docs.len())?,
            };
            terms.push(crate::index::impacts::ScoredTerm { impacts: im, weights, qw });
        }
        let (avgdl, n) = (self.index.stats().avgdl, self.index.num_docs());
        // Pruning pays when the question's lists are long against the corpus (it skips their
        // tails); on short lists scoring every posting is cheaper than keeping the bounds.
        let postings: usize = terms.iter().map(|t| t.impacts.docs.len()).sum();
        let prune = prune.unwrap_or(postings >= PRUNE_MIN_POSTINGS_PER_DOC * n);
        // Lucene's scores are cast to float at the end, which can tie sums that differ in
        // double: its lists are scored whole, never pruned.
        if lucene {
            return Some(crate::index::impacts::top_k_exhaustive_by::<LuceneSummed>(&terms, k, q.query.filter(), n));
        }
        Some(if prune {
            crate::index::impacts::top_k_max_score(
                &terms,
                k,
                |slot, tf, len| {
                    terms[slot].qw * W::weight(f64::from(tf), length_norm(f64::from(len), avgdl, params.b), params)
                },
                q.query.filter(),
                n,
            )
        } else {
            crate::index::impacts::top_k_exhaustive_by::<Product>(&terms, k, q.query.filter(), n)
        })
    }

    /// Rank a question with MaxScore pruning whatever its lists (for tests that check pruning
    /// changes nothing).
    pub fn search_pruned(&self, query: &QueryContext, k: usize) -> Result<Ranking> {
        let q = self.prepare_terms(query)?;
        q.bm25(k, Some(true)).unwrap_or_else(|| q.exhaustive(k))
    }

    /// Add `score(tf, doc)` for every posting of a term to the accumulators.
    #[inline]
    fn accumulate(
        &self,
        t: &PreparedTerm,
        allowed: Option<&[bool]>,
        acc: &mut [f64],
        seen: &mut [bool],
        score: impl Fn(u32, usize) -> f64,
    ) {
        let n = acc.len();
        let Some(plain) = t.ordinal.and_then(|o| self.index.impacts().term(o)) else { return };
        for (&doc, &tf) in plain.docs.iter().zip(plain.tfs) {
            let i = doc as usize;
            if i >= n || allowed.is_some_and(|a| !a.get(i).copied().unwrap_or(false)) {
                continue;
            }
            acc[i] += score(tf, i);
            seen[i] = true;
        }
    }

    fn formula(&self) -> String {
        match self.model {
            LexicalModel::TfIdf { variant, normalize } => variant.formula(normalize),
            LexicalModel::Bm25 { variant, .. } => variant.formula(),
        }
    }
}

impl Retriever for LexicalRetriever {
    fn kind(&self) -> MethodKind {
        match self.model {
            LexicalModel::TfIdf { .. } => MethodKind::TfIdf,
            LexicalModel::Bm25 { .. } => MethodKind::Bm25,
        }
    }

    fn label(&self) -> String {
        self.label.to_string()
    }

    fn prepare(&self, query: &QueryContext) -> Result<Arc<dyn Prepared>> {
        Ok(Arc::new(self.prepare_terms(query)?))
    }
}

impl Prepared for PreparedQuery {
    fn search(&self, k: usize) -> Result<Ranking> {
        self.bm25(k, None).unwrap_or_else(|| self.exhaustive(k))
    }

    fn explain(&self, doc: DocId) -> Result<Explanation> {
        self.explain_doc(doc)
    }
}

impl PreparedQuery {
    /// BM25 at depth `k` ≤ [`PRUNE_MAX_K`] over the plain postings (`prune`: force MaxScore on
    /// or off; `None` decides by the lists' lengths); `None` for other formulas and depths.
    fn bm25(&self, k: usize, prune: Option<bool>) -> Option<Result<Ranking>> {
        let r = &self.retriever;
        let LexicalModel::Bm25 { variant, params } = r.model else { return None };
        if k > PRUNE_MAX_K {
            return None;
        }
        let (top, total) = match variant.tf_shape() {
            TfShape::Saturating => r.bm25_top_k::<Saturating>(self, &params, k, prune),
            TfShape::SaturatingK1Plus1 => r.bm25_top_k::<SaturatingK1Plus1>(self, &params, k, prune),
            TfShape::Shifted => r.bm25_top_k::<Shifted>(self, &params, k, prune),
            TfShape::LowerBounded => r.bm25_top_k::<LowerBounded>(self, &params, k, prune),
        }?;
        let hits = top.into_iter().map(|(score, doc)| super::Hit { doc, score }).collect();
        Some(Ok(Ranking {
            method: r.label(),
            kind: r.kind(),
            hits,
            total_matches: total,
            unranked: false,
            absent: Vec::new(),
            provisional: false,
            note: None,
            generated: None,
            agent: None,
        }))
    }

    /// Score every posting of every term (term at a time), then keep the k best.
    pub(crate) fn exhaustive(&self, k: usize) -> Result<Ranking> {
        let (r, q) = (&self.retriever, self);
        let n = r.index.num_docs();
        let mut acc = vec![0.0f64; n];
        let mut seen = vec![false; n];
        let allowed = self.query.filter();
        for t in &q.terms {
            if t.df == 0 {
                continue;
            }
            match r.model {
                LexicalModel::Bm25 { .. } if let Some(l) = &r.lucene => {
                    // Made here from the postings, not read from the retriever's table.
                    let qw = t.weight(true);
                    r.accumulate(t, allowed, &mut acc, &mut seen, |tf, i| lucene_part(l, qw, i, tf));
                }
                // The hot path: the same arithmetic as `score_term` ((qtf·idf)·w), without the
                // per-posting dispatch, so search and explain give bit-identical scores.
                LexicalModel::Bm25 { variant, params } => {
                    let qw = f64::from(t.qtf) * t.idf;
                    let (acc, seen) = (&mut acc, &mut seen);
                    match variant.tf_shape() {
                        TfShape::Saturating => r.accumulate_bm25::<Saturating>(t, allowed, acc, seen, qw, &params),
                        TfShape::SaturatingK1Plus1 => {
                            r.accumulate_bm25::<SaturatingK1Plus1>(t, allowed, acc, seen, qw, &params)
                        }
                        TfShape::Shifted => r.accumulate_bm25::<Shifted>(t, allowed, acc, seen, qw, &params),
                        TfShape::LowerBounded => r.accumulate_bm25::<LowerBounded>(t, allowed, acc, seen, qw, &params),
                    }
                }
                LexicalModel::TfIdf { .. } => {
                    r.accumulate(t, allowed, &mut acc, &mut seen, |tf, i| r.score_term(q, t, tf, DocId(i as u32)).2);
                }
            }
        }
        // Branch-free compaction: about half the documents match a typical query, so a branch
        // per document would mispredict constantly.
        let mut keys = vec![0u128; n];
        let mut len = 0;
        let lucene = r.lucene.is_some();
        for (i, (&s, &score)) in seen.iter().zip(&acc).enumerate() {
            let score = if lucene { LuceneFloat::finish(score) } else { score };
            keys[len] = rank_key(score, DocId(i as u32));
            len += usize::from(s);
        }
        keys.truncate(len);
        Ok(Ranking::from_keys(r.label(), r.kind(), keys, k))
    }

    fn explain_doc(&self, doc: DocId) -> Result<Explanation> {
        let (r, q) = (&self.retriever, self);
        if doc.index() >= r.index.num_docs() {
            return Err(Error::invalid("document", format!("{doc} is not in the index")));
        }
        if !self.query.allows(doc) {
            return Ok(self.query.filtered_explanation(&r.label()));
        }
        let stats = r.index.stats();
        let exact_dl = f64::from(r.index.doc_len(doc));
        let (dl, avgdl, n_docs) = match &r.lucene {
            Some(l) => (
                f64::from(small_float::byte4_to_int(l.norms.get(doc.index()).copied().unwrap_or(0))),
                f64::from(l.sim.avgdl),
                l.sim.doc_count,
            ),
            None => (exact_dl, stats.avgdl, stats.n_docs),
        };
        let (k1, b) = match r.model {
            LexicalModel::Bm25 { params, .. } => (Some(params.k1), Some(params.b)),
            LexicalModel::TfIdf { .. } => (None, None),
        };
        let mut rows = Vec::with_capacity(q.terms.len());
        let mut value = 0.0;
        for t in &q.terms {
            let term = q.words.get(t.word).map_or("", String::as_str);
            let tf = if t.df == 0 { 0 } else { r.index.term_freq(term, doc)? };
            let (tf_weight, norm, contribution) = r.score_term(q, t, tf, doc);
            value += contribution;
            rows.push(TermRow {
                term: term.to_string(),
                qtf: t.qtf,
                tf,
                df: t.df,
                idf: t.idf,
                dl,
                exact_dl: r.lucene.is_some().then_some(exact_dl),
                avgdl,
                k1,
                b,
                tf_weight,
                norm,
                contribution,
            });
        }
        if r.lucene.is_some() {
            value = LuceneFloat::finish(value);
        }
        let summary = summarise(&rows, &r.index.analyzer().config().to_string());
        let mut e = Explanation::new(r.label(), value, r.formula(), summary);
        e.analyzer = Some(r.index.analyzer().config().to_string());
        e.children = rows
            .iter()
            .filter(|r| r.tf > 0)
            .map(|r| {
                Explanation::new(
                    r.term.clone(),
                    r.contribution,
                    format!("tf={} df={} idf={:.4} weight={:.4}", r.tf, r.df, r.idf, r.tf_weight),
                    "",
                )
            })
            .collect();
        let okapi_mean_idf =
            matches!(r.model, LexicalModel::Bm25 { variant: Bm25Variant::Okapi, .. }).then_some(stats.okapi_mean_idf);
        e.detail = Detail::Terms(TermTable { n: n_docs, avgdl, rows, model: Some(r.model), okapi_mean_idf });
        Ok(e)
    }
}

/// One sentence on a lexical score, shared with the tantivy variant.
pub(crate) fn summarise(rows: &[TermRow], analyzer: &str) -> String {
    if rows.is_empty() {
        return format!(
            "The question has no terms left after the `{analyzer}` analyzer (only stop words or punctuation)."
        );
    }
    let matched: Vec<&TermRow> = rows.iter().filter(|r| r.tf > 0).collect();
    let terms = rows.iter().map(|r| r.term.as_str()).collect::<Vec<_>>().join(", ");
    if matched.is_empty() {
        let unseen: Vec<&str> = rows.iter().filter(|r| r.df == 0).map(|r| r.term.as_str()).collect();
        let extra = if unseen.is_empty() {
            String::new()
        } else {
            format!(" ({} occur nowhere in the collection)", unseen.join(", "))
        };
        return format!("None of the query terms [{terms}] occur in this passage{extra}, so it scores 0.");
    }
    let total: f64 = matched.iter().map(|r| r.contribution).sum();
    let best = matched.iter().copied().max_by(|a, b| a.contribution.total_cmp(&b.contribution));
    match best {
        Some(best) if total > 0.0 => format!(
            "Matches {} of {} query terms; `{}` contributes most ({:.0}% of the score).",
            matched.len(),
            rows.len(),
            best.term,
            100.0 * best.contribution / total
        ),
        _ => format!("Matches {} of {} query terms, but they carry no weight here.", matched.len(), rows.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{AnalyzerConfig, Preset};
    use crate::corpus::Corpus;
    use crate::index::IndexLocation;
    use crate::progress::NoProgress;

    fn index(config: AnalyzerConfig, docs: &[(&str, &str)]) -> Arc<SparseIndex> {
        let corpus = Corpus::from_texts("t", docs.iter().copied());
        Arc::new(SparseIndex::build(&corpus, config, &IndexLocation::Ram, &NoProgress).expect("builds"))
    }

    const ISRO: [(&str, &str); 4] = [
        ("D1", "chandrayaan moon south pole landing twenty23"),
        ("D2", "aditya sun lagrange point solar observatory"),
        ("D3", "mangalyaan mars orbiter atmosphere mission twenty13"),
        ("D4", "pslv rocket satellites launch mission orbit"),
    ];

    fn scores(r: &LexicalRetriever, q: &str) -> Vec<f64> {
        (0..4).map(|d| r.explain(&QueryContext::new(q), DocId(d)).expect("explains").value).collect()
    }

    fn round4(v: Vec<f64>) -> Vec<f64> {
        v.into_iter().map(|x| (x * 10_000.0).round() / 10_000.0).collect()
    }

    #[test]
    fn isro_cosine_log2_textbook_values() {
        let model = LexicalModel::TfIdf { variant: TfIdfVariant::CosineLog2, normalize: true };
        let plain = LexicalRetriever::new(index(AnalyzerConfig::preset(Preset::Whitespace), &ISRO), model).expect("ok");
        assert_eq!(round4(scores(&plain, "mission mars atmosphere")), [0.0, 0.0, 0.6547, 0.0727]);
        let stop = AnalyzerConfig::preset(Preset::Whitespace).with_stopwords(true);
        let stopped = LexicalRetriever::new(index(stop, &ISRO), model).expect("ok");
        assert_eq!(round4(scores(&stopped, "Which mission explored the Red Planet?")), [0.0, 0.0, 0.2182, 0.2182]);
    }

    #[test]
    fn search_scores_equal_explanations_and_rows_sum_to_them() {
        let idx = index(AnalyzerConfig::preset(Preset::Whitespace), &ISRO);
        let models = [
            LexicalModel::TfIdf { variant: TfIdfVariant::CosineLog2, normalize: true },
            LexicalModel::TfIdf { variant: TfIdfVariant::Textbook, normalize: true },
            LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params: Bm25Variant::Lucene.default_params() },
            LexicalModel::Bm25 {
                variant: Bm25Variant::Lucene,
                params: Bm25Params { exact_lengths: true, ..Bm25Variant::Lucene.default_params() },
            },
            LexicalModel::Bm25 { variant: Bm25Variant::Bm25l, params: Bm25Variant::Bm25l.default_params() },
        ];
        for model in models {
            let r = LexicalRetriever::new(idx.clone(), model).expect("ok");
            let q = QueryContext::new("mission mars mission orbit");
            let ranking = r.search(&q, 10).expect("search");
            assert_eq!(ranking.total_matches, 2);
            for hit in &ranking.hits {
                let e = r.explain(&q, hit.doc).expect("explain");
                assert_eq!(e.value, hit.score, "{}", r.label());
                let sum = e.parts_sum().expect("a sum");
                if r.lucene.is_some() {
                    // Lucene casts the double sum of its float parts to float, as its
                    // explanation's "sum of:" does: the parts sum to the score within that.
                    assert_eq!(f64::from(sum as f32), hit.score, "{}", r.label());
                    assert_ne!(sum.to_bits(), (sum as f32 as f64).to_bits(), "the parts are not all one float");
                } else {
                    assert_eq!(sum, hit.score);
                }
            }
            let zero = r.explain(&q, DocId(0)).expect("explain");
            assert_eq!(zero.value, 0.0);
            assert!(zero.summary.contains("None of the query terms"), "{}", zero.summary);
        }
    }

    #[test]
    fn filters_remove_documents_and_say_so() {
        let r = LexicalRetriever::new(
            index(AnalyzerConfig::preset(Preset::Whitespace), &ISRO),
            LexicalModel::Bm25 { variant: Bm25Variant::Lucene, params: Bm25Variant::Lucene.default_params() },
        )
        .expect("ok");
        let q = QueryContext::new("mission").with_filter(vec![true, true, false, true], "page = x");
        let ranking = r.search(&q, 10).expect("search");
        assert_eq!(ranking.docs(), [DocId(3)]);
        let e = r.explain(&q, DocId(2)).expect("explain");
        assert_eq!(e.value, 0.0);
        assert!(e.summary.contains("page = x"));
    }
}
