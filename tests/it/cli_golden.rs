//! Golden outputs of the command line a person reads: every case under
//! `tests/fixtures/cli-golden/cases/` runs the real `folio` binary through [trycmd] and compares
//! its stdout, stderr and exit code with the files committed beside the case.
//!
//! A case is `<name>.toml` in trycmd's format: `args` (split like a shell, quotes kept together),
//! `status.code`, `fs.base` (the fixture tree copied into a fresh sandbox where the command runs;
//! `../empty` for none), and the environment (`env.inherit = false`: nothing of the caller's
//! leaks in; `COLUMNS` set by each case, `NO_COLOR=1` and `LINES=50` by [`cli_cases`]). The
//! expected output is `<name>.stdout` and `<name>.stderr`; `stdout = ""` in the case says a stream
//! must be empty. The sandbox's path is shown as `[ROOT]`.
//!
//! `TRYCMD=overwrite cargo test --test it cli_golden` rewrites the outputs and exit codes that
//! differ; review the diff. The one case that needs a command before it (a catalog built, then
//! listed) is [`list_of_a_built_catalog`], with snapbox, trycmd's engine (`SNAPSHOTS=overwrite`).

use std::process::Command;

use crate::support::{Tree, copy_dir};

#[test]
fn cli_cases() {
    let cases = crate::support::repo().join("tests/fixtures/cli-golden/cases");
    // Every golden file belongs to a case, so a renamed case leaves nothing stale behind.
    let mut count = 0;
    for entry in std::fs::read_dir(&cases).unwrap() {
        let path = entry.unwrap().path();
        assert!(path.with_extension("toml").is_file(), "{} belongs to no case", path.display());
        count += usize::from(path.extension().is_some_and(|e| e == "toml"));
    }
    assert!(count >= 30, "the cases are found: {count}");
    trycmd::TestCases::new()
        .register_bin("folio", std::path::Path::new(env!("CARGO_BIN_EXE_folio")))
        .default_bin_name("folio")
        .env("NO_COLOR", "1")
        .env("LINES", "50")
        .case(cases.join("*.toml"));
}

/// A built catalog, filtered by path prefix.
#[test]
fn list_of_a_built_catalog() {
    let tree = Tree::new();
    copy_dir(&crate::support::repo().join("tests/fixtures/basic"), tree.path());
    let folio = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_folio"))
            .args(args)
            .current_dir(tree.path())
            .env_clear()
            .envs([("NO_COLOR", "1"), ("COLUMNS", "100"), ("LINES", "50")])
            .output()
            .expect("the folio binary runs")
    };
    assert!(folio(&["build", "content", "--out", "out"]).status.success());
    let out = folio(&["list", "--catalog", "out/catalog.msgpack", "--prefix", "guides/"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    snapbox::assert_data_eq!(
        out.stdout,
        snapbox::Data::read_from(
            &crate::support::repo().join("tests/fixtures/cli-golden/list-catalog-prefix.stdout"),
            None
        )
        .raw()
    );
}
