//! `folio list`, `folio show` and `folio search` on the `basic` fixture, through `--content` and
//! through a built `--catalog`, checking what a person at a terminal or a script sees.

use crate::support::{Output, Tree, copy_dir, folio};

fn fixture(name: &str) -> Tree {
    let tree = Tree::new();
    copy_dir(&crate::support::repo().join("tests/fixtures").join(name), tree.path());
    tree
}

fn run(tree: &Tree, args: &[&str]) -> Output {
    folio(tree.path(), args)
}

#[test]
fn list_prints_a_table_that_fits_the_terminal() {
    let tree = fixture("basic");
    let out = folio_with_columns(&tree, &["list", "--content", "content"], "60");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for line in out.stdout.lines() {
        assert!(line.chars().count() <= 60, "{line:?} is wider than COLUMNS=60");
    }
    let first = out.stdout.lines().next().unwrap();
    assert!(first.starts_with("KIND") && first.contains("URI") && first.contains("TITLE"), "{first}");
    assert!(out.stdout.contains("resource://docs/guides/install.md"), "{}", out.stdout);
    assert!(out.stdout.contains("skill://fill-forms/SKILL.md"), "{}", out.stdout);
    assert!(!out.stdout.contains('\x1b'), "no colour when stdout is not a terminal");
    let last = out.stdout.lines().last().unwrap();
    assert!(last.ends_with(" entries"), "{last}");
}

