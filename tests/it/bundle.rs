//! `folio bundle`: one executable serving one catalog. The bundle of a fixture tree answers an
//! MCP session over stdio as its project (serverInfo, a read byte-equal to the tree, a search),
//! lists and shows offline, refuses folio's other commands and sources; a bundle whose catalog
//! was changed or which was cut short is refused before anything is served.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::mcp::modern_meta;
use crate::support::{Tree, folio, repo};

/// Runs `program args` and returns (exit code, stdout, stderr).
fn run(program: &Path, args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let spawn = || {
        Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    };
    // A file just written is busy while a process forked by another test (before its exec
    // closes the inherited descriptors) still holds it open for writing: try again.
    let mut child = spawn();
    for _ in 0..10_000 {
        match &child {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::yield_now();
                child = spawn();
            }
            _ => break,
        }
    }
    let mut child = child.expect("the bundle runs");
    // A refused bundle exits before it reads: its closed stdin is no failure of the test.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bundle_of_basic(tree: &Tree) -> PathBuf {
    let out = tree.join("dist/basic-mcp");
    let content = repo().join("tests/fixtures/basic/content");
    let made = folio(tree.path(), &["bundle", content.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(made.code, Some(0), "{}", made.stderr);
    assert!(
        made.stderr.starts_with(&format!("wrote {} (basic, 3 docs, 1 skill;", out.display())),
        "{}",
        made.stderr
    );
    out
}

fn request(id: u32, method: &str, mut params: Value) -> String {
    params["_meta"] = modern_meta();
    format!("{}\n", json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
}

#[test]
fn a_bundle_serves_its_catalog_as_its_project_and_nothing_else() {
    let tree = Tree::new();
    let bundle = bundle_of_basic(&tree);
    // The program it carries is folio without its debug info and symbol table (this debug
    // build's are most of its size).
    #[cfg(target_os = "linux")]
    {
        let exe = std::fs::metadata(env!("CARGO_BIN_EXE_folio")).unwrap().len();
        let size = std::fs::metadata(&bundle).unwrap().len();
        assert!(size < exe / 2, "a bundle of {size} bytes from a folio of {exe}");
        let bytes = std::fs::read(&bundle).unwrap();
        assert!(memchr::memmem::find(&bytes, b".debug_info\0").is_none(), "the bundle carries debug info");
    }
    let (code, version, _) = run(&bundle, &["--version"], "");
    assert_eq!(code, Some(0));
    assert!(
        version.starts_with("basic unversioned (catalog ") && version.contains(", bundled by folio "),
        "{version}"
    );
    // An MCP session over stdio: the project's identity, exact bytes, search.
    let session = [
        request(1, "server/discover", json!({})),
        request(2, "resources/read", json!({ "uri": "resource://docs/guides/install.md" })),
        request(3, "tools/call", json!({ "name": "search_patterns", "arguments": { "query": "install" } })),
    ]
    .concat();
    let (code, stdout, stderr) = run(&bundle, &["serve"], &session);
    assert_eq!(code, Some(0), "{stderr}");
    let mut answers: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    answers.sort_by_key(|a| a["id"].as_u64());
    assert_eq!(answers[0]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "basic");
    let file =
        std::fs::read_to_string(repo().join("tests/fixtures/basic/content/docs/guides/install.md")).unwrap();
    assert_eq!(answers[1]["result"]["contents"][0]["text"], file.as_str());
    assert!(
        answers[2]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("resource://docs/guides/install.md")
    );
    // Offline reading, from the bundled catalog and no other.
    let (code, listed, _) = run(&bundle, &["list", "--kind", "skill"], "");
    assert_eq!(code, Some(0));
    assert!(listed.contains("skill://fill-forms/SKILL.md"), "{listed}");
    // The same catalog, bundled from the file `folio build` wrote: the same catalog hash.
    let content = repo().join("tests/fixtures/basic/content");
    assert_eq!(folio(tree.path(), &["build", content.to_str().unwrap(), "--out", "cat"]).code, Some(0));
    let from_file =
        folio(tree.path(), &["bundle", "--catalog", "cat/catalog.msgpack", "--out", "dist/again"]);
    assert_eq!(from_file.code, Some(0), "{}", from_file.stderr);
    assert_eq!(run(&tree.join("dist/again"), &["--version"], "").1, version);
    for (args, says) in [
        (&["check", "content"][..], "building, checking and bundling are folio's commands"),
        (&["serve", "--content", "content"][..], "serves its own bundled catalog only"),
        (&["list", "--catalog", "x.msgpack"][..], "serves its own bundled catalog only"),
    ] {
        let (code, _, stderr) = run(&bundle, args, "");
        assert_eq!(code, Some(2), "{args:?}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn a_changed_or_cut_bundle_is_refused_before_anything_is_served() {
    let tree = Tree::new();
    let bundle = bundle_of_basic(&tree);
    let len = std::fs::metadata(&bundle).unwrap().len();
    // One byte of the catalog changed.
    let changed = tree.join("dist/changed");
    std::fs::copy(&bundle, &changed).unwrap();
    let mut bytes = std::fs::read(&changed).unwrap();
    let at = bytes.len() - 64 - 50;
    bytes[at] ^= 0x20;
    std::fs::write(&changed, &bytes).unwrap();
    make_executable(&changed);
    let (code, stdout, stderr) = run(&changed, &["serve"], &request(1, "server/discover", json!({})));
    assert_eq!((code, stdout.as_str()), (Some(2), ""), "{stderr}");
    assert!(stderr.contains("the bundled catalog does not match its checksum"), "{stderr}");
    // Cut short: the trailer is gone, and the program still knows it is a bundle.
    let cut = tree.join("dist/cut");
    std::fs::copy(&bundle, &cut).unwrap();
    std::fs::OpenOptions::new().write(true).open(&cut).unwrap().set_len(len - 1000).unwrap();
    make_executable(&cut);
    let (code, _, stderr) = run(&cut, &["--help"], "");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("this bundle is cut short"), "{stderr}");
    // A tree with errors makes no bundle.
    let bad = Tree::new();
    bad.file("content/docs/a.md", "# A\n\n[gone](missing.md)\n");
    let out = folio(bad.path(), &["bundle", "content", "--out", "dist/x"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("broken-link") && !bad.join("dist/x").exists(), "{}", out.stderr);
}

#[test]
fn a_bundles_name_and_version_reach_the_terminal_escaped() {
    let tree = Tree::new();
    tree.file(
        "content/folio.toml",
        "[catalog]\nname = \"evil\\u001b[2J\\u001b]0;owned\\u0007\"\nversion = \"1.0\\r\\u202e\"\n",
    )
    .file("content/docs/a.md", "# A\n");
    let made = folio(tree.path(), &["bundle", "content", "--out", "dist/evil"]);
    assert_eq!(made.code, Some(0), "{}", made.stderr);
    assert!(
        made.stderr.contains("(evil\\u{1b}[2J\\u{1b}]0;owned\\u{7} 1.0\\r\\u{202e}, 1 doc, 0 skills;"),
        "{}",
        made.stderr
    );
    let (code, version, _) = run(&tree.join("dist/evil"), &["--version"], "");
    assert_eq!(code, Some(0));
    assert!(!version.contains(['\u{1b}', '\u{7}', '\r', '\u{202e}']), "{version:?}");
    let (code, help, _) = run(&tree.join("dist/evil"), &["--help"], "");
    assert_eq!(code, Some(0));
    assert!(!help.contains(['\u{1b}', '\u{7}', '\r', '\u{202e}']), "{help:?}");
}

/// A bundle cut inside its program (here in the section header table at the end of the ELF
/// file, which is not loaded, so the program still runs) has lost its trailer and its image's
/// end; it knows it was built as a bundle all the same (`folio bundle` marks the program it
/// copies) and refuses to run as plain `folio`.
#[cfg(target_os = "linux")]
#[test]
fn a_bundle_cut_inside_its_program_is_refused() {
    let tree = Tree::new();
    let bundle = bundle_of_basic(&tree);
    // The bundle's program: folio, stripped (its length is in the trailer's second field).
    let bytes = std::fs::read(&bundle).unwrap();
    let trailer = &bytes[bytes.len() - 64..];
    let program = u64::from_le_bytes(trailer[24..32].try_into().unwrap());
    drop(bytes);
    std::fs::OpenOptions::new().write(true).open(&bundle).unwrap().set_len(program - 100).unwrap();
    for args in [&["--version"][..], &["serve"]] {
        let (code, stdout, stderr) = run(&bundle, args, "");
        assert_eq!((code, stdout.as_str()), (Some(2), ""), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "this bundle is cut short ({} bytes, less than the {program} bytes of its own program)",
                program - 100
            )),
            "{stderr}"
        );
    }
}

/// A bundle whose file its user may run but not read (mode 0711, another user) cannot read the
/// catalog it carries: it says so and exits 2 instead of running as plain `folio`.
#[cfg(target_os = "linux")]
#[test]
fn a_bundle_that_cannot_read_itself_says_so() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    let tree = Tree::new();
    let bundle = bundle_of_basic(&tree);
    std::fs::set_permissions(&bundle, std::fs::Permissions::from_mode(0o711)).unwrap();
    // The file's owner (root reads whatever its mode) runs it as another user; anyone else
    // runs it with the mode their own: execute only.
    let me = std::fs::metadata(&bundle).unwrap().uid();
    let mut command = if me == 0 {
        let mut command = Command::new("setpriv");
        command.args(["--reuid", "65534", "--regid", "65534", "--clear-groups"]).arg(&bundle);
        command
    } else {
        std::fs::set_permissions(&bundle, std::fs::Permissions::from_mode(0o111)).unwrap();
        Command::new(&bundle)
    };
    let out = command.arg("--version").stdin(Stdio::null()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), out.stdout.as_slice()), (Some(2), &b""[..]), "{stderr}");
    assert!(stderr.contains("this bundle cannot read its own file"), "{stderr}");
    assert!(stderr.contains("chmod a+r"), "{stderr}");
}

fn make_executable(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
