//! `folio serve --catalog FILE --mmap`: the catalog file opened as a read-only memory map
//! (src/query/mapped.rs). The same answers as a read catalog; a catalog replaced by a rename
//! (as `folio build` and deployments do) keeps the running server on the old file until it
//! reloads; and what a file rewritten in place does, mapped and not, as the manual says.

use serde_json::json;

use crate::live_serve::{Served, content, list_changed, save};
use crate::support::{folio, repo};
use folio::query::Query;

#[test]
fn a_mapped_catalog_gives_the_same_entries_hash_and_answers_as_a_read_one() {
    for fixture in ["basic", "skills-collection"] {
        let out = std::env::temp_dir().join(format!("folio-mapped-{fixture}-{}", std::process::id()));
        let root = repo().join("tests/fixtures").join(fixture);
        let content = if root.join("content").is_dir() { root.join("content") } else { root.clone() };
        let built = folio(&repo(), &["build", content.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(built.code, Some(0), "{}", built.stderr);
        let file = out.join("catalog.msgpack");
        let (read, mapped) = (Query::open_file(&file).unwrap(), Query::open_file_mapped(&file).unwrap());
        assert_eq!(read.catalog_hash(), mapped.catalog_hash());
        assert_eq!(read.catalog().entries.len(), mapped.catalog().entries.len());
        for (a, b) in read.catalog().entries.iter().zip(&mapped.catalog().entries) {
            assert_eq!((&a.uri, &a.bytes), (&b.uri, &b.bytes), "{fixture}");
        }
        let search = |q: &Query| {
            let params = folio::query::SearchParams { query: "skill".to_owned(), ..Default::default() };
            q.search(&params).unwrap().items.into_iter().map(|h| h.uri).collect::<Vec<_>>()
        };
        assert_eq!(search(&read), search(&mapped));
        // A file cut short is refused by its hash, mapped or read, naming the file.
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
        let refusal = Query::open_file_mapped(&file).unwrap_err().to_string();
        assert!(refusal.contains("catalog.msgpack"), "{refusal}");
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn a_mapped_server_keeps_its_file_across_a_rename_and_takes_the_new_one_on_reload() {
    let t = content();
    assert_eq!(folio(t.path(), &["build", "content", "--out", "v1"]).code, Some(0));
    save(&t, "content/docs/b.md", "# B\n\n[a](a.md)\n");
    assert_eq!(folio(t.path(), &["build", "content", "--out", "v2"]).code, Some(0));
    // `folio build --out` over the served folder is the deploy: a new file renamed into place.
    assert_eq!(folio(t.path(), &["build", "content", "--out", "live"]).code, Some(0));
    std::fs::copy(t.join("v1/catalog.msgpack"), t.join("live/next.tmp")).unwrap();
    std::fs::rename(t.join("live/next.tmp"), t.join("live/catalog.msgpack")).unwrap();
    let mut s = Served::start(t.path(), &["serve", "--catalog", "live/catalog.msgpack", "--mmap"]);
    s.listen(json!({ "resourcesListChanged": true }));
    assert_eq!(s.text("resource://docs/a.md"), "# A\n\nSee [the sentinel](zz-sentinel.md).\n");
    // Renamed over: the server still maps the old inode, unchanged, and serves it.
    std::fs::copy(t.join("v2/catalog.msgpack"), t.join("live/next.tmp")).unwrap();
    std::fs::rename(t.join("live/next.tmp"), t.join("live/catalog.msgpack")).unwrap();
    assert!(s.answer("resources/read", json!({ "uri": "resource://docs/b.md" })).get("error").is_some());
    assert_eq!(s.text("resource://docs/a.md"), "# A\n\nSee [the sentinel](zz-sentinel.md).\n");
    // Reloaded: the new file is mapped.
    s.hang_up();
    assert_eq!(s.note(), list_changed());
    assert_eq!(s.text("resource://docs/b.md"), "# B\n\n[a](a.md)\n");
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_truncated_in_place_is_refused_on_reload_when_read_and_kills_a_mapped_server() {
    use std::os::unix::process::ExitStatusExt as _;
    let t = content();
    assert_eq!(folio(t.path(), &["build", "content", "--out", "live"]).code, Some(0));
    let file = t.join("live/catalog.msgpack");
    // Read (the default): the server holds its own copy; the cut file is refused on reload.
    let mut read = Served::start(t.path(), &["serve", "--catalog", "live/catalog.msgpack"]);
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&file).unwrap().set_len(0).unwrap();
    assert_eq!(read.text("resource://docs/a.md"), "# A\n\nSee [the sentinel](zz-sentinel.md).\n");
    read.hang_up();
    read.stderr_until("still serving the previous catalog");
    assert_eq!(read.text("resource://docs/a.md"), "# A\n\nSee [the sentinel](zz-sentinel.md).\n");
    drop(read);
    // Mapped: the pages under the map are gone; reading one raises SIGBUS and the process ends
    // (a supervisor restarts it, and the new process refuses the cut file by its hash).
    assert_eq!(folio(t.path(), &["build", "content", "--out", "live"]).code, Some(0));
    let mut mapped = Served::start(t.path(), &["serve", "--catalog", "live/catalog.msgpack", "--mmap"]);
    assert_eq!(mapped.text("resource://docs/a.md"), "# A\n\nSee [the sentinel](zz-sentinel.md).\n");
    assert!(len > 0);
    std::fs::OpenOptions::new().write(true).open(&file).unwrap().set_len(0).unwrap();
    mapped.request("resources/read", json!({ "uri": "resource://docs/zz-sentinel.md" }));
    assert_eq!(mapped.ended().signal(), Some(7), "SIGBUS");
}
