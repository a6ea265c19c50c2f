//! Catalog files from elsewhere are untrusted: a forger can edit any field and recompute the
//! integrity hash. Each forgery here gets past the hash check and must be refused (or, for the
//! lazily read fields, answered with an error) with a clean message by `folio show`,
//! `folio search` and the MCP server; none may panic or leave a request unanswered. The random
//! properties throw mutations at the loader and every read path, and count what they reached: a
//! run in which every forgery was refused at open (or none was) never reached the other branch,
//! and fails.

use std::io::Cursor;
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use folio::catalog::codec;
use folio::catalog::{Catalog, Section};
use folio::query::{Query, QueryError, SearchParams, Selection};
use folio::server::FolioServer;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

use crate::support::{Tree, folio};

/// The `basic` fixture compiled in memory (3 docs, one skill with two more files).
fn basic() -> Catalog {
    let root = crate::support::repo().join("tests/fixtures/basic/content");
    folio::compile::compile(&folio::compile::Config::new(root)).catalog.expect("the basic fixture compiles")
}

/// `catalog.msgpack` bytes of `catalog` as it stands, with a correct hash: what a forger who
/// edited the decoded catalog and wrote it back gets. (The [`codec::Writer`] does not check the
/// catalog's tables, which is the point.)
fn write(catalog: &Catalog) -> Vec<u8> {
    let mut writer = codec::Writer::new(Cursor::new(Vec::new())).expect("writing to memory");
    let mut order: Vec<_> = catalog.entries.iter().collect();
    order.sort_by(|a, b| codec::source_order(&a.path, &b.path));
    for entry in order {
        writer.body(&entry.path, &entry.bytes).expect("writing to memory");
    }
    writer.finish(catalog).expect("writing to memory").0.into_inner()
}

/// `file` with its body edited by `edit` and the envelope rewritten to match: the new body's
/// length and the blake3 hash of what the reader hashes (the metadata and the lengths after it,
/// or the whole body when those lengths do not fit it), so the integrity check passes whatever
/// the edit did.
fn rehash(file: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let suffix = &file[file.len() - codec::PLAN_SUFFIX..];
    let plan =
        codec::plan(&file[..codec::PLAN_PREFIX], suffix, file.len() as u64).expect("a catalog we wrote");
    let mut head = file[..plan.body.start].to_vec();
    let mut body = file[plan.body.clone()].to_vec();
    edit(&mut body);
    // The envelope ends with the hash (a str8 of 64 hex digits), the key `body` (a fixstr of 4)
    // and the body's bin32 header: 5 bytes, then 5, before the body.
    let len_at = head.len() - 4;
    head[len_at..].copy_from_slice(&u32::try_from(body.len()).unwrap().to_be_bytes());
    let hash_at = head.len() - 5 - 5 - 64;
    let hashed_from = body
        .len()
        .checked_sub(16)
        .and_then(|tail| {
            let length = |at: usize| {
                usize::try_from(u64::from_le_bytes(body[tail + at..tail + at + 8].try_into().unwrap())).ok()
            };
            length(0)?.checked_add(length(8)?).filter(|&end| end <= tail)
        })
        .unwrap_or(0);
    head[hash_at..hash_at + 64].copy_from_slice(blake3::hash(&body[hashed_from..]).to_hex().as_bytes());
    [head, body].concat()
}

/// A forged catalog written into a fresh tree as `catalog.msgpack`.
fn tree_with(bytes: &[u8]) -> Tree {
    let tree = Tree::new();
    tree.file("catalog.msgpack", bytes);
    tree
}

/// The search index's bytes with `edit` applied.
fn with_index(catalog: &mut Catalog, edit: impl FnOnce(&mut Vec<u8>)) {
    let mut data = catalog.search.data.to_vec();
    edit(&mut data);
    catalog.search.data = Bytes::from(data);
}

/// Byte offset of the document rows and the term rows of a stored search index (its layout is
/// in `catalog/search.rs`): a 32-byte header, 24 bytes per document, then 12 per term.
fn index_tables(data: &[u8]) -> (usize, usize) {
    let n_docs = u32::from_le_bytes(data[4..8].try_into().unwrap()) as usize;
    (32, 32 + 24 * n_docs)
}

