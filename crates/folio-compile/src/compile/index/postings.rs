//! Postings in runs: each thread fills the postings of a contiguous run of documents per global
//! term id; the runs are joined per term, so the bytes do not depend on the split.
//!
//! Pure; no IO.

use super::{DocTerms, posting_head_len, put_posting_head, put_varint};
use crate::catalog::search::{BODY_ONLY, FIELDS, INLINE_TF_MAX, get_posting_head, get_varint};

/// Below this many documents postings are filled on one thread (spawning costs more).
pub(super) const PARALLEL_MIN_DOCS: usize = 256;

/// The postings of a contiguous run of documents, per global term id.
pub(super) struct PostingRun {
    pub(super) terms: Vec<TermRun>,
}

/// One term's postings in a [`PostingRun`] (one record, so filling touches one cache line).
#[derive(Clone, Default)]
pub(super) struct TermRun {
    /// The stored format, except that the first posting's document delta is the absolute
    /// ordinal (joined to the previous run's list by [`join_runs`]).
    pub(super) list: Vec<u8>,
    /// Ordinal of the run's last document holding the term.
    pub(super) last: u32,
    /// Documents of the run holding the term.
    pub(super) df: u32,
}

impl TermRun {
    /// Appends the posting of document `ordinal`: `tfs` holds the frequency of each field set
    /// in `mask`, in field order.
    pub(super) fn push(&mut self, ordinal: u32, mask: u8, tfs: impl Iterator<Item = u32>) {
        let prev = if self.df == 0 {
            // Most terms are rare: their whole list fits here, without the growth steps from 8
            // bytes (a realloc each, over tens of thousands of terms).
            self.list.reserve(32);
            0
        } else {
            self.last
        };
        let delta = ordinal - prev;
        let mut tfs = tfs.peekable();
        match tfs.peek() {
            Some(&tf) if mask == BODY_ONLY && (1..=INLINE_TF_MAX).contains(&tf) => {
                put_posting_head(&mut self.list, delta, tf);
            }
            _ => {
                put_posting_head(&mut self.list, delta, 0);
                self.list.push(mask);
                for tf in tfs {
                    put_varint(&mut self.list, tf);
                }
            }
        }
        self.last = ordinal;
        self.df += 1;
    }
}

/// Fills the postings of `docs` as up to `runs` contiguous runs, each on its own thread.
pub(super) fn fill_runs(
    docs: &[DocTerms],
    remap: &[Vec<u32>],
    n_terms: usize,
    runs: usize,
) -> Vec<PostingRun> {
    let runs = split_runs(docs, runs);
    std::thread::scope(|scope| {
        let workers: Vec<_> = runs
            .iter()
            .skip(1)
            .map(|run| scope.spawn(|| fill_postings(&docs[run.clone()], run.start, remap, n_terms)))
            .collect();
        let first = runs.first().map(|run| fill_postings(&docs[run.clone()], 0, remap, n_terms));
        // A panic in a worker is a bug in this module; re-raise it on this thread.
        first.into_iter().chain(workers.into_iter().map(crate::parallel::join)).collect()
    })
}

/// One term's stored postings: its runs' lists in order, each run's first posting (which holds
/// its absolute ordinal) turned into a delta from the previous run's last one. Appends them to
/// `out` when given; returns their length and the document frequency.
pub(super) fn join_runs(parts: &[PostingRun], term: usize, mut out: Option<&mut Vec<u8>>) -> (usize, u32) {
    let (mut len, mut df, mut last) = (0usize, 0u32, 0u32);
    for part in parts {
        let run = &part.terms[term];
        if run.list.is_empty() {
            continue;
        }
        let mut at = 0;
        let (first, inline_tf) = get_posting_head(&run.list, &mut at).expect("this module wrote the run");
        // A run's first delta is its absolute ordinal, which fits the u32 it was made from.
        let delta = first as u32 - last;
        len += posting_head_len(delta, inline_tf) + run.list.len() - at;
        if let Some(out) = out.as_deref_mut() {
            put_posting_head(out, delta, inline_tf);
            out.extend_from_slice(&run.list[at..]);
        }
        df += run.df;
        last = run.last;
    }
    (len, df)
}

/// Splits documents into at most `n` contiguous runs of about equal tokenized size.
pub(super) fn split_runs(docs: &[DocTerms], n: usize) -> Vec<std::ops::Range<usize>> {
    let weight = |d: &DocTerms| d.body.pairs.len() + d.small.terms.len() * 4 + 16;
    let total: usize = docs.iter().map(weight).sum();
    let mut runs = Vec::with_capacity(n);
    let (mut start, mut acc) = (0, 0);
    for (i, doc) in docs.iter().enumerate() {
        acc += weight(doc);
        if runs.len() + 1 < n && acc * n >= total * (runs.len() + 1) {
            runs.push(start..i + 1);
            start = i + 1;
        }
    }
    runs.push(start..docs.len());
    runs
}

/// Fills the postings of `docs`, whose first has ordinal `first`. A term in a small field
/// waits until the document's body is seen (one posting holds all of a document's fields); a
/// body-only term, the common case, is written at once.
pub(super) fn fill_postings(
    docs: &[DocTerms],
    first: usize,
    remap: &[Vec<u32>],
    n_terms: usize,
) -> PostingRun {
    const BODY: usize = FIELDS - 1;
    let mut masks = vec![0u8; n_terms];
    let mut tfs = vec![[0u32; FIELDS]; n_terms];
    let mut touched: Vec<u32> = Vec::new();
    let mut decoded: Vec<(u32, u32)> = Vec::new();
    let mut run = PostingRun { terms: vec![TermRun::default(); n_terms] };
    for (offset, doc) in docs.iter().enumerate() {
        let ordinal = (first + offset) as u32;
        let small_remap = &remap[doc.small.dict as usize];
        for &(id, field, tf) in &doc.small.terms {
            let g = small_remap[id as usize] as usize;
            if masks[g] == 0 {
                touched.push(g as u32);
            }
            masks[g] |= 1 << field;
            tfs[g][field as usize] = tf;
        }
        // The body's pairs are decoded (and their ids made global) in a pass of their own before
        // the postings are appended: with the varint decoding out of the appending loop, the
        // core overlaps the appends to different lists (fill 15-30% faster, measured alone).
        let body_remap = &remap[doc.body.dict as usize];
        let mut at = 0;
        decoded.clear();
        while at < doc.body.pairs.len() {
            let id = get_varint(&doc.body.pairs, &mut at);
            let tf = get_varint(&doc.body.pairs, &mut at);
            decoded.push((body_remap[id as usize], tf));
        }
        for &(g, tf) in &decoded {
            let g = g as usize;
            if masks[g] == 0 {
                run.terms[g].push(ordinal, BODY_ONLY, std::iter::once(tf));
            } else {
                masks[g] |= 1 << BODY;
                tfs[g][BODY] = tf;
            }
        }
        for &g in &touched {
            let g = g as usize;
            let mask = std::mem::take(&mut masks[g]);
            let set = tfs[g].iter().enumerate().filter(|&(f, _)| mask & (1 << f) != 0).map(|(_, &tf)| tf);
            run.terms[g].push(ordinal, mask, set);
        }
        touched.clear();
    }
    run
}
