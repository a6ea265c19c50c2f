//! `folio check` and `folio build` on real trees: every diagnostic code the compiler owns with
//! its path, line and column; bad input that must not panic; determinism; integrity of the
//! written catalog; the vendored corpora (`tests/corpora`); the committed `catalog/`.

use std::path::Path;

use crate::support::{Tree, copy_dir, corpora, expect_file, folio};

/// Codes decided by link resolution (`links.rs`): tests here compare everything else exactly.
const LINK_CODES: &[&str] = &["broken-link", "broken-anchor", "case-mismatch", "orphan-doc"];

/// `folio check content --format json` in the tree: `code path:line:col` of each diagnostic
/// (paths relative to the content root), link-resolution codes left out.
#[track_caller]
fn check(tree: &Tree) -> Vec<String> {
    let out = folio(tree.path(), &["check", "content", "--format", "json"]);
    assert!(matches!(out.code, Some(0 | 1)), "check must exit 0 or 1, got {:?}\n{}", out.code, out.stderr);
    let diags: serde_json::Value = serde_json::from_str(&out.stdout).expect("--format json prints one array");
    let mut got = Vec::new();
    for d in diags.as_array().unwrap() {
        let code = d["code"].as_str().unwrap();
        if LINK_CODES.contains(&code) {
            continue;
        }
        let path = d["path"].as_str().unwrap().strip_prefix("content/").unwrap();
        got.push(format!("{code} {path}:{}:{}", d["line"], d["column"]));
    }
    let has_error = diags.as_array().unwrap().iter().any(|d| d["severity"] == "error");
    assert_eq!(out.code, Some(if has_error { 1 } else { 0 }), "exit code follows the errors");
    got
}

/// Builds a tree of `(path, bytes)` files under `content/` and checks it.
#[track_caller]
pub(crate) fn case(files: &[(&str, &[u8])], expected: &[&str]) -> Tree {
    let tree = Tree::new();
    for (path, bytes) in files {
        tree.file(Path::new("content").join(path), bytes);
    }
    assert_eq!(check(&tree), expected);
    tree
}

pub(crate) const SKILL: &[u8] = b"---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n";

pub(crate) fn skill_md(frontmatter: &str) -> Vec<u8> {
    format!("---\n{frontmatter}---\n# PDF\n").into_bytes()
}

#[test]
fn frontmatter_syntax_points_at_the_yaml_error() {
    case(&[("docs/a.md", b"---\ntitle: A\nbad: [1, 2\n---\n# A\n")], &["frontmatter-syntax docs/a.md:4:1"]);
}

#[test]
fn frontmatter_unclosed_points_at_the_opening_fence() {
    case(&[("docs/a.md", b"---\ntitle: A\n# A\n")], &["frontmatter-unclosed docs/a.md:1:1"]);
}

#[test]
fn frontmatter_type_points_at_the_value() {
    case(&[("docs/a.md", b"---\ntitle: A\ntags: guide\n---\n")], &["frontmatter-type docs/a.md:3:7"]);
}

#[test]
fn frontmatter_ambiguous_flags_unquoted_yaml11_values_and_aliases() {
    let md = skill_md("name: pdf\ndescription: &d Fill PDF forms.\nlicense: no\nmetadata:\n  about: *d\n");
    case(
        &[("skills/pdf/SKILL.md", &md)],
        &[
            "frontmatter-ambiguous skills/pdf/SKILL.md:3:17",
            "frontmatter-ambiguous skills/pdf/SKILL.md:4:10",
            "frontmatter-ambiguous skills/pdf/SKILL.md:6:10",
        ],
    );
}

#[test]
fn unknown_field_is_an_error_at_the_key_and_host_fields_warn() {
    let md = skill_md("name: pdf\ndescription: Fill PDF forms.\nauthor: me\nuser-invocable: false\n");
    case(
        &[("skills/pdf/SKILL.md", &md)],
        &["unknown-field skills/pdf/SKILL.md:4:1", "host-field skills/pdf/SKILL.md:5:1"],
    );
}

