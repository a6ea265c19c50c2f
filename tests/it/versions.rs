//! `folio build --versions`: a catalog per version of a tree that keeps versions, from each
//! source (a Docusaurus site's `versions.json`, folders named like versions, git tags), each in
//! `OUT/<name>@<version>/` and naming its version; deterministic; the errors, each naming the
//! file or flag and what to do.

use std::path::Path;
use std::process::Command;

use crate::support::{Tree, copy_dir, folio, repo};

/// The fixture `tests/fixtures/versions/<name>`, copied into a fresh tree (builds write nothing
/// beside the committed files).
fn fixture(name: &str) -> Tree {
    let tree = Tree::new();
    copy_dir(&repo().join("tests/fixtures/versions").join(name), &tree.join("site"));
    tree
}

/// Each folder of `out` with the catalog's name, version and doc paths.
fn shelf(out: &Path) -> Vec<(String, String, Option<String>, Vec<String>)> {
    let mut dirs: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| !name.starts_with('.'))
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let query = folio::query::Query::open_file(&out.join(&dir).join("catalog.msgpack")).unwrap();
            let catalog = query.catalog();
            let manifest: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(out.join(&dir).join("manifest.json")).unwrap())
                    .unwrap();
            // The manifest names the version the catalog is, as the catalog does.
            assert_eq!(manifest["version"].as_str(), catalog.settings.version.as_deref(), "{dir}");
            let docs = catalog.docs.iter().map(|d| catalog.entries[d.entry as usize].path.clone()).collect();
            (dir, catalog.settings.name.clone(), catalog.settings.version.clone(), docs)
        })
        .collect()
}

/// A catalog expected in the shelf: its folder, its version and its docs.
type Expected = (&'static str, &'static str, &'static [&'static str]);

/// Files written into the fixture before a run: `(path, text)`.
type Files = &'static [(&'static str, &'static str)];

#[test]
fn each_source_writes_a_catalog_per_version_holding_only_its_pages() {
    // (fixture, flags, [(folder, version, docs)]); every link into another version is left
    // unverified, never an error, so each build exits 0.
    let cases: &[(&str, &[&str], &[Expected])] = &[
        (
            "docusaurus",
            &["--versions"],
            &[
                ("mylib@1.0", "1.0", &["docs/intro.md", "docs/polling.md"]),
                ("mylib@2.0", "2.0", &["docs/callbacks.md", "docs/intro.md"]),
                ("mylib@current", "current", &["docs/intro.md", "docs/streams.md"]),
            ],
        ),
        (
            "docusaurus",
            &["--version", "2.0"],
            &[("mylib@2.0", "2.0", &["docs/callbacks.md", "docs/intro.md"])],
        ),
        (
            "folders",
            &["--versions"],
            &[
                ("mylib@1", "1", &["docs/index.md", "docs/polling.md"]),
                ("mylib@2", "2", &["docs/callbacks.md", "docs/index.md"]),
            ],
        ),
        ("folders", &["--version-dir", "v2"], &[("mylib@2", "2", &["docs/callbacks.md", "docs/index.md"])]),
    ];
    for (name, flags, expected) in cases {
        let tree = fixture(name);
        let mut args = vec!["build", "site", "--out", "shelf"];
        args.extend_from_slice(flags);
        let out = folio(tree.path(), &args);
        assert_eq!(out.code, Some(0), "{name} {flags:?}: {}", out.stderr);
        let expected: Vec<(String, String, Option<String>, Vec<String>)> = expected
            .iter()
            .map(|(dir, version, docs)| {
                let docs = docs.iter().map(|d| (*d).to_owned()).collect();
                ((*dir).to_owned(), "mylib".to_owned(), Some((*version).to_owned()), docs)
            })
            .collect();
        assert_eq!(shelf(&tree.join("shelf")), expected, "{name} {flags:?}");
    }
}

