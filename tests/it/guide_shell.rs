//! Every shell block of the README and the guides (`content/docs/guides/`, getting started) runs
//! as written, on fixtures, with the `folio` under test first on `PATH`: a guide cannot fail as
//! written again.
//!
//! Each file's blocks run in order in one fresh project: `content/` (a copy of Folio's manual,
//! whose skills and pages the examples name) and `catalog/` built from it, as the guides assume.
//! Each command (lines joined at a trailing `\`) must exit 0. A command that serves HTTP or
//! opens the web view (`--http`, `folio browse`) runs until it says where it listens, then is
//! stopped; its port is replaced by 0 (any free port), and `--open` finds a stub browser.
//! Everything else reads stdin from `/dev/null` (a stdio server ends at its end).
//!
//! The comment line before a block may say how to run it:
//! - `<!-- folio-shell: skip (why) -->`: not run here (network installs, a checkout's own
//!   build); the test lists each with its reason, and a skip without a reason fails;
//! - `<!-- folio-shell: cwd DIR -->`: run in a copy of the fixture `DIR` (relative to the
//!   repository) instead of the project;
//! - `<!-- folio-shell: semantic -->`: run only by a `folio` built with the `semantic` feature,
//!   with a tiny random model written where the block names `models/all-MiniLM-L6-v2`
//!   (`semantic::guide_blocks_run` runs them; this test reports them).
//!
//! Must not: reach the network, or leave a process running (servers are killed and reaped).

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::support::{Tree, copy_dir, repo};

/// A shell block of a file.
#[derive(Debug)]
pub(crate) struct Block {
    /// `README.md:21`.
    pub(crate) at: String,
    /// The annotation of the line before it, if any (`skip (…)`, `cwd DIR`, `semantic`).
    pub(crate) note: Option<String>,
    /// The commands, continuation lines joined, comments and blank lines dropped.
    pub(crate) commands: Vec<String>,
}

/// The files whose blocks a user runs: the README, getting started and every guide.
pub(crate) fn files() -> Vec<PathBuf> {
    let repo = repo();
    let mut files = vec![repo.join("README.md"), repo.join("content/docs/getting-started.md")];
    let mut guides: Vec<PathBuf> = std::fs::read_dir(repo.join("content/docs/guides"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    files.extend(guides);
    files
}

/// The `sh`/`bash`/`shell` blocks of `path`.
pub(crate) fn blocks(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap();
    let shown = path.strip_prefix(repo()).unwrap_or(path).display().to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_start();
        let indent = lines[i].len() - fence.len();
        if matches!(fence, "```sh" | "```bash" | "```shell") {
            let note = i
                .checked_sub(1)
                .and_then(|p| lines[p].trim().strip_prefix("<!-- folio-shell:"))
                .and_then(|n| n.strip_suffix("-->"))
                .map(|n| n.trim().to_owned());
            let start = i + 1;
            let mut end = start;
            while !lines[end].trim_start().starts_with("```") {
                end += 1;
            }
            let mut commands = Vec::new();
            let mut current = String::new();
            for line in &lines[start..end] {
                let line = line.get(indent..).unwrap_or(line.trim_start());
                if current.is_empty() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
                    continue;
                }
                match line.trim_end().strip_suffix('\\') {
                    Some(head) => current.push_str(head),
                    None => {
                        current.push_str(line);
                        commands.push(std::mem::take(&mut current));
                    }
                }
            }
            out.push(Block { at: format!("{shown}:{}", i + 1), note, commands });
            i = end;
        }
        i += 1;
    }
    out
}

