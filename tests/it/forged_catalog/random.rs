//! Random forgeries: whatever the bytes, opening and reading a catalog never panic, and the
//! properties count what they reached (refused at open, or opened and served), failing when a
//! branch was not reached often enough to have been tested.

use folio::catalog::{Catalog, Section};
use folio::query::{ListParams, Query, SearchParams, Selection};
use proptest::prelude::*;

use super::{basic, rehash, with_index, write};
/// What one random forgery reached: refused at open, or opened, with how many entry reads were
/// answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reached {
    Refused,
    Opened { served: usize },
}

/// Opens `bytes` and, when they open, exercises every read path: list (every page), every entry
/// read whole, by each section and by a line range, every detail record, search for a few
/// terms, directory listings and completions. Errors are fine; a panic fails the property.
fn exercise(bytes: Vec<u8>) -> Reached {
    let Ok(query) = Query::open(bytes) else { return Reached::Refused };
    let mut served = 0;
    let mut cursor = None;
    for _ in 0..100 {
        let Ok(page) = query.list(&ListParams { cursor: cursor.take(), ..ListParams::default() }) else {
            break;
        };
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let catalog = query.catalog();
    for entry in &catalog.entries {
        served += usize::from(query.read(&entry.uri, &Selection::default()).is_ok());
        let _ = query
            .read(&entry.uri, &Selection { start_line: Some(2), end_line: Some(5), ..Selection::default() });
        let _ = query.detail(&entry.uri);
        let _ = query.resolve(&entry.path);
    }
    for doc in &catalog.docs {
        let _ = query.doc_detail(&doc.path);
        for section in doc.outline.get().into_iter().flatten() {
            let selection = Selection { section: Some(section.id.clone()), ..Selection::default() };
            let _ = query.read(&folio::catalog::uri::doc(&doc.path), &selection);
        }
    }
    for skill in &catalog.skills {
        let _ = query.skill_detail(&skill.name);
        let _ = query.directory(&folio::catalog::uri::skill_dir(&skill.path), None, None);
        for section in skill.outline.get().into_iter().flatten() {
            let selection = Selection { section: Some(section.id.clone()), ..Selection::default() };
            let _ = query.read(&folio::catalog::uri::skill_file(&skill.path, "SKILL.md"), &selection);
        }
    }
    for words in ["install", "verify the version", "form fields", "inst", "zzz"] {
        let _ = query.search(&SearchParams { query: words.to_owned(), ..SearchParams::default() });
    }
    let _ = query.about();
    let _ = query.skills_index(&[]);
    let _ = query.docs_index(&[]);
    let context = std::collections::BTreeMap::from([("path".to_owned(), "guides/install.md".to_owned())]);
    for argument in ["skill_id", "path", "section", "tag"] {
        let _ = query.complete(argument, "i", &context);
    }
    Reached::Opened { served }
}

/// One random edit of a catalog body.
#[derive(Debug, Clone)]
enum Mutation {
    /// Overwrite the byte at this fraction of the body.
    Byte(f64, u8),
    /// Overwrite four bytes with a little-endian u32 (an index, offset or length).
    Word(f64, u32),
    /// Cut the body at this fraction.
    Truncate(f64),
    /// Append bytes.
    Append(Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (0.0..1.0f64, any::<u8>()).prop_map(|(at, b)| Mutation::Byte(at, b)),
        3 => (0.0..1.0f64, prop_oneof![0u32..16, any::<u32>()]).prop_map(|(at, w)| Mutation::Word(at, w)),
        1 => (0.0..1.0f64).prop_map(Mutation::Truncate),
        1 => proptest::collection::vec(any::<u8>(), 1..8).prop_map(Mutation::Append),
    ]
}

fn apply(body: &mut Vec<u8>, mutation: &Mutation) {
    let at = |fraction: f64, len: usize| ((fraction * len as f64) as usize).min(len.saturating_sub(1));
    match mutation {
        Mutation::Byte(f, b) if !body.is_empty() => {
            let i = at(*f, body.len());
            body[i] = *b;
        }
        Mutation::Word(f, w) if body.len() >= 4 => {
            let i = at(*f, body.len() - 3);
            body[i..i + 4].copy_from_slice(&w.to_le_bytes());
        }
        Mutation::Truncate(f) => body.truncate(at(*f, body.len())),
        Mutation::Append(bytes) => body.extend_from_slice(bytes),
        _ => {}
    }
}

/// The metadata lies at the end of the body, so most mutations aim there (a flip in an entry's
/// bytes only changes what is served). The field edits go through the decoded catalog.
fn mutate_tail(body: &mut Vec<u8>, mutations: &[Mutation], tail_only: bool) {
    if !tail_only {
        for m in mutations {
            apply(body, m);
        }
        return;
    }
    let keep = body.len().saturating_sub(4096);
    let mut tail = body.split_off(keep);
    for m in mutations {
        apply(&mut tail, m);
    }
    body.extend_from_slice(&tail);
}

/// A random field edit of the decoded catalog: an index, a line range, a count, an index word.
/// (Entry sizes are not edited here: the writer refuses sizes that differ from the bytes; the
/// byte mutations reach them.)
#[derive(Debug, Clone)]
enum FieldEdit {
    DocEntry(usize, u32),
    SkillDocument(u32),
    SkillFile(usize, u32),
    Section(usize, usize, u32, u32),
    TotalLines(usize, u32),
    IndexWord(f64, u32),
}

fn field_edit() -> impl Strategy<Value = FieldEdit> {
    let small = prop_oneof![0u32..10, any::<u32>()];
    prop_oneof![
        (0usize..3, small.clone()).prop_map(|(d, e)| FieldEdit::DocEntry(d, e)),
        small.clone().prop_map(FieldEdit::SkillDocument),
        (0usize..2, small.clone()).prop_map(|(f, e)| FieldEdit::SkillFile(f, e)),
        (0usize..3, 0usize..3, small.clone(), small.clone())
            .prop_map(|(d, s, a, b)| FieldEdit::Section(d, s, a, b)),
        (0usize..7, small.clone()).prop_map(|(e, n)| FieldEdit::TotalLines(e, n)),
        (0.0..1.0f64, small).prop_map(|(at, w)| FieldEdit::IndexWord(at, w)),
    ]
}

fn edit_fields(catalog: &mut Catalog, edit: &FieldEdit) {
    match *edit {
        FieldEdit::DocEntry(d, e) => catalog.docs[d].entry = e,
        FieldEdit::SkillDocument(e) => catalog.skills[0].document = e,
        FieldEdit::SkillFile(f, e) => catalog.skills[0].files[f % 2].entry = e,
        FieldEdit::Section(d, s, a, b) => {
            let n = catalog.docs.len();
            let outline: &mut Vec<Section> = catalog.docs[d % n].outline.get_mut().expect("built in memory");
            if let Some(section) = outline.get_mut(s) {
                (section.line_start, section.line_end) = (a, b);
            }
        }
        FieldEdit::TotalLines(e, n) => {
            let n_entries = catalog.entries.len();
            catalog.entries[e % n_entries].total_lines = n;
        }
        FieldEdit::IndexWord(at, w) => with_index(catalog, |data| {
            let i = ((at * data.len() as f64) as usize).min(data.len() - 4);
            data[i..i + 4].copy_from_slice(&w.to_le_bytes());
        }),
    }
}

/// How many cases of a random-forgery property reached each branch.
#[derive(Debug, Default)]
struct Tally {
    cases: std::cell::Cell<u32>,
    refused: std::cell::Cell<u32>,
    /// Opened, and at least one entry read answered.
    served: std::cell::Cell<u32>,
}

impl Tally {
    fn add(&self, reached: Reached) {
        let bump = |c: &std::cell::Cell<u32>| c.set(c.get() + 1);
        bump(&self.cases);
        match reached {
            Reached::Refused => bump(&self.refused),
            Reached::Opened { served } if served > 0 => bump(&self.served),
            Reached::Opened { .. } => {}
        }
    }

    /// A property that never reached a branch did not test it: both the refusal and the read
    /// paths of an opened forgery must have been taken by at least `share` of the cases.
    #[track_caller]
    fn assert_both(&self, share: f64) {
        let at_least = (f64::from(self.cases.get()) * share).ceil() as u32;
        assert!(
            self.refused.get() >= at_least && self.served.get() >= at_least,
            "each branch must be reached by at least {at_least} cases: {self:?}"
        );
    }
}

/// The properties' runner: a fixed number of cases, so the tally has something to be a share of.
fn forgeries() -> proptest::test_runner::TestRunner {
    let config = ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() };
    proptest::test_runner::TestRunner::new(config)
}

#[test]
fn random_byte_forgeries_never_panic() {
    let honest = write(&basic());
    let tally = Tally::default();
    let strategy = (proptest::collection::vec(mutation(), 1..4), any::<bool>());
    forgeries()
        .run(&strategy, |(mutations, tail_only)| {
            tally.add(exercise(rehash(&honest, |body| mutate_tail(body, &mutations, tail_only))));
            Ok(())
        })
        .unwrap();
    eprintln!("byte forgeries: {tally:?}");
    assert_eq!(tally.cases.get(), 256, "every case ran (a failing one would have shrunk)");
    tally.assert_both(0.1);
}

#[test]
fn random_field_forgeries_never_panic() {
    let honest = basic();
    let tally = Tally::default();
    forgeries()
        .run(&proptest::collection::vec(field_edit(), 1..4), |edits| {
            let mut catalog = honest.clone();
            for edit in &edits {
                edit_fields(&mut catalog, edit);
            }
            tally.add(exercise(write(&catalog)));
            Ok(())
        })
        .unwrap();
    eprintln!("field forgeries: {tally:?}");
    assert_eq!(tally.cases.get(), 256, "every case ran (a failing one would have shrunk)");
    tally.assert_both(0.1);
}