/// Every forgery the loader must refuse, with the reason it must give.
fn refused() -> Vec<(&'static str, Vec<u8>, String)> {
    let mut cases = Vec::new();
    let mut add = |name: &'static str, edit: &dyn Fn(&mut Catalog), why: &str| {
        let mut catalog = basic();
        edit(&mut catalog);
        cases.push((name, write(&catalog), why.to_owned()));
    };
    add(
        "doc entry out of range",
        &|c| c.docs[0].entry = 99,
        "doc `guides/install.md` points at entry 99, but the catalog has 6 entries",
    );
    add(
        "doc entry of another kind",
        &|c| c.docs[0].entry = c.skills[0].document,
        "doc `guides/install.md` points at `skill://fill-forms/SKILL.md`, which is a skill_document, not a doc",
    );
    add(
        "doc entry of another doc",
        &|c| c.docs[0].entry = c.docs[1].entry,
        "doc `guides/install.md` points at the bytes of `docs/guides/uninstall.md`",
    );
    add(
        "docs out of order",
        &|c| c.docs.swap(0, 1),
        "doc `guides/install.md` is listed twice or out of order",
    );
    add(
        "skill document out of range",
        &|c| c.skills[0].document = u32::MAX,
        "skill `fill-forms` points at entry 4294967295, but the catalog has 6 entries",
    );
    add(
        "skill file out of range",
        &|c| c.skills[0].files[0].entry = 7,
        "file `assets/logo.png` of skill `fill-forms` points at entry 7, but the catalog has 6 entries",
    );
    add(
        "entries out of order",
        &|c| c.entries.swap(0, 1),
        "entry `resource://docs/guides/install.md` is listed out of order",
    );
    let honest = write(&basic());
    let trailing = [&honest[..], b"junk"].concat();
    cases.push(("trailing bytes", trailing, "4 bytes follow the end of its body".to_owned()));
    cases
}

/// Every forgery of the search index's tables (with its hash recomputed, as a forger would): the
/// index is checked when first searched, so these open, answer every read, and refuse every
/// search with the reason.
fn refused_when_searched() -> Vec<(&'static str, Vec<u8>, String)> {
    let mut cases = Vec::new();
    let mut add = |name: &'static str, edit: &dyn Fn(&mut Catalog), why: &str| {
        let mut catalog = basic();
        edit(&mut catalog);
        cases.push((name, write(&catalog), why.to_owned()));
    };
    add(
        "search hit out of range",
        &|c| {
            with_index(c, |data| {
                let (docs, _) = index_tables(data);
                data[docs..docs + 4].copy_from_slice(&1000u32.to_le_bytes());
            })
        },
        "the search index has document 0 pointing at entry 1000, but the catalog has 6 entries",
    );
    add(
        "search term offsets backwards",
        &|c| {
            with_index(c, |data| {
                let (_, terms) = index_tables(data);
                // Term 1's postings start before term 0's.
                data[terms + 12 + 4..terms + 12 + 8].copy_from_slice(&0u32.to_le_bytes());
                data[terms + 4..terms + 8].copy_from_slice(&5u32.to_le_bytes());
            })
        },
        "the search index has term 1 starting before the term ahead of it ends",
    );
    add(
        "search index header",
        &|c| with_index(c, |data| data[4..8].copy_from_slice(&u32::MAX.to_le_bytes())),
        "the search index has a header or section lengths that do not fit its 1100 bytes",
    );
    cases
}

