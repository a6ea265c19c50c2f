//! The search index's build: every doc and skill tokenized into per-thread term dictionaries
//! ([`Indexer`], [`TermDict`]), the dictionaries merged by sorting their terms (a term's id is its
//! rank), and the postings filled in contiguous runs of documents, one per core, joined per term
//! (`postings`). The layout written is the one `crate::catalog::search` documents and reads.
//!
//! Bodies, and docs' small fields, are tokenized on the compiler's per-file threads while the
//! file is still in cache; [`build_with`] tokenizes the rest (skills' small fields, which depend
//! on their manifests) on all cores the same way. Neither the split nor the scheduling reaches
//! the bytes: [`build`] (everything on one thread's indexer) writes the same index, which a test
//! checks.
//!
//! Performs no IO. Build-time only: nothing here is needed to answer a query.

use std::borrow::Cow;

use crate::catalog::search::{
    DOC_ROW, FIELDS, HEADER, INLINE_TF_BITS, MAGIC, SearchIndex, TERM_ROW, body_of,
};
use crate::catalog::{Doc, Entry, Lazy, Section, Skill};

mod indexer;
mod postings;
mod scan;
mod terms;

pub(crate) use indexer::{BodyTerms, Indexer, SmallTerms};
use postings::{PARALLEL_MIN_DOCS, fill_runs, join_runs};
pub(crate) use terms::TermDict;

/// The fields of one indexed document, in field order (the body last).
struct Fields<'a> {
    entry: u32,
    small: [Vec<&'a str>; FIELDS - 1],
    /// As search reads it (`body_of`): an MDX body with its JSX lines blanked is a copy.
    body: Cow<'a, str>,
}

fn heading_titles(outline: &Lazy<Vec<Section>>) -> Vec<&str> {
    built(outline).map_or_else(Vec::new, |o| o.iter().map(|s| s.title.as_str()).collect())
}

/// The value of a field of a catalog the compiler assembled: held decoded, so it is always
/// there. (Only a catalog read from a forged file can hold one that does not decode; indexing
/// one, as a test may, leaves that field out.)
fn built<T: serde::de::DeserializeOwned + Default>(field: &Lazy<T>) -> Option<&T> {
    field.get().ok()
}

/// The strings of a frontmatter value: itself, or the strings of a list.
fn string_values(value: Option<&serde_json::Value>) -> impl Iterator<Item = &str> {
    let values = match value {
        Some(serde_json::Value::Array(items)) => items.as_slice(),
        Some(one) => std::slice::from_ref(one),
        None => &[],
    };
    values.iter().filter_map(serde_json::Value::as_str)
}

/// A doc's small fields: title, description, keywords (tags, category, the frontmatter's
/// `keywords` and `linkTitle`, the path's words) and headings.
fn doc_small_fields(doc: &Doc) -> [Vec<&str>; FIELDS - 1] {
    let mut keywords: Vec<&str> = doc.tags.iter().map(String::as_str).collect();
    keywords.extend(doc.category.as_deref());
    for key in ["keywords", "linkTitle", "link_title"] {
        keywords.extend(string_values(built(&doc.extra).and_then(|extra| extra.get(key))));
    }
    keywords.push(doc.path.rsplit_once('.').map_or(doc.path.as_str(), |(stem, _)| stem));
    [vec![&doc.title], vec![&doc.description], keywords, heading_titles(&doc.outline)]
}