/// A fresh project as the guides assume one: `content/` (Folio's manual), `catalog/` built from
/// it, a stub browser on `PATH`.
pub(crate) fn project() -> Tree {
    let tree = Tree::new();
    copy_dir(&repo().join("content"), &tree.join("content"));
    let built = crate::support::folio(tree.path(), &["build", "content", "--out", "catalog"]);
    assert_eq!(built.code, Some(0), "{}", built.stderr);
    // `folio browse --open` runs the first of these it finds: a stub that opens nothing.
    for opener in ["xdg-open", "sensible-browser", "x-www-browser", "open"] {
        tree.file(format!("stub-bin/{opener}"), "#!/bin/sh\nexit 0\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let path = tree.join(format!("stub-bin/{opener}"));
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    tree
}

/// `PATH` with the tested `folio` and the stub browser first.
fn path_env(tree: &Tree) -> std::ffi::OsString {
    let folio = Path::new(env!("CARGO_BIN_EXE_folio")).parent().unwrap().to_path_buf();
    let mut paths = vec![folio, tree.join("stub-bin")];
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(paths).unwrap()
}

/// Whether `command` serves until stopped.
fn serves(command: &str) -> bool {
    command.contains("--http") || command.split_whitespace().take(2).eq(["folio", "browse"])
}

/// `command` with every `127.0.0.1:PORT` and `0.0.0.0:PORT` on port 0 (a free one).
fn any_port(command: &str) -> String {
    command
        .split(' ')
        .map(|w| match w.rsplit_once(':') {
            Some((host, port))
                if (host == "127.0.0.1" || host == "0.0.0.0") && port.chars().all(|c| c.is_ascii_digit()) =>
            {
                format!("{host}:0")
            }
            _ => w.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs one command in `cwd`; panics with its output unless it succeeds (a server: unless it
/// says where it listens).
pub(crate) fn run(tree: &Tree, cwd: &Path, at: &str, command: &str) {
    let mut shell = Command::new("bash");
    shell
        .args(["-o", "pipefail", "-c"])
        .current_dir(cwd)
        .env("PATH", path_env(tree))
        .env("NO_COLOR", "1")
        .env("FOLIO_TOKEN", "a-token-for-the-guide-blocks")
        .stdin(Stdio::null());
    if serves(command) {
        // `exec`: the shell becomes the server, so killing the child stops it.
        let mut child = shell
            .arg(format!("exec {}", any_port(command)))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut said = String::new();
        let mut ready = false;
        for line in BufReader::new(child.stderr.take().unwrap()).lines() {
            let line = line.unwrap_or_default();
            said.push_str(&line);
            said.push('\n');
            if line.contains("http://") {
                ready = true;
                break;
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        assert!(ready, "{at}: `{command}` did not start serving:\n{said}");
        return;
    }
    let out = shell.arg(command).output().unwrap();
    assert!(
        out.status.success(),
        "{at}: `{command}` failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_guides_shell_blocks_run_as_written() {
    let mut ran = 0;
    let mut not_run = Vec::new();
    for file in files() {
        let tree = project();
        for block in blocks(&file) {
            let cwd = match block.note.as_deref() {
                Some(note) if note.starts_with("skip") => {
                    let reason = note.strip_prefix("skip").unwrap().trim();
                    assert!(
                        reason.starts_with('(') && reason.len() > 2,
                        "{}: a skipped block says why: `skip (reason)`",
                        block.at
                    );
                    not_run.push(format!("{}: {reason}", block.at));
                    continue;
                }
                Some("semantic") => {
                    not_run.push(format!(
                        "{}: (needs --features semantic; semantic::guide_blocks_run)",
                        block.at
                    ));
                    continue;
                }
                Some(note) if note.starts_with("cwd ") => {
                    let dir = tree.join("fixture");
                    copy_dir(&repo().join(note.strip_prefix("cwd ").unwrap().trim()), &dir);
                    dir
                }
                Some(note) => panic!("{}: unknown folio-shell annotation `{note}`", block.at),
                None => tree.path().to_path_buf(),
            };
            for command in &block.commands {
                run(&tree, &cwd, &block.at, command);
                ran += 1;
            }
        }
    }
    // Reported, so what is not run here is never silent (shown with --nocapture).
    eprintln!("shell blocks not run here:\n  {}", not_run.join("\n  "));
    assert!(ran >= 25, "only {ran} commands ran: the blocks were not found");
}