#[test]
fn forged_search_indexes_are_refused_when_searched_with_the_reason() {
    for (name, bytes, why) in refused_when_searched() {
        let tree = tree_with(&bytes);
        let out = folio(tree.path(), &["search", "install", "--catalog", "catalog.msgpack"]);
        let expected =
            format!("error: catalog is corrupt: {why}\n  hint: rebuild the catalog with `folio build`\n");
        assert_eq!((out.code, out.stderr.as_str()), (Some(2), expected.as_str()), "{name}");
        assert_eq!(out.stdout, "", "{name}");
        let out = folio(tree.path(), &["show", "guides/install", "--catalog", "catalog.msgpack"]);
        assert_eq!(out.code, Some(0), "{name}: reads are served: {}", out.stderr);
        let query = Query::open(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let err =
            query.search(&SearchParams { query: "install".into(), ..SearchParams::default() }).unwrap_err();
        assert!(err.is_corrupt_catalog(), "{name}: {err}");
        assert_eq!(err.to_string(), format!("catalog is corrupt: {why}"), "{name}");
    }
}

#[test]
fn forged_catalogs_are_refused_by_show_and_search_with_the_reason() {
    for (name, bytes, why) in refused() {
        let tree = tree_with(&bytes);
        let expected =
            format!("error: catalog.msgpack: catalog is corrupt: {why}; rebuild it with `folio build`\n");
        for args in [
            &["show", "guides/install", "--section", "verify", "--catalog", "catalog.msgpack"][..],
            &["show", "fill-forms", "--catalog", "catalog.msgpack"],
            &["search", "install", "--catalog", "catalog.msgpack"],
            &["list", "--catalog", "catalog.msgpack"],
        ] {
            let out = folio(tree.path(), args);
            assert_eq!((out.code, out.stderr.as_str()), (Some(2), expected.as_str()), "{name}: {args:?}");
            assert_eq!(out.stdout, "", "{name}: {args:?}");
        }
    }
}

#[test]
fn forged_catalogs_are_refused_by_the_server_at_open() {
    for (name, bytes, why) in refused() {
        let err = FolioServer::from_bytes(&bytes).err().unwrap_or_else(|| panic!("{name}: served"));
        assert_eq!(
            err.to_string(),
            format!("catalog is corrupt: {why}; rebuild it with `folio build`"),
            "{name}"
        );
    }
}

#[test]
fn an_honest_rewrap_still_opens() {
    let bytes = write(&basic());
    let query = Query::open(rehash(&bytes, |_| {})).expect("an unchanged body opens");
    assert_eq!(query.catalog(), &basic());
}

/// The basic catalog with `guides/install.md`'s `verify` section (lines 14-16 of a 16-line file)
/// spanning `lines`: outlines are decoded when first read, so this passes the loader.
fn with_verify_section(lines: (u32, u32)) -> Vec<u8> {
    let mut catalog = basic();
    let outline: &mut Vec<Section> = catalog.docs[0].outline.get_mut().expect("built in memory");
    let verify = outline.iter_mut().find(|s| s.id == "verify").expect("the fixture's section");
    (verify.line_start, verify.line_end) = lines;
    write(&catalog)
}

/// What a section read of a forged outline answers.
const SECTION_REASON: &str = "section `verify` of `resource://docs/guides/install.md` spans lines";

#[test]
fn a_forged_section_range_is_an_error_for_show() {
    for (lines, shown) in [((12, 99), "12-99"), ((13, 12), "13-12"), ((0, 3), "0-3")] {
        let tree = tree_with(&with_verify_section(lines));
        let out = folio(
            tree.path(),
            &["show", "guides/install", "--section", "verify", "--catalog", "catalog.msgpack"],
        );
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (
                Some(2),
                format!(
                    "error: catalog is corrupt: {SECTION_REASON} {shown}, but the file has 16 lines\n  \
                     hint: rebuild the catalog with `folio build`\n"
                )
                .as_str()
            ),
            "{lines:?}"
        );
    }
}

/// Serves `bytes` over an in-memory stdio pipe and sends, one at a time, a `resources/read` and
/// a `read_resource` call of `uri`, then an ordinary read; returns the three answers.
async fn read_twice_then_index(bytes: &[u8], uri: &str) -> Vec<Value> {
    let server = FolioServer::from_bytes(bytes).expect("heavy fields are read lazily");
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let _ = folio::server::run_on(server, server_end).await;
    });
    let (read, mut write) = tokio::io::split(client_end);
    let mut read = BufReader::new(read);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "folio-tests", "version": "0" },
    });
    let requests = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "resources/read",
                "params": { "uri": uri, "_meta": meta } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": { "name": "read_resource", "arguments": { "uri": uri }, "_meta": meta } }),
        // The worker is still there: an ordinary read is answered after both.
        json!({ "jsonrpc": "2.0", "id": 3, "method": "resources/read",
                "params": { "uri": "resource://docs/index.md", "_meta": meta } }),
    ];
    let mut answers = Vec::new();
    for request in requests {
        write.write_all(format!("{request}\n").as_bytes()).await.unwrap();
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(5), read.read_line(&mut line))
            .await
            .expect("the server answers within 5 s")
            .unwrap();
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    answers
}