/// The fields of every indexed document whose small fields were not tokenized ahead, and the
/// entries of those whose were (`small_ready`; their body was too). A body tokenized ahead
/// (`has_body`) is left empty: only its entry's `is_text` matters then (a text entry is valid
/// UTF-8), which spares a UTF-8 check of every body. Both lists are in entry order.
fn collect_fields<'a>(
    entries: &'a [Entry],
    docs: &'a [Doc],
    skills: &'a [Skill],
    has_body: impl Fn(u32) -> bool,
    small_ready: impl Fn(u32) -> bool,
) -> (Vec<Fields<'a>>, Vec<u32>) {
    let mut out = Vec::new();
    let mut ready = Vec::new();
    let text_of = |idx: u32| match entries.get(idx as usize) {
        Some(e) if e.is_text && has_body(idx) => Some(""),
        Some(e) => e.text(),
        None => None,
    };
    let body_at = |idx: u32| {
        let path = entries.get(idx as usize).map_or("", |e| e.path.as_str());
        text_of(idx).map(|text| body_of(path, text))
    };
    for doc in docs {
        let Some(body) = body_at(doc.entry) else { continue };
        if small_ready(doc.entry) && has_body(doc.entry) {
            ready.push(doc.entry);
            continue;
        }
        out.push(Fields { entry: doc.entry, small: doc_small_fields(doc), body });
    }
    for skill in skills {
        if let Some(body) = body_at(skill.document) {
            let mut keywords: Vec<&str> = vec![&skill.name];
            keywords.extend(skill.tags.iter().map(String::as_str));
            keywords.extend(skill.capabilities.iter().map(String::as_str));
            keywords.push(&skill.path);
            out.push(Fields {
                entry: skill.document,
                small: [
                    vec![&skill.title],
                    vec![&skill.description],
                    keywords,
                    heading_titles(&skill.outline),
                ],
                body,
            });
        }
        for file in &skill.files {
            let Some(body) = text_of(file.entry) else { continue };
            let title = file.title.as_deref().unwrap_or(&file.rel_path);
            out.push(Fields {
                entry: file.entry,
                small: [
                    vec![title],
                    file.description.iter().map(String::as_str).collect(),
                    vec![&skill.name, &file.rel_path],
                    Vec::new(),
                ],
                body: Cow::Borrowed(body),
            });
        }
    }
    // Index order is entry order, so postings (sorted by doc ordinal) are also in URI order.
    out.sort_by_key(|f| f.entry);
    ready.sort_unstable();
    (out, ready)
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends `v` as a LEB128 varint (7 bits per byte, low bits first).
fn put_varint(out: &mut Vec<u8>, v: impl Into<u64>) {
    let mut v = v.into();
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Writes a posting's first varint: `delta` shifted above `inline_tf` (0, or a body-only
/// frequency up to [`INLINE_TF_MAX`]). 64 bits wide, so no delta overflows it.
fn put_posting_head(out: &mut Vec<u8>, delta: u32, inline_tf: u32) {
    put_varint(out, (u64::from(delta) << INLINE_TF_BITS) | u64::from(inline_tf));
}

/// The length of what [`put_posting_head`] writes, without writing it (the index is sized
/// before it is filled).
fn posting_head_len(delta: u32, inline_tf: u32) -> usize {
    let v = (u64::from(delta) << INLINE_TF_BITS) | u64::from(inline_tf);
    // 7 bits per byte; a zero still takes one byte.
    (64 - (v | 1).leading_zeros()).div_ceil(7) as usize
}

/// Fields tokenized ahead of [`build_with`]: the indexers' dictionaries (by [`Indexer::new`]
/// id) and, by entry index, each text entry's [`BodyTerms`] and each doc's [`SmallTerms`].
#[derive(Debug, Default)]
pub(crate) struct Pretokenized {
    /// The dictionaries, in indexer-id order.
    pub dicts: Vec<TermDict>,
    /// By index into `Catalog::entries`: the body, when tokenized ahead.
    pub bodies: Vec<Option<BodyTerms>>,
    /// By index into `Catalog::entries`: a doc's small fields, when tokenized ahead (used only
    /// with its body).
    pub small: Vec<Option<SmallTerms>>,
}

/// One document of the index while it is built: its small fields and its body.
struct DocTerms {
    entry: u32,
    small: SmallTerms,
    body: BodyTerms,
}

impl DocTerms {
    /// Tokens per field (the BM25F field lengths).
    fn lengths(&self) -> [u32; FIELDS] {
        let mut lengths = [0; FIELDS];
        lengths[..FIELDS - 1].copy_from_slice(&self.small.lengths);
        lengths[FIELDS - 1] = self.body.tokens;
        lengths
    }
}

/// Tokenizes the small fields of `fields` (and each body missing from `bodies`, which is
/// parallel to `fields`) with a new indexer numbered `dict`.
fn doc_terms_of(
    fields: &[Fields<'_>],
    bodies: &mut [Option<BodyTerms>],
    dict: u32,
) -> (Vec<DocTerms>, TermDict) {
    let mut own = Indexer::new(dict);
    let mut out = Vec::with_capacity(fields.len());
    for (doc, body) in fields.iter().zip(bodies) {
        let [title, description, keywords, headings] = &doc.small;
        let small = own.small([title, description, keywords, headings]);
        let body = match body.take() {
            Some(body) => body,
            None => own.body(&doc.body),
        };
        out.push(DocTerms { entry: doc.entry, small, body });
    }
    (out, own.into_dict())
}

/// Builds the index over every doc and skill. Deterministic: the output depends only on the
/// inputs' content and order (terms are sorted before they are written).
pub fn build(entries: &[Entry], docs: &[Doc], skills: &[Skill]) -> SearchIndex {
    build_with(entries, docs, skills, Pretokenized::default())
}

/// [`build`], with some or all bodies tokenized ahead (a body missing from `pre` is tokenized
/// here). The bytes are the same either way, however the bodies were spread over indexers.
pub(crate) fn build_with(
    entries: &[Entry],
    docs: &[Doc],
    skills: &[Skill],
    pre: Pretokenized,
) -> SearchIndex {
    let Pretokenized { mut dicts, mut bodies, mut small } = pre;
    let (fields, ready) = collect_fields(
        entries,
        docs,
        skills,
        |entry| bodies.get(entry as usize).is_some_and(Option::is_some),
        |entry| small.get(entry as usize).is_some_and(Option::is_some),
    );
    let n_docs = fields.len() + ready.len();
    // Documents tokenized ahead, whole.
    let mut doc_terms: Vec<DocTerms> = Vec::with_capacity(n_docs);
    doc_terms.extend(ready.into_iter().map(|entry| DocTerms {
        entry,
        small: small[entry as usize].take().expect("ready"),
        body: bodies[entry as usize].take().expect("ready"),
    }));
    drop(small);

    // The other documents' small fields (and bodies not tokenized ahead) are tokenized on all
    // cores, in contiguous chunks of documents, each chunk into its own indexer numbered after
    // the given ones.
    let mut taken: Vec<Option<BodyTerms>> =
        fields.iter().map(|f| bodies.get_mut(f.entry as usize).and_then(Option::take)).collect();
    drop(bodies);
    // Threads for the two parallel passes (small fields, postings).
    let threads = if n_docs >= PARALLEL_MIN_DOCS {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).min(4)
    } else {
        1
    };
    let chunk = fields.len().div_ceil(threads).max(1);
    let base = dicts.len();
    let tokenized: Vec<(Vec<DocTerms>, TermDict)> = std::thread::scope(|scope| {
        let workers: Vec<_> = fields
            .chunks(chunk)
            .zip(taken.chunks_mut(chunk))
            .enumerate()
            .map(|(i, (fields, bodies))| scope.spawn(move || doc_terms_of(fields, bodies, (base + i) as u32)))
            .collect();
        // A panic in a worker is a bug in this module; re-raise it on this thread.
        workers.into_iter().map(crate::parallel::join).collect()
    });
    drop(taken);
    drop(fields);
    for (terms, dict) in tokenized {
        doc_terms.extend(terms);
        dicts.push(dict);
    }
    // Two runs in entry order (the documents tokenized ahead, then the others): the stable sort
    // finds both runs and merges them in one pass.
    doc_terms.sort_by_key(|doc| doc.entry);

    let (unique, order, remap) = merge_dicts(&dicts);
    let all: Vec<&str> = order.iter().map(|&id| unique.term(id as usize)).collect();
    drop(order);
    let n_terms = all.len();

    // Postings, filled on several threads, each over a contiguous run of documents; the runs'
    // lists are joined per term below, so the bytes do not depend on the split.
    let parts = fill_runs(&doc_terms, &remap, n_terms, threads);
    drop(remap);

    write(&doc_terms, &all, &parts)
}

/// One sorted dictionary over `dicts`: the distinct terms (a dictionary of them), their ids in
/// term order, and `remap[d][id]`, the global id (the term's rank) of dictionary `d`'s term
/// `id`. The dictionaries are deduplicated by interning (one lookup per term) and only the
/// distinct terms are sorted: sorting every dictionary's terms and binary-searching each was a
/// serial stretch of the index build.
fn merge_dicts(dicts: &[TermDict]) -> (TermDict, Vec<u32>, Vec<Vec<u32>>) {
    let mut unique = TermDict::default();
    let ids: Vec<Vec<u32>> =
        dicts.iter().map(|d| (0..d.len()).map(|i| unique.intern(d.term(i))).collect()).collect();
    let mut order: Vec<u32> = (0..unique.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| unique.term(a as usize).cmp(unique.term(b as usize)));
    let mut rank = vec![0u32; order.len()];
    for (r, &id) in order.iter().enumerate() {
        rank[id as usize] = r as u32;
    }
    let remap = ids.into_iter().map(|ids| ids.into_iter().map(|id| rank[id as usize]).collect()).collect();
    (unique, order, remap)
}

/// The index's bytes (the layout `crate::catalog::search` documents): the header, a row per
/// document, a row per term in `all`'s order, the terms' text, then each term's postings, its
/// runs in `parts` joined. The header holds each field's average length over the documents.
fn write(doc_terms: &[DocTerms], all: &[&str], parts: &[postings::PostingRun]) -> SearchIndex {
    let (n_docs, n_terms) = (doc_terms.len(), all.len());
    let mut avg = [0f32; FIELDS];
    for doc in doc_terms {
        for (a, len) in avg.iter_mut().zip(doc.lengths()) {
            *a += len as f32;
        }
    }
    for a in &mut avg {
        *a = if n_docs == 0 { 1.0 } else { (*a / n_docs as f32).max(1.0) };
    }

    let strings_len: usize = all.iter().map(|t| t.len()).sum();
    let sizes: Vec<(usize, u32)> = (0..n_terms).map(|t| join_runs(parts, t, None)).collect();
    let postings_len: usize = sizes.iter().map(|s| s.0).sum();
    let mut data =
        Vec::with_capacity(HEADER + n_docs * DOC_ROW + (n_terms + 1) * TERM_ROW + strings_len + postings_len);
    data.extend_from_slice(MAGIC);
    put_u32(&mut data, n_docs as u32);
    put_u32(&mut data, n_terms as u32);
    for a in avg {
        data.extend_from_slice(&a.to_le_bytes());
    }
    for doc in doc_terms {
        put_u32(&mut data, doc.entry);
        for l in doc.lengths() {
            put_u32(&mut data, l);
        }
    }
    let (mut string_at, mut posting_at) = (0usize, 0usize);
    for (term, &(len, df)) in all.iter().zip(&sizes) {
        put_u32(&mut data, string_at as u32);
        put_u32(&mut data, posting_at as u32);
        put_u32(&mut data, df);
        string_at += term.len();
        posting_at += len;
    }
    put_u32(&mut data, string_at as u32);
    put_u32(&mut data, posting_at as u32);
    put_u32(&mut data, 0);
    for term in all {
        data.extend_from_slice(term.as_bytes());
    }
    for term in 0..n_terms {
        join_runs(parts, term, Some(&mut data));
    }
    SearchIndex::new(data.into())
}

#[cfg(test)]
mod tests;
