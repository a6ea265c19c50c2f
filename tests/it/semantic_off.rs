//! A `folio` built without the `semantic` feature (the default): asking for a model is refused
//! with what to do, and nothing is written.

use crate::support::{Tree, folio};

#[test]
fn a_model_is_refused_by_a_folio_built_without_semantic_search() {
    let tree = Tree::new();
    tree.file("content/docs/a.md", "# A\n\nText.\n").file("model/config.json", "{}");
    for args in [
        &["build", "content", "--out", "out", "--model", "model"][..],
        &["search", "--content", "content", "--model", "model", "text"],
    ] {
        let out = folio(tree.path(), args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(
                "model `model`: this folio was built without semantic search; install a published folio (the \
                 `folio-mcp-server` packages and the release archives carry it), or build it with the \
                 `semantic` feature (`cargo install --locked --path . --features semantic` in a checkout of \
                 Folio; see `folio show docs/guides/semantic-search.md`)"
            ),
            "{args:?}: {}",
            out.stderr
        );
    }
    assert!(!tree.join("out").exists());
    // `[search] model` in folio.toml asks too.
    tree.file("content/folio.toml", "[search]\nmodel = \"../model\"\n");
    let out = folio(tree.path(), &["build", "content", "--out", "out"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("this folio was built without semantic search"), "{}", out.stderr);
    // Nothing of a model is read by a folio that cannot run one: a FIFO or a device there
    // neither blocks nor is read.
    #[cfg(unix)]
    {
        crate::hardening_content::mkfifo(&tree.join("content/m/config.json"));
        tree.symlink("/dev/zero", "content/m/model.safetensors");
        tree.file("content/folio.toml", "[search]\nmodel = \"m\"\n");
        for args in [&["build", "content", "--out", "out"][..], &["search", "--content", "content", "a"]] {
            let out = crate::hardening_content::folio_bounded(tree.path(), args);
            assert_eq!(out.code, Some(2), "{}", out.stderr);
            assert!(
                out.stderr.contains("model `content/m`: this folio was built without semantic search"),
                "{}",
                out.stderr
            );
        }
    }
    // Checking a tree does not need the model.
    assert_eq!(folio(tree.path(), &["check", "content"]).code, Some(0));
}
