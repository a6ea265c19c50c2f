//! Incremental compiles (`compile::compile_incremental`, what `serve --watch` runs): after any
//! edit, the catalog and diagnostics are exactly those of a full compile of the same tree, and
//! only the files that changed are compiled again.

use std::path::Path;

use folio::compile::{self, Cache, Compilation, Config};

use crate::support::{Tree, copy_dir, corpora};

/// The vendored corpora in one content root.
fn corpus_tree() -> Tree {
    let t = Tree::new();
    copy_dir(&corpora().join("hugo-docs/docs"), &t.join("docs"));
    copy_dir(&corpora().join("agent-skills/skills"), &t.join("skills"));
    t
}

/// Compiles `root` both ways and checks they agree; returns the cache's (reused, compiled).
#[track_caller]
fn same_as_full(root: &Path, cache: &mut Cache) -> (usize, usize) {
    let config = Config::new(root);
    let incremental = compile::compile_incremental(&config, cache);
    let full = compile::compile(&config);
    assert_eq!(incremental.diagnostics, full.diagnostics, "the same diagnostics");
    assert_eq!(encoded(&incremental), encoded(&full), "the same catalog bytes");
    cache.counts()
}

fn encoded(c: &Compilation) -> Option<Vec<u8>> {
    c.catalog.as_ref().map(|catalog| folio::catalog::codec::encode(catalog).msgpack)
}

#[test]
fn every_kind_of_edit_compiles_to_the_full_result_and_compiles_only_what_changed() {
    let t = corpus_tree();
    let mut cache = Cache::default();
    let (_, compiled) = same_as_full(t.path(), &mut cache);
    let files = compiled;
    assert!(files > 100, "the corpus is compiled whole the first time: {compiled}");

    // Nothing changed: nothing compiled (files changed in the last two seconds, whose time
    // cannot be trusted yet, are hashed and reused).
    let (reused, compiled) = same_as_full(t.path(), &mut cache);
    assert_eq!((reused, compiled), (files, 0));

    // One doc edited with a same-size change (its size and, within the clock's granularity,
    // its time may not move: its bytes must be looked at).
    let doc = t.join("docs/about/introduction.md");
    let mut bytes = std::fs::read(&doc).unwrap();
    let at = bytes.iter().rposition(|b| b.is_ascii_lowercase()).unwrap();
    bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
    std::fs::write(&doc, &bytes).unwrap();
    let (_, compiled) = same_as_full(t.path(), &mut cache);
    assert_eq!(compiled, 1, "only the edited doc is new");

    // Added, renamed, deleted; a skill file; a touch that changes nothing.
    t.file("docs/new-page.md", "# New page\n\nSee [the introduction](about/introduction.md).\n");
    same_as_full(t.path(), &mut cache);
    std::fs::rename(t.join("docs/new-page.md"), t.join("docs/renamed.md")).unwrap();
    same_as_full(t.path(), &mut cache);
    std::fs::remove_file(t.join("docs/renamed.md")).unwrap();
    same_as_full(t.path(), &mut cache);
    let skill_md = t.join("skills/mcp-builder/SKILL.md");
    let text = std::fs::read_to_string(&skill_md).unwrap();
    std::fs::write(&skill_md, format!("{text}\nEdited.\n")).unwrap();
    same_as_full(t.path(), &mut cache);
    std::fs::write(&skill_md, std::fs::read(&skill_md).unwrap()).unwrap();
    let (_, compiled) = same_as_full(t.path(), &mut cache);
    assert_eq!(compiled, 0, "a rewrite with the same bytes is reused");
}

#[test]
fn an_edit_that_breaks_the_tree_and_the_fix_both_match_the_full_compile() {
    let t = Tree::new();
    t.file("docs/a.md", "# A\n\nSee [b](b.md).\n")
        .file("docs/b.md", "---\ntitle: B\n---\n# B\n\n[a](a.md)\n");
    let mut cache = Cache::default();
    same_as_full(t.path(), &mut cache);
    t.file("docs/b.md", "---\ntitle: [B\n---\n# B\n\n[a](a.md)\n");
    same_as_full(t.path(), &mut cache);
    t.file("docs/b.md", "---\ntitle: B\n---\n# B\n\n[a](a.md)\n");
    same_as_full(t.path(), &mut cache);
    std::fs::remove_file(t.join("docs/b.md")).unwrap();
    same_as_full(t.path(), &mut cache);
}