#[tokio::test]
async fn a_forged_section_range_is_an_error_answer_from_the_server() {
    let uri = "resource://docs/guides/install.md?section=verify";
    let answers = read_twice_then_index(&with_verify_section((12, 99)), uri).await;
    let message = format!("catalog is corrupt: {SECTION_REASON} 12-99, but the file has 16 lines");
    // The request is sound; the catalog is not: an internal error, not invalid params.
    assert_eq!(answers[0]["error"]["code"], -32603, "{}", answers[0]);
    assert_eq!(answers[0]["error"]["message"], message.as_str());
    assert_eq!(answers[1]["result"]["isError"], true, "{}", answers[1]);
    let text = answers[1]["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(
        text,
        format!(
            "Catalog is corrupt: {SECTION_REASON} 12-99, but the file has 16 lines. The server's \
             operator must rebuild the catalog with `folio build`."
        )
    );
    assert!(answers[2]["result"]["contents"][0]["text"].is_string(), "{}", answers[2]);
}

/// The basic catalog with `guides/install.md`'s outline made undecodable (its first byte, the
/// list's header, becomes 0xc1, which msgpack never uses) and the hash recomputed: outlines are
/// decoded when first read, so this passes the loader.
fn with_garbage_outline() -> Vec<u8> {
    let catalog = basic();
    let outline = rmp_serde::to_vec(catalog.docs[0].outline.get().expect("built in memory")).unwrap();
    rehash(&write(&catalog), |body| {
        let found: Vec<usize> = body
            .windows(outline.len())
            .enumerate()
            .filter(|(_, w)| *w == outline)
            .map(|(at, _)| at)
            .collect();
        assert_eq!(found.len(), 1, "the outline's msgpack is in the body once");
        body[found[0]] = 0xc1;
    })
}

/// What every read that needs the forged outline answers.
const OUTLINE_REASON: &str = "catalog is corrupt: the outline of `resource://docs/guides/install.md` does \
                              not decode (wrong msgpack marker Reserved)";

#[test]
fn an_undecodable_outline_is_an_error_for_show_and_search_not_an_empty_outline() {
    let tree = tree_with(&with_garbage_outline());
    let expected = format!("error: {OUTLINE_REASON}\n  hint: rebuild the catalog with `folio build`\n");
    for args in [
        &["show", "guides/install", "--section", "verify", "--catalog", "catalog.msgpack"][..],
        &["show", "guides/install", "--catalog", "catalog.msgpack"],
        &["search", "install", "--catalog", "catalog.msgpack"],
    ] {
        let out = folio(tree.path(), args);
        assert_eq!((out.code, out.stderr.as_str()), (Some(2), expected.as_str()), "{args:?}");
        assert_eq!(out.stdout, "", "{args:?}");
    }
    // What does not need the outline is still served: the doc's bytes, another doc's record.
    let query = Query::open(with_garbage_outline()).expect("outlines are read lazily");
    let whole = query.read("resource://docs/guides/install.md", &Selection::default()).unwrap();
    assert_eq!(whole.total_lines, 16);
    assert!(query.doc_detail("guides/uninstall.md").is_ok());
    let err = query.doc_detail("guides/install.md").unwrap_err();
    assert_eq!(err.to_string(), OUTLINE_REASON);
    assert!(err.is_corrupt_catalog());
}

#[tokio::test]
async fn an_undecodable_outline_is_an_error_answer_from_the_server() {
    let uri = "resource://docs/guides/install.md?section=verify";
    let answers = read_twice_then_index(&with_garbage_outline(), uri).await;
    assert_eq!(answers[0]["error"]["code"], -32603, "{}", answers[0]);
    assert_eq!(answers[0]["error"]["message"], OUTLINE_REASON);
    assert_eq!(answers[1]["result"]["isError"], true, "{}", answers[1]);
    assert!(answers[2]["result"]["contents"][0]["text"].is_string(), "{}", answers[2]);
}

// Random forgeries (whatever the bytes, opening and reading never panic, and both are reached):
// forged_catalog/random.rs.
mod random;

// ---------------------------------------------------------------------------------------------
// Not a catalog file at all: devices, FIFOs and directories are refused without reading.
// ---------------------------------------------------------------------------------------------

