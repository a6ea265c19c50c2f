//! The tree of a git tag, checked out into a temporary folder for `folio build --git-tag`.
//!
//! Runs `git` and reads only the repository's objects: the tag's tree is read into an index
//! file of the temporary folder (`GIT_INDEX_FILE`) and checked out from it below the folder, so
//! the user's working tree, index, HEAD and worktree list are never touched. Must not run any
//! git command that writes to the repository.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context as _, bail};

/// A checked-out tree of a tag, removed when dropped.
pub(super) struct Tree {
    /// The temporary folder: `index` and `tree/`.
    tmp: PathBuf,
    /// The content root as it was at the tag, inside `tmp`.
    root: PathBuf,
}

impl Tree {
    /// Checks out the content root `content` (a folder of a git repository's working tree) as
    /// it was at `tag`. Fails, naming the tag, when git is missing, `content` is not in a
    /// repository, the tag names nothing there, or the folder did not exist at the tag.
    pub(super) fn at_tag(content: &Path, tag: &str) -> anyhow::Result<Tree> {
        let top = git(content, &["rev-parse", "--show-toplevel"], None).with_context(|| {
            format!("--git-tag `{tag}`: `{}` is not inside a git repository", content.display())
        })?;
        let top = PathBuf::from(top.trim_end_matches(['\n', '\r']));
        let prefix = git(content, &["rev-parse", "--show-prefix"], None)?;
        let prefix = prefix.trim_end_matches(['\n', '\r']).trim_end_matches('/');
        // `--end-of-options` keeps a tag that starts with `-` from being read as an option.
        if git(
            &top,
            &["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{tag}^{{commit}}")],
            None,
        )
        .is_err()
        {
            bail!(
                "--git-tag `{tag}`: the repository of `{}` has no tag or commit `{tag}`; `git tag --list` shows its tags",
                content.display()
            );
        }
        let tree_of = if prefix.is_empty() { format!("{tag}^{{tree}}") } else { format!("{tag}:{prefix}") };
        let Ok(tree) = git(&top, &["rev-parse", "--verify", "--quiet", "--end-of-options", &tree_of], None)
        else {
            bail!(
                "--git-tag `{tag}`: `{prefix}/` did not exist at `{tag}`; build a tag that has the content root"
            );
        };
        let tree = tree.trim().to_owned();
        let tmp = temporary_folder()?;
        let out = Tree { root: tmp.join("tree"), tmp };
        let index = out.tmp.join("index");
        // A tree that is not a folder (a file at the prefix) fails here, with git's message.
        git(&top, &["read-tree", &tree], Some(&index))
            .with_context(|| format!("--git-tag `{tag}`: cannot read `{tree_of}`"))?;
        let dest = format!("{}/", out.root.display());
        git(&top, &["checkout-index", "--all", "--force", &format!("--prefix={dest}")], Some(&index))
            .with_context(|| {
                format!("--git-tag `{tag}`: cannot check out its tree into `{}`", out.root.display())
            })?;
        // An empty tree checks out nothing: the root must still exist to be compiled.
        std::fs::create_dir_all(&out.root).map_err(|e| folio::error::Error::io(&out.root, e))?;
        Ok(out)
    }

    /// The content root as it was at the tag.
    pub(super) fn path(&self) -> &Path {
        &self.root
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

/// Runs `git -C dir args…` (with `GIT_INDEX_FILE=index` when given) and returns its stdout;
/// fails with git's own message, or saying git could not be run.
fn git(dir: &Path, args: &[&str], index: Option<&Path>) -> anyhow::Result<String> {
    let mut cmd = Command::new("git");
    cmd.arg("-C").arg(dir).args(args);
    if let Some(index) = index {
        cmd.env("GIT_INDEX_FILE", index);
    }
    let out = cmd.output().context("cannot run `git` (is it installed and on PATH?)")?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        bail!("`git {}` failed: {}", args.join(" "), stderr.trim());
    }
    String::from_utf8(out.stdout).context("git printed a path that is not UTF-8")
}

/// A new empty folder in the system's temporary folder, named by the process and a counter.
fn temporary_folder() -> anyhow::Result<PathBuf> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("folio-git-{}-{n}", std::process::id()));
    // A folder left by an earlier process of the same id (a crash) is stale.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| folio::error::Error::io(&dir, e))?;
    Ok(dir)
}