fn folio_with_columns(tree: &Tree, args: &[&str], columns: &str) -> Output {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(args)
        .current_dir(tree.path())
        .env("NO_COLOR", "1")
        .env("COLUMNS", columns)
        .output()
        .unwrap();
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn list_filters_and_json_agree_with_the_catalog() {
    let tree = fixture("basic");
    let build = run(&tree, &["build", "content", "--out", "catalog"]);
    assert_eq!(build.code, Some(0), "{}", build.stderr);
    let out = run(&tree, &["list", "--catalog", "catalog/catalog.msgpack", "--kind", "doc", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let uris: Vec<&str> =
        json["items"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        [
            "resource://docs/guides/install.md",
            "resource://docs/guides/uninstall.md",
            "resource://docs/index.md"
        ]
    );
    assert_eq!(json["total"], 3);
    let install = &json["items"][0];
    assert_eq!(install["kind"], "doc");
    assert_eq!(install["title"], "Install");
    assert_eq!(install["updated"], "2026-01-31");
    assert_eq!(install["tags"], serde_json::json!(["setup", "cli"]));

    let out = run(&tree, &["list", "--catalog", "catalog/catalog.msgpack", "--tag", "pdf", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["items"][0]["uri"], "skill://fill-forms/SKILL.md");
    assert_eq!(json["total"], 1);

    let out = run(&tree, &["list", "--catalog", "catalog/catalog.msgpack", "--prefix", "guides/u", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["items"][0]["uri"], "resource://docs/guides/uninstall.md");
    assert_eq!(json["total"], 1);
}

#[test]
fn show_prints_a_header_then_the_exact_text() {
    let tree = fixture("basic");
    let source = std::fs::read_to_string(tree.join("content/docs/guides/install.md")).unwrap();
    let out = run(&tree, &["show", "--content", "content", "guides/install"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let (header, text) = out.stdout.split_once("─\n").unwrap();
    assert!(header.contains("uri: resource://docs/guides/install.md"), "{header}");
    assert!(header.contains("title: Install"), "{header}");
    assert!(header.contains("sections: installing, verify"), "{header}");
    assert_eq!(text, source, "the text after the header is the file, byte for byte");

    let out = run(
        &tree,
        &["show", "--content", "content", "resource://docs/guides/install.md", "--section", "verify"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.ends_with("\n## Verify\n\nCheck the version.\n"), "{}", out.stdout);
    assert!(out.stdout.contains("section: verify"), "{}", out.stdout);

    let out =
        run(&tree, &["show", "--content", "content", "guides/install.md", "--lines", "10-10", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["text"], "# Installing\n");
    assert_eq!(json["range"], serde_json::json!([10, 10]));
    assert_eq!(json["total_lines"], 16);
    assert_eq!(json["detail"]["outline"][1]["uri"], "resource://docs/guides/install.md?section=verify");

    let out = run(&tree, &["show", "--content", "content", "fill-forms"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("skill: fill-forms"), "{}", out.stdout);
    assert!(out.stdout.contains("files: SKILL.md, assets/logo.png, references/fields.md"), "{}", out.stdout);

    let out = run(&tree, &["show", "--content", "content", "skill://fill-forms/assets/logo.png"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("(binary, "), "{}", out.stdout);
}

#[test]
fn show_refuses_unknown_ids_and_bad_selections_with_exit_2() {
    let tree = fixture("basic");
    let cases: [(&[&str], &str); 7] = [
        (&["show", "fill-form"], "error: no skill or doc `fill-form`; did you mean `fill-forms`?"),
        (
            &["show", "guides/instal.md"],
            "error: no skill or doc `guides/instal.md`; did you mean `guides/install.md`?",
        ),
        (&["show", "../../etc/passwd"], "error: invalid `id`: path has a `.` or `..` segment"),
        (&["show", "resource://docs/%2e%2e/x.md"], "error: invalid `uri`: path has a `.` or `..` segment"),
        (&["show", "guides/install.md", "--section", "nope"], "error: invalid `section`: no section `nope`"),
        (
            &["show", "guides/install.md", "--lines", "9-3"],
            "error: invalid `lines`: range 9-3 is reversed (start > end)",
        ),
        (&["show", "guides/install.md", "--lines", "99"], "error: invalid `lines`: line 99 is past the end"),
    ];
    for (args, expected) in cases {
        let mut full: Vec<&str> = args.to_vec();
        full.extend(["--content", "content"]);
        let out = run(&tree, &full);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(out.stderr.starts_with(expected), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?} printed nothing on stdout");
    }
}

#[test]
fn search_ranks_and_marks_matches() {
    let tree = fixture("basic");
    let out = run(&tree, &["search", "--content", "content", "installer"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let first = out.stdout.lines().next().unwrap();
    assert!(first.starts_with(" 1. Install"), "{}", out.stdout);
    assert!(out.stdout.contains("**installer**"), "{}", out.stdout);

    let out = run(&tree, &["search", "--content", "content", "form", "--kind", "skill", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["items"][0]["uri"], "skill://fill-forms/SKILL.md");
    assert!(json["items"].as_array().unwrap().iter().all(|h| h["kind"] == "skill"));

    let out = run(&tree, &["search", "--content", "content", "?!"]);
    assert_eq!(out.code, Some(2));
    assert!(
        out.stderr.starts_with("error: invalid `query`: `?!` has no words to search for"),
        "{}",
        out.stderr
    );

    let out = run(&tree, &["search", "--content", "content", "zzzqqq"]);
    assert_eq!(out.code, Some(0));
    assert!(out.stdout.is_empty() && out.stderr.starts_with("no matches for `zzzqqq`"), "{}", out.stderr);
}

#[test]
fn content_errors_and_bad_catalogs_are_reported() {
    let tree = fixture("bad-skills");
    // Like `serve --content`: skills with errors of their own are left out, and named.
    let out = run(&tree, &["list", "--content", "content", "--kind", "skill"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("note: left out name-mismatch, 1 entry: skills/pdf (first: skills/pdf/SKILL.md:2:7: "),
        "{}",
        out.stderr
    );
    assert!(!out.stdout.contains("skill://pdf"), "{}", out.stdout);
    // An error no left-out entry explains still refuses the tree.
    tree.file("content/folio.toml", "[catalog\n");
    let out = run(&tree, &["list", "--content", "content"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("error[invalid-config]"), "diagnostics are printed: {}", out.stderr);
    assert!(out.stdout.is_empty());

    tree.file("broken.msgpack", b"not a catalog");
    let out = run(&tree, &["list", "--catalog", "broken.msgpack"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.starts_with("error: broken.msgpack: not a folio catalog"), "{}", out.stderr);

    // The OS's reason is said once, after the path.
    let out = run(&tree, &["list", "--catalog", "missing.msgpack"]);
    assert_eq!(out.code, Some(2));
    let reason = std::fs::read(tree.join("missing.msgpack")).unwrap_err();
    assert_eq!(out.stderr, format!("error: missing.msgpack: {reason}\n"));
}
