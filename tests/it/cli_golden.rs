//! Golden outputs of the command line a person reads: every case under
//! `tests/fixtures/cli-golden/cases/` runs the real `folio` binary and compares its stdout,
//! stderr and exit code with the files committed beside the case.
//!
//! A case is `<name>.cmd`, a few `key: value` lines (`#` starts a comment):
//!
//! - `tree: DIR` copies `tests/fixtures/DIR` into the case's fresh temporary directory, where the
//!   command runs (without it, the directory is empty);
//! - `env: NAME=VALUE` sets a variable for every run of the case (repeatable);
//! - `before: ARGS` runs `folio ARGS` first, which must exit 0; its output is not compared
//!   (repeatable, in order);
//! - `run: ARGS` is the command whose output is the golden one;
//! - `code: N` is its expected exit code.
//!
//! ARGS are split at spaces; `'…'` and `"…"` quote an argument holding spaces.
//! The expected output is `<name>.stdout` and `<name>.stderr`; a missing file means the stream
//! must be empty. Every run has `NO_COLOR=1`, `COLUMNS=100` and `LINES=50` (clap and the tables
//! wrap to the width) unless the case sets them, and the temporary directory's path is shown as
//! `[ROOT]`. Nothing else is rewritten: the CLI prints no timings or absolute paths of its own.
//!
//! `UPDATE_EXPECT=1 cargo test --test it cli_golden` rewrites the outputs and exit codes that
//! differ, then fails, so a run that updates goldens never passes by accident; review the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{Tree, copy_dir};

/// Where the cases and their trees live.
fn root() -> PathBuf {
    crate::support::repo().join("tests/fixtures/cli-golden")
}

/// One parsed `<name>.cmd`.
#[derive(Debug, Default)]
struct Case {
    tree: Option<String>,
    env: Vec<(String, String)>,
    before: Vec<Vec<String>>,
    run: Vec<String>,
    code: Option<i32>,
}

impl Case {
    fn parse(text: &str) -> Result<Case, String> {
        let mut case = Case::default();
        let mut run = None;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |why: &str| format!("line {}: {why}: {line}", n + 1);
            let (key, value) = line.split_once(':').ok_or_else(|| at("expected `key: value`"))?;
            let value = value.trim();
            match key.trim() {
                "tree" => case.tree = Some(value.to_owned()),
                "env" => {
                    let (name, val) = value.split_once('=').ok_or_else(|| at("expected NAME=VALUE"))?;
                    case.env.push((name.to_owned(), val.to_owned()));
                }
                "before" => case.before.push(words(value).map_err(|e| at(&e))?),
                "run" => run = Some(words(value).map_err(|e| at(&e))?),
                "code" => case.code = Some(value.parse().map_err(|_| at("the exit code is a number"))?),
                _ => return Err(at("unknown key (tree, env, before, run, code)")),
            }
        }
        case.run = run.ok_or("no `run:` line")?;
        Ok(case)
    }
}

/// Splits a command line at spaces, keeping what `'…'` or `"…"` quote together.
fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_default().push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_default();
            }
            (None, ' ') => out.extend(word.take()),
            (None, c) => word.get_or_insert_default().push(c),
        }
    }
    if quote.is_some() {
        return Err("unclosed quote".to_owned());
    }
    out.extend(word);
    Ok(out)
}