#[test]
fn a_typed_scalar_name_is_refused() {
    let md = skill_md("name: 123\ndescription: Fill PDF forms.\n");
    case(&[("skills/123/SKILL.md", &md)], &["frontmatter-type skills/123/SKILL.md:2:7"]);
}

#[test]
fn missing_name_points_at_the_frontmatter() {
    case(
        &[("skills/pdf/SKILL.md", &skill_md("description: Fill PDF forms.\n"))],
        &["missing-name skills/pdf/SKILL.md:1:1"],
    );
}

#[test]
fn invalid_name_points_at_the_value() {
    let md = skill_md("name: PDF_Forms\ndescription: Fill PDF forms.\n");
    case(&[("skills/PDF_Forms/SKILL.md", &md)], &["invalid-name skills/PDF_Forms/SKILL.md:2:7"]);
}

#[test]
fn name_mismatch_points_at_the_value() {
    let md = skill_md("name: pdf-forms\ndescription: Fill PDF forms.\n");
    case(&[("skills/pdf/SKILL.md", &md)], &["name-mismatch skills/pdf/SKILL.md:2:7"]);
}

#[test]
fn missing_description_points_at_the_frontmatter() {
    case(
        &[("skills/pdf/SKILL.md", &skill_md("name: pdf\n"))],
        &["missing-description skills/pdf/SKILL.md:1:1"],
    );
}

#[test]
fn description_and_compatibility_limits_point_at_the_values() {
    let md = skill_md(&format!(
        "name: pdf\ndescription: {}\ncompatibility: {}\n",
        "d".repeat(1025),
        "c".repeat(501)
    ));
    case(
        &[("skills/pdf/SKILL.md", &md)],
        &["description-too-long skills/pdf/SKILL.md:3:14", "compatibility-too-long skills/pdf/SKILL.md:4:16"],
    );
}

#[test]
fn skill_limits_count_files_bytes_and_lines() {
    let tree = Tree::new();
    tree.file("content/skills/pdf/SKILL.md", SKILL);
    for i in 0..512 {
        tree.file(format!("content/skills/pdf/assets/{i:03}.txt"), "x");
    }
    assert_eq!(check(&tree), ["skill-too-many-files skills/pdf/SKILL.md:1:1"]);

    let tree = Tree::new();
    tree.file("content/skills/pdf/SKILL.md", SKILL);
    for i in 0..3 {
        tree.file(format!("content/skills/pdf/blob{i}.bin"), vec![0u8; 6 * 1024 * 1024]);
    }
    assert_eq!(check(&tree), ["skill-too-large skills/pdf/SKILL.md:1:1"]);

    let mut long = SKILL.to_vec();
    long.extend("line\n".repeat(500).bytes());
    case(&[("skills/pdf/SKILL.md", &long)], &["skill-md-too-long skills/pdf/SKILL.md:501:1"]);
}