/// Runs `folio` with `args` in `cwd`, failing the test (and killing it) if it has not exited
/// within 10 s: reading `/dev/zero` or opening a FIFO never returns on its own.
fn folio_within_10s(cwd: &Path, args: &[&str]) -> (Option<i32>, String) {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(out) => {
            let out = out.unwrap();
            (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
        }
        Err(_) => {
            let _ = std::process::Command::new("kill").args(["-9", &id.to_string()]).status();
            panic!("`folio {}` still running after 10 s", args.join(" "));
        }
    }
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_as_catalogs_without_waiting() {
    let tree = Tree::new();
    let made = std::process::Command::new("mkfifo").arg(tree.join("fifo")).status().unwrap();
    assert!(made.success());
    std::fs::create_dir(tree.join("dir")).unwrap();
    let cases = [("/dev/zero", "a character device"), ("fifo", "a FIFO"), ("dir", "a directory")];
    for (path, kind) in cases {
        for command in [
            &["list"][..],
            &["show", "install"],
            &["search", "install"],
            &["serve"],
            &["bundle", "--out", "bundled"],
        ] {
            let args = [command, &["--catalog", path]].concat();
            let (code, stderr) = folio_within_10s(tree.path(), &args);
            assert_eq!(
                (code, stderr.as_str()),
                (
                    Some(2),
                    format!(
                        "error: {path}: not a regular file ({kind}); give the path of a \
                         `catalog.msgpack` written by `folio build`\n"
                    )
                    .as_str()
                ),
                "{args:?}"
            );
        }
    }
}

#[test]
fn suggestions_for_a_catalog_whose_uris_do_not_resolve_end() {
    // A doc entry's URI forged to name no doc, far from every path, in the place the order
    // checks expect. "Did you mean" searches when no name is near; resolving each hit by its
    // URI failed, suggested, searched and found the same hit, until the stack overflowed.
    let mut catalog = basic();
    let entry = catalog.entries.iter_mut().find(|e| e.uri == "resource://docs/guides/install.md").unwrap();
    entry.uri = "resource://docs/guides/qqqqqqqqqqqqqqqq.md".to_owned();
    let query = Query::open(write(&catalog)).expect("the forgery passes the checks at open");
    let Err(QueryError::NotFound { suggestions, .. }) = query.resolve("zzzz guides") else {
        panic!("nothing is named `zzzz guides`")
    };
    assert_eq!(suggestions, ["guides/install.md", "guides/uninstall.md", "index.md"]);
    assert!(query.resolve("resource://docs/guides/qqqqqqqqqqqqqqqq.md").is_err());
}

/// A catalog file of `len` bytes (sparse: no disk is spent) starting with `start`.
#[cfg(unix)]
fn sparse(tree: &Tree, name: &str, start: &[u8], len: u64) {
    use std::io::Write as _;
    let mut file = std::fs::File::create(tree.join(name)).unwrap();
    file.write_all(start).unwrap();
    file.set_len(len).unwrap();
}

#[cfg(unix)]
#[test]
fn a_large_file_refused_by_its_envelope_and_size_is_not_read() {
    const GIB: u64 = 1 << 30;
    let honest = write(&basic());
    let tree = Tree::new();
    sparse(&tree, "zeros.msgpack", b"", 2 * GIB);
    sparse(&tree, "appended.msgpack", &honest, 2 * GIB);
    // A real envelope whose body claims more than the file holds.
    sparse(&tree, "cut.msgpack", &honest[..honest.len() / 2], honest.len() as u64 / 2);
    let trailing = 2 * GIB - honest.len() as u64;
    let missing = honest.len() as u64 - honest.len() as u64 / 2;
    let cases = [
        (
            "zeros.msgpack",
            "not a folio catalog (it does not start as a catalog does (a map of `format`, `version`, \
             `catalog_hash` and `body`)); rebuild it with `folio build`"
                .to_owned(),
        ),
        (
            "appended.msgpack",
            format!(
                "catalog is corrupt: {trailing} bytes follow the end of its body; rebuild it with `folio build`"
            ),
        ),
        (
            "cut.msgpack",
            format!(
                "not a folio catalog (the file ends {missing} bytes before its body does: it was cut short); \
                 rebuild it with `folio build`"
            ),
        ),
    ];
    for (name, why) in cases {
        for command in ["list", "serve", "bundle --out bundled"] {
            // Under a 1 GiB address-space limit: reading a 2 GiB file whole cannot succeed, so
            // the refusal below proves the file was refused from its first bytes and size.
            let out = std::process::Command::new("sh")
                .args(["-c", r#"ulimit -v 1048576 && exec "$0" $1 --catalog "$2" </dev/null"#])
                .args([env!("CARGO_BIN_EXE_folio"), command, name])
                .current_dir(tree.path())
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                (out.status.code(), stderr.as_ref()),
                (Some(2), format!("error: {name}: {why}\n").as_str()),
                "{command} {name}"
            );
        }
    }
    assert!(!tree.join("bundled").exists(), "no bundle of a refused catalog");
}
