//! Where a model's files come from, and how they are read: a directory the user named on the
//! command line (`--model`), or one a content tree names (`[search] model` in its `folio.toml`),
//! which is held to the tree's own rules.
//!
//! A tree is often someone else's repository, checked in CI: what its `folio.toml` names must
//! not make Folio read outside the tree, block on a FIFO, read a device without end, or hold a
//! file of any size. A directory the user names is the user's choice, its size too; but even
//! then only regular files are read, so a FIFO or a device named by mistake is refused at once.
//!
//! Must not: read anything but the files of the one model directory, or parse them.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::compile::source::{InsideError, open_nonblocking, read_inside_bounded};

/// The most bytes a model's weights (`model.safetensors`) may hold when a tree names the model:
/// the sentence encoders Folio runs hold tens to hundreds of megabytes.
pub const MAX_TREE_WEIGHTS_BYTES: u64 = 1 << 30;
/// The most bytes each of a tree-named model's other files (its JSON configs and tokenizer) may
/// hold.
pub const MAX_TREE_FILE_BYTES: u64 = 64 << 20;

/// A model directory and the rules its files are read by.
#[derive(Debug, Clone)]
pub enum ModelSource {
    /// A directory the user named (`--model DIR`), wherever it is; its files of any size, but
    /// regular files only.
    User(PathBuf),
    /// The directory a content tree names (`[search] model`): it must resolve inside the tree's
    /// root, each file is reached through no link that leaves the root, is a regular file, and
    /// holds at most [`MAX_TREE_WEIGHTS_BYTES`] (the weights) or [`MAX_TREE_FILE_BYTES`].
    Tree {
        /// The content root, canonical.
        root: PathBuf,
        /// The directory as `folio.toml` writes it, relative to the root.
        dir: String,
        /// How messages show it (the root as given, joined with `dir`).
        shown: PathBuf,
    },
}

/// What a refusal of a tree-named model says to do.
const ON_THE_COMMAND_LINE: &str = "a model that is not inside the content tree as plain files is given on the command line instead: \
     `--model DIR`";

impl ModelSource {
    /// The directory as messages show it.
    pub fn shown(&self) -> &Path {
        match self {
            ModelSource::User(dir) => dir,
            ModelSource::Tree { shown, .. } => shown,
        }
    }

    /// The directory's canonical path, once it is known to be a directory this source may read;
    /// otherwise what is wrong with it.
    pub(super) fn directory(&self) -> Result<PathBuf, Problem> {
        let (path, root) = match self {
            ModelSource::User(dir) => (dir.clone(), None),
            ModelSource::Tree { root, dir, .. } => (root.join(dir), Some(root)),
        };
        let canonical = path.canonicalize().map_err(|_| Problem::NoDirectory)?;
        if let Some(root) = root
            && !canonical.starts_with(root)
        {
            let dir = match self {
                ModelSource::Tree { dir, .. } => dir.as_str(),
                ModelSource::User(_) => "",
            };
            return Err(Problem::Refused(format!(
                "`folio.toml` names it as `{dir}` ([search] model), outside the content root; a tree's \
                 model must be inside it. {ON_THE_COMMAND_LINE}"
            )));
        }
        if !canonical.is_dir() {
            return Err(Problem::NoDirectory);
        }
        Ok(canonical)
    }

    /// The bytes of the model's file `name` (`config.json`, `1_Pooling/config.json`): `Ok(None)`
    /// when there is none.
    pub(super) fn read(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        match self {
            ModelSource::User(dir) => read_regular(&dir.join(name), name),
            ModelSource::Tree { root, dir, .. } => {
                let limit =
                    if name == "model.safetensors" { MAX_TREE_WEIGHTS_BYTES } else { MAX_TREE_FILE_BYTES };
                match read_inside_bounded(root, &format!("{dir}/{name}"), limit) {
                    Ok(bytes) => Ok(Some(bytes)),
                    Err(InsideError::Missing) => Ok(None),
                    Err(InsideError::Outside) => Err(format!(
                        "`{name}` leads outside the content root (a link). {ON_THE_COMMAND_LINE}"
                    )),
                    Err(InsideError::NotRegular) => Err(format!(
                        "`{name}` is not a regular file (a directory, a FIFO or a device); it is not read"
                    )),
                    Err(InsideError::TooLarge(size)) => Err(format!(
                        "`{name}` is {size} bytes, more than the {limit} bytes a file of a model named by \
                         `folio.toml` may hold. {ON_THE_COMMAND_LINE}"
                    )),
                    Err(InsideError::Unreadable(e)) => Err(format!("cannot read `{name}`: {e}")),
                }
            }
        }
    }
}

/// Why a model directory cannot be read at all.
pub(super) enum Problem {
    /// It does not exist, or is no directory.
    NoDirectory,
    /// It may not be read, and why.
    Refused(String),
}

/// The regular file at `path`, whatever its size: `Ok(None)` when there is none. Anything else
/// (a FIFO, a device, a directory) is refused from its metadata before it is opened, and again
/// on the opened file, which is opened without blocking (a FIFO swapped in meanwhile).
fn read_regular(path: &Path, name: &str) -> Result<Option<Vec<u8>>, String> {
    let not_regular =
        || format!("`{name}` is not a regular file (a directory, a FIFO or a device); it is not read");
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read `{name}`: {e}")),
        Ok(meta) if !meta.is_file() => return Err(not_regular()),
        Ok(_) => {}
    }
    let mut file = open_nonblocking(path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read `{name}`: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    Ok(Some(bytes))
}