#[test]
fn backlinks_name_their_sources_when_uri_order_is_not_path_order() {
    // `a b.md` sorts before `a!.md` by path (space before `!`), but its URI `a%20b.md` sorts
    // after `a!.md`'s: resolution names files by path order, the catalog keeps them by URI.
    let tree = Tree::new();
    tree.file("content/docs/a b.md", "# Space\n\nSee [bang](a!.md) and [index](index.md).\n")
        .file("content/docs/a!.md", "# Bang\n\nSee [space](a%20b.md), [itself](a!.md) and [[Index]].\n")
        .file("content/docs/index.md", "# Index\n\n[Space](<a b.md>), [bang](a!.md).\n");
    let out = folio(tree.path(), &["build", "content", "--out", "out"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let catalog = folio::query::load_catalog(&tree.join("out/catalog.msgpack")).unwrap();
    let uris: Vec<&str> = catalog.entries.iter().map(|e| e.uri.as_str()).collect();
    assert_eq!(uris, ["resource://docs/a!.md", "resource://docs/a%20b.md", "resource://docs/index.md"]);
    let backlinks = |path: &str| catalog.doc(path).map(|d| d.backlinks.get().unwrap().to_vec()).unwrap();
    assert_eq!(backlinks("a!.md"), ["resource://docs/a%20b.md", "resource://docs/index.md"]);
    assert_eq!(backlinks("a b.md"), ["resource://docs/a!.md", "resource://docs/index.md"]);
    assert_eq!(backlinks("index.md"), ["resource://docs/a!.md", "resource://docs/a%20b.md"]);
}

#[test]
fn duplicate_skill_name_points_at_the_second_name() {
    case(
        &[("skills/a/pdf/SKILL.md", SKILL), ("skills/b/pdf/SKILL.md", SKILL)],
        &["duplicate-skill-name skills/b/pdf/SKILL.md:2:7"],
    );
}

#[test]
fn case_collision_names_the_later_path() {
    case(
        &[("docs/Guide.md", b"# Guide\n"), ("docs/guide.md", b"# guide\n")],
        &["case-collision docs/guide.md:1:1"],
    );
}

#[test]
fn non_portable_names_are_reported() {
    case(
        &[("docs/con.md", b"# Con\n"), ("docs/a?b.md", b"# A\n"), ("docs/ok.md", b"# ok\n")],
        &["non-portable-name docs/a?b.md:1:1", "non-portable-name docs/con.md:1:1"],
    );
}

#[test]
fn nfc_nfd_twins_are_reported() {
    case(
        &[("docs/caf\u{e9}.md", b"# Cafe\n"), ("docs/cafe\u{301}.md", b"# Cafe\n")],
        // A warning for the decomposed name, an error for the twin (reported on the later path).
        &["non-portable-name docs/cafe\u{301}.md:1:1", "non-portable-name docs/caf\u{e9}.md:1:1"],
    );
}

#[cfg(unix)]
#[test]
fn duplicate_uri_when_names_only_differ_in_invalid_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;
    let tree = Tree::new();
    tree.file(Path::new("content/docs").join(OsStr::from_bytes(b"a\xff.md")), "# A\n");
    tree.file(Path::new("content/docs").join(OsStr::from_bytes(b"a\xfe.md")), "# A\n");
    assert_eq!(
        check(&tree),
        [
            // Both names are reported non-portable with the same (lossy) text: one line.
            "duplicate-uri docs/a\u{fffd}.md:1:1",
            "non-portable-name docs/a\u{fffd}.md:1:1",
        ]
    );
}

#[test]
fn invalid_utf8_points_at_the_first_bad_byte() {
    case(&[("docs/a.md", b"# A\nna\xefve\n")], &["invalid-utf8 docs/a.md:2:3"]);
    // Binary skill files are fine: they are served as blobs.
    case(&[("skills/pdf/SKILL.md", SKILL), ("skills/pdf/logo.png", b"\x89PNG\r\n\x1a\n\xff\x00")], &[]);
}

#[test]
fn invalid_date_points_at_the_value() {
    case(&[("docs/a.md", b"---\nupdated: 2026-13-01\n---\n# A\n")], &["invalid-date docs/a.md:2:10"]);
}

#[test]
fn file_too_large_is_refused_without_reading_it() {
    let big = vec![b'a'; 8 * 1024 * 1024 + 1];
    case(&[("docs/big.md", &big), ("docs/ok.md", b"# ok\n")], &["file-too-large docs/big.md:1:1"]);
}

#[test]
fn folio_toml_errors_are_located() {
    case(
        &[("folio.toml", b"[catalog]\nname = \"x\"\n[server]\nttl_ms = \"soon\"\n"), ("docs/a.md", b"# A\n")],
        &["invalid-config folio.toml:4:10"],
    );
}

#[cfg(unix)]
#[test]
fn symlinks_inside_are_followed_and_escapes_refused() {
    let tree = Tree::new();
    tree.file("outside.md", "# secret\n");
    tree.file("content/docs/real.md", "# Real\n");
    tree.symlink("real.md", "content/docs/alias.md");
    tree.symlink("../../outside.md", "content/docs/escape.md");
    tree.symlink(tree.path(), "content/docs/up");
    assert_eq!(check(&tree), ["path-escape docs/escape.md:1:1", "path-escape docs/up:1:1"]);
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_dangling_links_are_reported() {
    let tree = Tree::new();
    tree.file("content/docs/a/x.md", "# X\n");
    tree.symlink("..", "content/docs/a/loop");
    tree.symlink("missing.md", "content/docs/dangling.md");
    assert_eq!(check(&tree), ["symlink-loop docs/a/loop:1:1", "unreadable-file docs/dangling.md:1:1"]);
}

#[cfg(unix)]
#[test]
fn unreadable_files_are_reported_and_the_rest_is_kept() {
    use std::os::unix::fs::PermissionsExt as _;
    let tree = Tree::new();
    tree.file("content/docs/locked.md", "# Locked\n");
    tree.file("content/skills/pdf/SKILL.md", skill_md("name: pdf\n"));
    let locked = tree.join("content/docs/locked.md");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable = std::fs::read(&locked).is_ok(); // root reads anything
    let mut expected = vec!["missing-description skills/pdf/SKILL.md:1:1"];
    if !readable {
        expected.insert(0, "unreadable-file docs/locked.md:1:1");
    }
    assert_eq!(check(&tree), expected);
}

#[test]
fn bom_crlf_and_empty_frontmatter_compile_with_exact_bytes() {
    let tree = Tree::new();
    let bom_crlf: &[u8] =
        b"\xef\xbb\xbf---\r\ntitle: Crlf\r\ntags: [a]\r\n---\r\n# Heading\r\n\r\nFirst. Second.\r\n";
    tree.file("content/docs/crlf.md", bom_crlf);
    tree.file("content/docs/empty.md", "---\n---\n# Empty frontmatter\n\nOne. Two. Three. Four.\n");
    tree.file("content/docs/plain.md", "No heading here.\n");
    assert_eq!(check(&tree), Vec::<String>::new());
    let out = folio(tree.path(), &["build", "content", "--out", "out"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let catalog = folio::query::load_catalog(&tree.join("out/catalog.msgpack")).unwrap();
    let crlf = catalog.doc("crlf.md").unwrap();
    assert_eq!(crlf.title, "Crlf");
    assert_eq!(crlf.tags, ["a"]);
    let entry = &catalog.entries[crlf.entry as usize];
    assert_eq!(&entry.bytes[..], bom_crlf, "bodies are the exact bytes");
    assert_eq!(entry.blake3, blake3::hash(bom_crlf).to_hex().to_string());
    assert_eq!(entry.total_lines, 7);
    let empty = catalog.doc("empty.md").unwrap();
    assert_eq!(empty.title, "Empty frontmatter");
    assert_eq!(empty.description, "One. Two. Three.");
    assert_eq!(catalog.doc("plain.md").unwrap().title, "plain");
}

#[test]
fn alias_bomb_is_refused_in_bounded_time() {
    let mut fm = String::from(
        "name: pdf\ndescription: d\nmetadata:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..12 {
        fm.push_str(&format!("  a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", ")));
    }
    let md = skill_md(&fm);
    let tree = Tree::new();
    tree.file("content/skills/pdf/SKILL.md", md);
    let got = check(&tree);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].starts_with("frontmatter-syntax skills/pdf/SKILL.md:"), "{got:?}");
}

#[test]
fn deep_and_wide_trees_compile() {
    let tree = Tree::new();
    let deep: String = (0..60).map(|i| format!("d{i}/")).collect();
    tree.file(format!("content/docs/{deep}leaf.md"), "# Leaf\n");
    for i in 0..1500 {
        tree.file(format!("content/docs/wide/{i:04}.md"), format!("# Doc {i}\n"));
    }
    assert_eq!(check(&tree), Vec::<String>::new());
    let out = folio(tree.path(), &["build", "content", "--out", "out"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let catalog = folio::query::load_catalog(&tree.join("out/catalog.msgpack")).unwrap();
    assert_eq!(catalog.docs.len(), 1501);
}

#[test]
fn every_problem_is_reported_and_nothing_else_is_lost() {
    let tree = Tree::new();
    tree.file("content/docs/a.md", b"---\ntitle: [\n---\n");
    tree.file("content/docs/b.md", b"bad \xff utf8\n");
    tree.file("content/docs/c.md", b"---\nupdated: never\n");
    tree.file("content/docs/sub/ok.md", b"# fine\n");
    tree.file("content/skills/x/SKILL.md", skill_md("name: other\ndescription: d\n"));
    tree.file("content/skills/z/SKILL.md", SKILL);
    tree.file("content/folio.toml", "[catalog\n");
    assert_eq!(
        check(&tree),
        [
            "frontmatter-syntax docs/a.md:3:1",
            "invalid-utf8 docs/b.md:1:5",
            "frontmatter-unclosed docs/c.md:1:1",
            "invalid-config folio.toml:1:9",
            "name-mismatch skills/x/SKILL.md:2:7",
            "name-mismatch skills/z/SKILL.md:2:7",
        ]
    );
}

#[test]
fn human_output_matches_the_golden_file() {
    let tree = Tree::new();
    copy_dir(&fixture("bad-skills"), &tree.join("content"));
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(1));
    expect_file("tests/fixtures/bad-skills/expected/check.txt", &tree.redact(&out.stdout));
    let out = folio(tree.path(), &["check", "content", "--format", "github"]);
    expect_file("tests/fixtures/bad-skills/expected/github.txt", &tree.redact(&out.stdout));
}

#[test]
fn deny_warnings_fails_on_warnings_from_the_flag_or_folio_toml() {
    let tree = Tree::new();
    tree.file(
        "content/skills/pdf/SKILL.md",
        skill_md("name: pdf\ndescription: Fill PDF forms.\nwhen_to_use: forms\n"),
    );
    assert_eq!(folio(tree.path(), &["check", "content"]).code, Some(0));
    assert_eq!(folio(tree.path(), &["check", "content", "--deny-warnings"]).code, Some(1));
    tree.file("content/folio.toml", "[check]\ndeny_warnings = true\n");
    assert_eq!(folio(tree.path(), &["check", "content"]).code, Some(1));
}

#[test]
fn missing_content_root_is_a_usage_error() {
    let tree = Tree::new();
    let out = folio(tree.path(), &["check", "nope"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.starts_with("error: cannot read the content root"), "{}", out.stderr);
    assert_eq!(folio(tree.path(), &["build", "nope"]).code, Some(2));
}

#[test]
fn build_refuses_to_write_a_catalog_with_errors() {
    let tree = case(&[("docs/a.md", b"---\ntitle: A\n")], &["frontmatter-unclosed docs/a.md:1:1"]);
    let out = folio(tree.path(), &["build", "content", "--out", "out"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("content/docs/a.md:1:1: error[frontmatter-unclosed]"), "{}", out.stderr);
    assert!(!tree.join("out").exists(), "nothing is left behind, not even the --out directory");
    // Bodies are streamed to a temporary file during the compile: it is removed, and a catalog
    // already there is left as it was.
    tree.file("out/catalog.msgpack", "the previous catalog");
    assert_eq!(folio(tree.path(), &["build", "content", "--out", "out"]).code, Some(1));
    assert_eq!(std::fs::read_to_string(tree.join("out/catalog.msgpack")).unwrap(), "the previous catalog");
    let left: Vec<_> = std::fs::read_dir(tree.join("out")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["catalog.msgpack"], "the temporary file is removed");
}

fn fixture(name: &str) -> std::path::PathBuf {
    crate::support::repo().join("tests/fixtures").join(name).join("content")
}

fn build_bytes(dir: &Path, content: &Path) -> (Vec<u8>, Vec<u8>) {
    let out = folio(dir, &["build", content.to_str().unwrap(), "--out", "out"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    (
        std::fs::read(dir.join("out/catalog.msgpack")).unwrap(),
        std::fs::read(dir.join("out/manifest.json")).unwrap(),
    )
}

#[test]
fn builds_are_byte_identical_across_runs_and_directories() {
    let a = Tree::new();
    copy_dir(&fixture("basic"), &a.join("content"));
    let first = build_bytes(a.path(), Path::new("content"));
    let second = build_bytes(a.path(), Path::new("content"));
    assert!(first == second, "two builds of the same tree differ");
    let b = Tree::new();
    copy_dir(&fixture("basic"), &b.join("elsewhere/deeper/content"));
    let moved = build_bytes(b.path(), Path::new("elsewhere/deeper/content"));
    assert!(first == moved, "a copy of the tree in another directory builds differently");
    let manifest: serde_json::Value = serde_json::from_slice(&first.1).unwrap();
    assert_eq!(manifest["counts"]["docs"], 3);
    assert_eq!(manifest["counts"]["skills"], 1);
    let text = String::from_utf8(first.1).unwrap();
    assert!(!text.contains(a.path().to_str().unwrap()), "no absolute paths in the manifest");
}

#[test]
fn basic_fixture_catalog_has_metadata_digests_and_settings() {
    let tree = Tree::new();
    copy_dir(&fixture("basic"), &tree.join("content"));
    build_bytes(tree.path(), Path::new("content"));
    let catalog = folio::query::load_catalog(&tree.join("out/catalog.msgpack")).unwrap();
    assert_eq!(catalog.settings.name, "basic");
    assert_eq!(catalog.settings.ttl_ms, 60000);
    let install = catalog.doc("guides/install.md").unwrap();
    assert_eq!(install.title, "Install");
    assert_eq!(install.updated.as_deref(), Some("2026-01-31"));
    assert_eq!(install.category.as_deref(), Some("guides"));
    assert_eq!(install.extra.get().unwrap()["weight"], serde_json::json!(2));
    let skill = catalog.skill("fill-forms").unwrap();
    assert_eq!(skill.path, "fill-forms");
    assert_eq!(skill.frontmatter.get().unwrap()["metadata"]["owner"], "docs-team");
    let files: Vec<_> = skill.files.iter().map(|f| f.ref_id.as_str()).collect();
    assert_eq!(files, ["assets/logo.png", "references/fields.md"]);
    let logo = &catalog.entries[skill.files[0].entry as usize];
    assert!(!logo.is_text);
    assert_eq!(logo.mime, "image/png");
    let bytes = std::fs::read(fixture("basic").join("skills/fill-forms/assets/logo.png")).unwrap();
    use sha2::Digest as _;
    let sha: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(logo.sha256.as_deref(), Some(format!("sha256:{sha}").as_str()));
    assert_eq!(catalog.entries[skill.document as usize].uri, "skill://fill-forms/SKILL.md");
}

#[test]
fn tampered_and_truncated_catalogs_are_refused_with_one_line() {
    let tree = Tree::new();
    copy_dir(&fixture("basic"), &tree.join("content"));
    let (msgpack, _) = build_bytes(tree.path(), Path::new("content"));
    let path = tree.join("out/catalog.msgpack");

    // A flipped byte in the metadata (the doc's title, which follows the bodies): refused at open.
    let mut tampered = msgpack.clone();
    let at = tampered.windows(7).rposition(|w| w == b"Install").expect("the doc title is in the metadata");
    tampered[at] ^= 0x20;
    std::fs::write(&path, &tampered).unwrap();
    let err = folio::query::load_catalog(&path).unwrap_err().to_string();
    assert!(err.starts_with(&path.display().to_string()), "{err}");
    assert!(err.contains("corrupted or was modified") && !err.contains('\n'), "{err}");
    let out = folio(tree.path(), &["show", "--catalog", "out/catalog.msgpack", "guides/install.md"]);
    assert_eq!(out.code, Some(2), "a tampered catalog is an operational failure");
    assert_eq!(out.stderr.lines().count(), 1, "one line: {}", out.stderr);
    assert!(out.stderr.contains("out/catalog.msgpack"), "names the file: {}", out.stderr);
    assert!(out.stdout.is_empty(), "nothing is served from it: {}", out.stdout);

    // A flipped byte in the doc's own bytes (they come first): refused when that doc is served,
    // with one line, while another doc is served.
    let mut tampered = msgpack.clone();
    let at = tampered.windows(7).position(|w| w == b"Install").expect("the doc's bytes");
    tampered[at] ^= 0x20;
    std::fs::write(&path, &tampered).unwrap();
    let out = folio(tree.path(), &["show", "--catalog", "out/catalog.msgpack", "guides/install.md"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.starts_with(
            "error: catalog is corrupt: the bytes of `resource://docs/guides/install.md` hash to "
        ),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "nothing is served from it: {}", out.stdout);
    let out = folio(tree.path(), &["show", "--catalog", "out/catalog.msgpack", "guides/uninstall.md"]);
    assert_eq!(out.code, Some(0), "another doc is served: {}", out.stderr);

    std::fs::write(&path, &msgpack[..msgpack.len() / 2]).unwrap();
    let err = folio::query::load_catalog(&path).unwrap_err().to_string();
    assert!(err.starts_with(&path.display().to_string()) && !err.contains('\n'), "{err}");
    let out = folio(tree.path(), &["show", "--catalog", "out/catalog.msgpack", "guides/install.md"]);
    assert_eq!(out.code, Some(2));
    assert_eq!(out.stderr.lines().count(), 1, "one line: {}", out.stderr);
    assert!(out.stderr.contains("out/catalog.msgpack"), "names the file: {}", out.stderr);
}

#[test]
fn vendored_corpora_compile_without_panicking() {
    for name in ["hugo-docs", "agent-skills"] {
        let root = corpora().join(name);
        let out = folio(&root, &["check", ".", "--format", "json"]);
        assert!(matches!(out.code, Some(0 | 1)), "{name}: exit {:?}\n{}", out.code, out.stderr);
        let diags: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).unwrap();
        for d in &diags {
            assert!(d["line"].as_u64().unwrap() >= 1 && d["column"].as_u64().unwrap() >= 1, "{d}");
            assert!(root.join(d["path"].as_str().unwrap()).exists(), "{name}: {d} names a real file");
        }
    }
}

#[test]
fn committed_catalog_is_fresh() {
    let repo = crate::support::repo();
    let content = repo.join("content");
    let committed = repo.join("catalog");
    if !content.is_dir() {
        assert!(!committed.exists(), "catalog/ is committed but content/ is gone");
        return;
    }
    let tree = Tree::new();
    let out = folio(&repo, &["build", "content", "--out", tree.join("catalog").to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "content/ does not build:\n{}", out.stderr);
    for file in ["catalog.msgpack", "manifest.json"] {
        let fresh = std::fs::read(tree.join("catalog").join(file)).unwrap();
        let old = std::fs::read(committed.join(file)).unwrap_or_default();
        assert!(
            fresh == old,
            "catalog/{file} is stale: it differs from a fresh build of content/; \
             run `cargo run -- build content --out catalog` and commit the result"
        );
    }
}

#[test]
fn check_reports_exactly_what_compile_reports_without_a_catalog() {
    for name in ["basic", "bad-skills"] {
        let config = folio::compile::Config::new(fixture(name));
        let checked = folio::compile::check(&config);
        let compiled = folio::compile::compile(&config);
        assert_eq!(checked.diagnostics, compiled.diagnostics, "{name}");
        assert!(checked.catalog.is_none(), "check assembles no catalog");
        assert_eq!(compiled.catalog.is_some(), !compiled.has_errors(), "{name}");
    }
}

#[test]
fn index_of_bodies_tokenized_while_reading_equals_a_single_pass() {
    // The compiler tokenizes bodies on every worker into per-worker dictionaries; a single pass
    // of the index builder over the finished catalog must give the same bytes, and the streamed
    // catalog file must be the bytes `encode` returns.
    let root = crate::support::repo().join("content");
    let catalog =
        folio::compile::compile(&folio::compile::Config::new(root)).catalog.expect("content/ compiles");
    let single = folio::compile::search_index(&catalog.entries, &catalog.docs, &catalog.skills);
    assert!(single.data.len() > 10_000, "the manual has a real index");
    assert!(single.data == catalog.search.data, "index bytes differ from a single-threaded build");
    let encoded = folio::catalog::codec::encode(&catalog);
    assert!(encoded.msgpack.len() > 1 << 16, "large enough for the overlapped writer");
    assert_eq!(folio::catalog::codec::hash_of(&catalog), encoded.catalog_hash);
    assert_eq!(folio::catalog::codec::manifest(&catalog, &encoded.catalog_hash), encoded.manifest);
}

#[test]
fn a_streamed_build_writes_the_bytes_encode_writes() {
    use folio::catalog::codec;
    use folio::compile::{Config, compile, compile_streaming};
    // Walk order is neither byte order nor URI order here: `docs/a/x.md` (in directory `a`) is
    // read before `docs/a-b.md` and `docs/a.md`, and `skills/s/…` before `skills/s-1/…`.
    let tree = Tree::new();
    tree.file("small/docs/a.md", "# A\n\nSee [x](a/x.md) and [b](a-b.md).\n");
    tree.file("small/docs/a/x.md", "# X\n\nBack to [a](../a.md).\n");
    tree.file("small/docs/a-b.md", "# B\n\nBack to [a](a.md).\n");
    tree.file(
        "small/skills/s/SKILL.md",
        "---\nname: s\ndescription: Does s.\n---\n\nRead [r](references/r.md).\n",
    );
    tree.file("small/skills/s/references/r.md", "# R\n");
    tree.file("small/skills/s-1/SKILL.md", "---\nname: s-1\ndescription: Does s-1.\n---\n\n# S-1\n");
    tree.file("small/skills/s-1/assets/logo.bin", [0u8, 159, 146, 150]);
    copy_dir(&crate::support::repo().join("content"), &tree.join("manual"));
    for name in ["small", "manual"] {
        let config = Config::new(tree.join(name));
        let full = compile(&config).catalog.expect("the tree compiles");
        let mut streamed = std::io::Cursor::new(Vec::new());
        let mut writer = Some(codec::Writer::new(&mut streamed).unwrap());
        let mut paths = Vec::new();
        let lean = compile_streaming(&config, &mut |path, bytes| {
            paths.push(path.to_owned());
            writer.as_mut().unwrap().body(path, bytes).unwrap();
        });
        let lean = lean.catalog.expect("the tree compiles");
        assert!(lean.entries.iter().all(|e| e.bytes.is_empty()), "{name}: no body is kept");
        let (_, hash) = writer.take().unwrap().finish(&lean).unwrap();
        let encoded = codec::encode(&full);
        assert!(streamed.into_inner() == encoded.msgpack, "{name}: streamed bytes differ from encode's");
        assert_eq!(hash, encoded.catalog_hash, "{name}");
        assert_eq!(codec::manifest(&lean, &hash), encoded.manifest, "{name}");
        assert_eq!(codec::decode(&encoded.msgpack).unwrap(), full, "{name}: bodies land where they belong");
        if name == "small" {
            let expected = [
                "docs/a/x.md",
                "docs/a-b.md",
                "docs/a.md",
                "skills/s/SKILL.md",
                "skills/s/references/r.md",
                "skills/s-1/SKILL.md",
                "skills/s-1/assets/logo.bin",
            ];
            assert_eq!(paths, expected, "bodies are handed over in walk order");
        }
    }
}