#[test]
fn version_catalogs_are_the_same_bytes_run_after_run_and_from_a_copy() {
    let tree = fixture("docusaurus");
    copy_dir(&tree.join("site"), &tree.join("elsewhere/copy"));
    for (root, out) in [("site", "a"), ("site", "b"), ("elsewhere/copy", "c")] {
        let run = folio(tree.path(), &["build", root, "--versions", "--out", out]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    for dir in ["mylib@current", "mylib@2.0", "mylib@1.0"] {
        for file in ["catalog.msgpack", "manifest.json"] {
            let a = std::fs::read(tree.join("a").join(dir).join(file)).unwrap();
            for other in ["b", "c"] {
                assert!(
                    a == std::fs::read(tree.join(other).join(dir).join(file)).unwrap(),
                    "{dir}/{file} in {other}/"
                );
            }
        }
    }
}

#[test]
fn a_version_is_compiled_as_its_own_build_would_be() {
    // The current docs of a Docusaurus site report what `folio check` of the site reports.
    let tree = fixture("docusaurus");
    tree.file("site/docs/streams.md", "# Streams\n\n[gone](./gone.md)\n");
    let plain = folio(tree.path(), &["check", "site"]);
    let current = folio(tree.path(), &["check", "site", "--version", "current"]);
    assert_eq!(plain.code, Some(1));
    assert_eq!(current.code, Some(1));
    let report = |text: &str| {
        text.lines().take_while(|l| !l.contains("docs, 0 skills")).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(report(&plain.stdout), report(&current.stdout));
    assert!(plain.stdout.contains("checked the current docs only"), "{}", plain.stdout);
    assert!(current.stderr.contains("checked 1 version: `current`"), "{}", current.stderr);
}

#[test]
fn check_versions_checks_every_version_and_names_the_one_that_fails() {
    let tree = fixture("docusaurus");
    tree.file("site/versioned_docs/version-1.0/polling.md", "# Polling\n\n[gone](./gone.md)\n");
    let out = folio(tree.path(), &["check", "site", "--versions"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        out.stdout.contains("site/versioned_docs/version-1.0/polling.md:3:8: error[broken-link]"),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("checked 3 versions: `current`, `2.0`, `1.0`"), "{}", out.stderr);
    assert!(out.stderr.contains("error: 1 version failed: `1.0`"), "{}", out.stderr);

    // As JSON: one array, each diagnostic with the version it is of.
    let out = folio(tree.path(), &["check", "site", "--versions", "--format", "json"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let report: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).unwrap();
    let broken: Vec<(&str, &str)> = report
        .iter()
        .filter(|d| d["code"] == "broken-link")
        .map(|d| (d["version"].as_str().unwrap(), d["path"].as_str().unwrap()))
        .collect();
    assert_eq!(broken, [("1.0", "site/versioned_docs/version-1.0/polling.md")]);
    assert!(report.iter().all(|d| d["version"].is_string()), "{report:?}");

    // A build writes the versions without errors and says which it did not write.
    let out = folio(tree.path(), &["build", "site", "--versions", "--out", "shelf"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        out.stderr.contains("error: version `1.0` has errors; no catalog written for it"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("error: 1 version with errors, not written: `1.0`"), "{}", out.stderr);
    let written: Vec<String> = shelf(&tree.join("shelf")).into_iter().map(|(dir, ..)| dir).collect();
    assert_eq!(written, ["mylib@2.0", "mylib@current"]);
}

#[test]
fn versions_the_flags_cannot_find_are_errors_saying_what_to_do() {
    // (set-up files, flags, what stderr says); each exits 2 and writes nothing.
    let cases: &[(Files, &[&str], &[&str])] = &[
        (&[], &["--version", "3.0"], &["--version `3.0`", "its versions are `current`, `2.0`, `1.0`"]),
        (&[], &["--version-dir", "v9"], &["--version-dir `v9`", "is not a folder"]),
        (
            &[("site/v1/a.md", "# A\n"), ("site/docs/v2/b.md", "# B\n"), ("site/versions.json", "[]")],
            &["--versions"],
            &["both at its root (`v1/`) and in `docs/` (`docs/v2/`)", "--version-dir DIR"],
        ),
        (
            &[("site/versions.json", "[]")],
            &["--versions"],
            &["keeps no versions", "--version-dir DIR", "--git-tag TAG"],
        ),
        (
            &[("site/v2/a.md", "# A\n"), ("site/2/b.md", "# B\n"), ("site/versions.json", "[]")],
            &["--versions"],
            &["two versions are named `2`", "--version-dir"],
        ),
    ];
    for (files, flags, says) in cases {
        let tree = fixture("docusaurus");
        for (path, text) in *files {
            tree.file(path, text);
        }
        let mut args = vec!["build", "site", "--out", "shelf"];
        args.extend_from_slice(flags);
        let out = folio(tree.path(), &args);
        assert_eq!(out.code, Some(2), "{flags:?}: {}", out.stderr);
        for said in *says {
            assert!(out.stderr.contains(said), "{flags:?}: {said:?} not in {}", out.stderr);
        }
        assert!(!tree.join("shelf").exists(), "{flags:?}: nothing written");
    }
}

/// Runs git in `dir`; a machine without git fails the test saying so.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=Folio Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(["-c", "tag.gpgSign=false", "-c", "commit.gpgSign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("this test needs git on PATH (CI machines have it): install git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn git_tags_build_the_tree_as_it_was_at_each_without_touching_the_working_tree() {
    let tree = Tree::new();
    let repo_dir = tree.join("repo");
    std::fs::create_dir_all(&repo_dir).unwrap();
    git(&repo_dir, &["init", "-q"]);
    tree.file("repo/site/folio.toml", "[catalog]\nname = \"mylib\"\nversion = \"2.0.0\"\n")
        .file("repo/site/docs/index.md", "# mylib\n\nSee [old](old.md).\n")
        .file("repo/site/docs/old.md", "# Old\n\nOnly in 2.\n");
    git(&repo_dir, &["add", "-A"]);
    git(&repo_dir, &["commit", "-qm", "2.0.0"]);
    git(&repo_dir, &["tag", "v2.0.0"]);
    std::fs::remove_file(tree.join("repo/site/docs/old.md")).unwrap();
    tree.file("repo/site/folio.toml", "[catalog]\nname = \"mylib\"\nversion = \"3.1.0\"\n")
        .file("repo/site/docs/index.md", "# mylib\n\nSee [new](new.md).\n")
        .file("repo/site/docs/new.md", "# New\n\nOnly in 3.\n");
    git(&repo_dir, &["add", "-A"]);
    git(&repo_dir, &["commit", "-qm", "3.1.0"]);
    git(&repo_dir, &["tag", "-a", "v3.1.0", "-m", "annotated"]);
    // A plain build of the tree as it is at v3.1.0 (its folio.toml names the version too).
    let plain = folio(&repo_dir, &["build", "site", "--out", "../plain"]);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    // Uncommitted work: an edit, a new file, a staged file. None of it is in a tag's catalog.
    tree.file("repo/site/docs/index.md", "# mylib\n\nwork in progress\n")
        .file("repo/site/docs/draft.md", "# Draft\n");
    tree.file("repo/site/docs/staged.md", "# Staged\n");
    git(&repo_dir, &["add", "site/docs/staged.md"]);
    let before = (git(&repo_dir, &["status", "--porcelain"]), git(&repo_dir, &["worktree", "list"]));

    let out = folio(
        &repo_dir.join("site"),
        &["build", ".", "--git-tag", "v2.0.0", "--git-tag", "v3.1.0", "--out", "../../shelf"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let shelf = shelf(&tree.join("shelf"));
    let docs = |v: &[&str]| v.iter().map(|d| (*d).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        shelf,
        [
            (
                "mylib@2.0.0".to_owned(),
                "mylib".to_owned(),
                Some("2.0.0".to_owned()),
                docs(&["docs/index.md", "docs/old.md"])
            ),
            (
                "mylib@3.1.0".to_owned(),
                "mylib".to_owned(),
                Some("3.1.0".to_owned()),
                docs(&["docs/index.md", "docs/new.md"])
            ),
        ]
    );
    assert_eq!((git(&repo_dir, &["status", "--porcelain"]), git(&repo_dir, &["worktree", "list"])), before);
    assert!(
        std::fs::read(tree.join("plain/catalog.msgpack")).unwrap()
            == std::fs::read(tree.join("shelf/mylib@3.1.0/catalog.msgpack")).unwrap(),
        "a tag's catalog is the bytes a build of its tree writes"
    );

    let out = folio(&repo_dir, &["build", "site", "--git-tag", "v9", "--out", "../other"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr.contains("--git-tag `v9`: the repository of `site` has no tag or commit `v9`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("`git tag --list` shows its tags"), "{}", out.stderr);
    assert!(!tree.join("other").exists());
}
