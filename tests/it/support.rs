//! Shared test helpers: fresh temporary trees, running the real binary, redaction, goldens.

#![allow(dead_code, reason = "each test module uses a different subset")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh, empty directory under `CARGO_TARGET_TMPDIR`, unique per test in this run.
#[derive(Debug)]
pub(crate) struct Tree {
    root: PathBuf,
}

impl Tree {
    /// Creates `target/tmp/it-<pid>-<n>/`, emptied if a previous run left it behind.
    pub(crate) fn new() -> Tree {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("it-{}-{n}", std::process::id()));
        if root.exists() {
            make_writable(&root);
            std::fs::remove_dir_all(&root).unwrap();
        }
        std::fs::create_dir_all(&root).unwrap();
        Tree { root }
    }

    /// The directory itself.
    pub(crate) fn path(&self) -> &Path {
        &self.root
    }

    /// `path` inside the tree.
    pub(crate) fn join(&self, path: impl AsRef<Path>) -> PathBuf {
        self.root.join(path)
    }

    /// Writes a file (creating parents) and returns the tree for chaining.
    pub(crate) fn file(&self, path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> &Tree {
        let path = self.root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        self
    }

    /// Creates a symlink at `link` pointing at `target` (as written).
    #[cfg(unix)]
    pub(crate) fn symlink(&self, target: impl AsRef<Path>, link: impl AsRef<Path>) -> &Tree {
        let link = self.root.join(link);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, link).unwrap();
        self
    }

    /// Replaces the temporary root with `[ROOT]` in `text`.
    pub(crate) fn redact(&self, text: &str) -> String {
        text.replace(&self.root.display().to_string(), "[ROOT]")
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // Keep the tree of a failing test for inspection; clean up after passing ones.
        if !std::thread::panicking() {
            make_writable(&self.root);
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

fn make_writable(root: &Path) {
    #[cfg(unix)]
    for entry in walkdir::WalkDir::new(root).into_iter().flatten() {
        use std::os::unix::fs::PermissionsExt as _;
        if !entry.path_is_symlink() {
            let _ = std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o755));
        }
    }
}

/// What a run of the binary produced.
#[derive(Debug)]
pub(crate) struct Output {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// stdout, lossily decoded.
    pub stdout: String,
    /// stderr, lossily decoded.
    pub stderr: String,
}

/// Runs `folio` with `args` in `cwd`, with colour disabled.
pub(crate) fn folio(cwd: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("the folio binary runs");
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Compares `actual` with the golden file `path` (relative to the crate root), byte for byte,
/// with snapbox: `SNAPSHOTS=overwrite` rewrites a file that differs; review the diff.
#[track_caller]
pub(crate) fn expect_file(path: &str, actual: &str) {
    let expected = snapbox::Data::read_from(&crate::support::repo().join(path), None).raw();
    snapbox::assert_data_eq!(snapbox::Data::text(actual.to_owned()).raw(), expected);
}

/// Copies a directory tree (files and directories only; anything else is left behind).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The vendored test corpora, `tests/corpora` (`hugo-docs` and `agent-skills`; each says where it
/// came from in its `SOURCE` file).
/// The repository, as cargo names it to the running test (not as it was when the test was built:
/// `.ci/run` builds in a copy of the repository that is gone by the time a later run reuses the
/// binary).
pub(crate) fn repo() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

pub(crate) fn corpora() -> PathBuf {
    crate::support::repo().join("tests/corpora")
}