/// What one run printed, as compared.
#[derive(Debug, PartialEq)]
struct Seen {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

fn folio(tree: &Tree, env: &[(String, String)], args: &[String]) -> Seen {
    let mut command = Command::new(env!("CARGO_BIN_EXE_folio"));
    command.args(args).current_dir(tree.path());
    for name in ["COLUMNS", "LINES", "NO_COLOR", "CLICOLOR_FORCE", "RUST_LOG", "TERM"] {
        command.env_remove(name);
    }
    command.env("NO_COLOR", "1").env("COLUMNS", "100").env("LINES", "50");
    for (name, value) in env {
        command.env(name, value);
    }
    let out = command.output().expect("the folio binary runs");
    Seen {
        stdout: tree.redact(&String::from_utf8_lossy(&out.stdout)),
        stderr: tree.redact(&String::from_utf8_lossy(&out.stderr)),
        code: out.status.code(),
    }
}

/// Runs the case at `cmd`; returns what differs from its goldens (empty when nothing does).
fn check(cmd: &Path, update: bool) -> Vec<String> {
    let name = cmd.file_stem().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(cmd).unwrap();
    let case = Case::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", cmd.display()));
    let tree = Tree::new();
    if let Some(dir) = &case.tree {
        let from = crate::support::repo().join("tests/fixtures").join(dir);
        assert!(from.is_dir(), "{name}: no fixture tree {}", from.display());
        copy_dir(&from, tree.path());
    }
    for args in &case.before {
        let out = folio(&tree, &case.env, args);
        assert_eq!(out.code, Some(0), "{name}: `before: {}` failed: {}", args.join(" "), out.stderr);
    }
    let seen = folio(&tree, &case.env, &case.run);
    let mut differs = Vec::new();
    for (ext, actual) in [("stdout", &seen.stdout), ("stderr", &seen.stderr)] {
        let path = cmd.with_extension(ext);
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected == *actual {
            continue;
        }
        differs.push(format!("{name}.{ext}\n--- expected\n{expected}\n--- actual\n{actual}"));
        if update {
            if actual.is_empty() {
                std::fs::remove_file(&path).unwrap();
            } else {
                std::fs::write(&path, actual).unwrap();
            }
        }
    }
    if seen.code != case.code {
        differs.push(format!("{name}: exit code {:?}, expected {:?}", seen.code, case.code));
        if update {
            let code = seen.code.map_or("none (killed by a signal)".to_owned(), |c| c.to_string());
            let mut kept: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("code:")).collect();
            let line = format!("code: {code}");
            kept.push(&line);
            std::fs::write(cmd, kept.join("\n") + "\n").unwrap();
        }
    }
    differs
}

#[test]
fn cli_output_matches_the_golden_files() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut cmds: Vec<PathBuf> = std::fs::read_dir(root().join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cmd"))
        .collect();
    cmds.sort();
    assert!(cmds.len() >= 30, "the cases are found: {}", cmds.len());
    // Every golden file belongs to a case, so a renamed case leaves nothing stale behind.
    for entry in std::fs::read_dir(root().join("cases")).unwrap() {
        let path = entry.unwrap().path();
        assert!(path.with_extension("cmd").is_file(), "{} belongs to no case", path.display());
    }
    // A few threads: each case is a handful of short processes.
    let chunk = cmds.len().div_ceil(4);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let parts: Vec<_> = cmds
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || part.iter().flat_map(|cmd| check(cmd, update)).collect::<Vec<_>>())
            })
            .collect();
        parts.into_iter().flat_map(|part| part.join().expect("a case panicked")).collect()
    });
    if failures.is_empty() {
        return;
    }
    let how = if update {
        "updated them; review the diff and rerun without UPDATE_EXPECT"
    } else {
        "rerun with UPDATE_EXPECT=1 to update them"
    };
    panic!("{} golden outputs differ ({how}):\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn case_lines_split_like_a_shell_without_expansions() {
    assert_eq!(
        words("search 'ci annotations' --kind doc").unwrap(),
        ["search", "ci annotations", "--kind", "doc"]
    );
    assert_eq!(words("show \"\" x").unwrap(), ["show", "", "x"]);
    assert_eq!(words("  a   b ").unwrap(), ["a", "b"]);
    assert!(words("a 'b").is_err());
    let case =
        Case::parse("# c\ntree: basic\nenv: COLUMNS=60\nbefore: build\nrun: list --json\ncode: 0\n").unwrap();
    assert_eq!(case.tree.as_deref(), Some("basic"));
    assert_eq!(case.env, [("COLUMNS".to_owned(), "60".to_owned())]);
    assert_eq!((case.before.len(), case.run.len(), case.code), (1, 2, Some(0)));
    assert!(Case::parse("tree: basic\n").is_err(), "a case runs something");
    assert!(Case::parse("run: x\nnope: y\n").is_err(), "unknown keys are refused");
}
