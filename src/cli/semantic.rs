//! Semantic search in the binary: which model a command uses (`--model DIR` or `--model NAME`,
//! the user's choice, a name fetched by `cli/fetch.rs`;
//! else `[search] model` in the content tree's `folio.toml`, held to the tree's rules by
//! `folio::semantic::ModelSource`), loading it once per process, embedding a compiled
//! catalog with it, and attaching it to every catalog the process opens.
//!
//! The loaded model is process state ([`configure`] sets it once, before the first catalog is
//! opened): a server opens catalogs in several places (at start, on each reload, for each
//! `--watch` compile), and each must embed and search with the same model. Without the
//! `semantic` feature, asking for a model is a usage error that says how to get one.
//!
//! Must not: rank, or decide what is embedded (`folio::semantic` and `folio::query` do).

use std::path::{Path, PathBuf};

use anyhow::bail;
use folio::catalog::Catalog;
use folio::query::Query;

/// The model a command asked for.
#[derive(Debug, Clone)]
pub(crate) enum Requested {
    /// `--model DIR`: the user's choice, wherever it is.
    Flag(PathBuf),
    /// `[search] model` of the tree's `folio.toml`: read by the tree's rules (inside its root,
    /// regular files, bounded sizes), or refused with the way to pass it as `--model`.
    #[cfg_attr(
        not(feature = "semantic"),
        expect(dead_code, reason = "a folio without semantic search refuses a model without reading it")
    )]
    Tree {
        /// The content root, canonical.
        root: PathBuf,
        /// The folder as `folio.toml` writes it.
        dir: String,
        /// The content root as given, joined with `dir`, for messages.
        shown: PathBuf,
    },
}

impl Requested {
    /// The folder as messages show it.
    pub(crate) fn shown(&self) -> &Path {
        match self {
            Requested::Flag(dir) => dir,
            Requested::Tree { shown, .. } => shown,
        }
    }
}

/// The model a command asked for: the flag, else `[search] model` of `content`'s `folio.toml`
/// (relative to the content root). `None` when neither names one.
pub(crate) fn requested(flag: Option<&Path>, content: Option<&Path>) -> Option<Requested> {
    if let Some(dir) = flag {
        return Some(Requested::Flag(dir.to_path_buf()));
    }
    let given = content?;
    let root = given.canonicalize().ok()?;
    // Read as the compiler reads it: a regular file inside the root, never a FIFO or a device.
    let dir = folio::compile::search_model(&root)?;
    Some(Requested::Tree { shown: given.join(&dir), root, dir })
}

#[cfg(feature = "semantic")]
mod enabled {
    use std::sync::{Arc, Mutex, OnceLock};
    use std::time::Instant;

    use anyhow::{Context as _, anyhow};
    use folio::semantic::{Cache, Encoder, ModelSource};

    use super::*;

    /// The process's model and the vectors it has made so far.
    struct Semantic {
        encoder: Arc<Encoder>,
        cache: Mutex<Cache>,
    }

    static ACTIVE: OnceLock<Semantic> = OnceLock::new();

    /// Loads the model in `dir` for this process; `previous` (the catalog an earlier build
    /// wrote, when there is one) seeds the cache.
    pub(crate) fn configure(model: &Requested, previous: Option<&Path>) -> anyhow::Result<()> {
        let started = Instant::now();
        let source = match model {
            // A folder, or a model name downloaded into the cache on first use.
            Requested::Flag(_) => ModelSource::User(crate::cli::fetch::resolve(model.shown())?),
            Requested::Tree { root, dir, shown } => {
                ModelSource::Tree { root: root.clone(), dir: dir.clone(), shown: shown.clone() }
            }
        };
        let encoder = Encoder::load_from(&source).map_err(|e| anyhow!("{e}"))?;
        let mut cache = Cache::new(encoder.id());
        if let Some(path) = previous.filter(|p| p.is_file())
            && let Ok(query) = Query::open_file(path)
        {
            cache.add(query.catalog());
        }
        let id = encoder.id();
        eprintln!(
            "folio: model `{}` ({} dimensions, {} tokens, hash {}) loaded in {} ms",
            id.name,
            id.dims,
            id.max_tokens,
            id.short_hash(),
            started.elapsed().as_millis()
        );
        let semantic = Semantic { encoder: Arc::new(encoder), cache: Mutex::new(cache) };
        if ACTIVE.set(semantic).is_err() {
            bail!("a model was already loaded in this process");
        }
        Ok(())
    }

    /// Embeds `catalog`'s units (entry texts from `text_of`) with the loaded model, reusing the
    /// vectors of texts it has seen; a no-op when no model is loaded.
    pub(crate) fn embed<'c>(
        catalog: &'c Catalog,
        text_of: &dyn Fn(u32) -> Option<&'c str>,
    ) -> anyhow::Result<Option<folio::catalog::vectors::Vectors>> {
        let Some(active) = ACTIVE.get() else { return Ok(None) };
        let started = Instant::now();
        let mut cache = active.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // At a terminal, a bar with the units embedded so far and the time left (a large tree
        // takes minutes); elsewhere, only the line below once it is done.
        let bar: OnceLock<crate::cli::progress::Progress> = OnceLock::new();
        let progress = |done: usize, total: usize| {
            bar.get_or_init(|| crate::cli::progress::Progress::bar("embedding", total as u64, "units"))
                .set(done as u64);
        };
        let done = folio::semantic::embed(catalog, text_of, &active.encoder, &cache, &progress)
            .map_err(|e| anyhow!("{e}"));
        if let Some(bar) = bar.into_inner() {
            bar.finish();
        }
        let done = done?;
        // What the next build or reload can reuse: this catalog's vectors (older texts are gone).
        let mut next = Cache::new(active.encoder.id());
        next.add_vectors(&done.vectors);
        *cache = next;
        eprintln!(
            "folio: embedded {} units with `{}` ({} from the cache) in {} ms",
            done.embedded + done.reused,
            active.encoder.id().name,
            done.reused,
            started.elapsed().as_millis()
        );
        Ok(Some(done.vectors))
    }

    /// Lets `query` embed its search queries with the loaded model. Fails when the catalog's
    /// vectors were made by another model.
    pub(crate) fn attach(query: &mut Query) -> anyhow::Result<()> {
        let Some(active) = ACTIVE.get() else { return Ok(()) };
        query
            .attach_encoder(active.encoder.clone())
            .map_err(|e| anyhow!("{e}"))
            .context("cannot search this catalog")
    }
}

#[cfg(not(feature = "semantic"))]
mod enabled {
    use super::*;

    pub(crate) fn configure(model: &Requested, _previous: Option<&Path>) -> anyhow::Result<()> {
        bail!(
            "model `{}`: this folio was built without semantic search; install a published folio (the \
             `folio-mcp-server` packages and the release archives carry it), or build it with the `semantic` \
             feature (`cargo install --locked --path . --features semantic` in a checkout of Folio; see `folio \
             show docs/guides/semantic-search.md`)",
            model.shown().display()
        )
    }

    pub(crate) fn embed<'c>(
        _catalog: &'c Catalog,
        _text_of: &dyn Fn(u32) -> Option<&'c str>,
    ) -> anyhow::Result<Option<folio::catalog::vectors::Vectors>> {
        Ok(None)
    }

    pub(crate) fn attach(_query: &mut Query) -> anyhow::Result<()> {
        Ok(())
    }
}

pub(crate) use enabled::{attach, configure, embed};

/// A compiled catalog (bodies in memory) as a query handle: embedded with the loaded model,
/// if any, and searchable with it.
pub(crate) fn query_of_compiled(mut catalog: Catalog) -> anyhow::Result<Query> {
    let vectors = {
        let entries = &catalog.entries;
        embed(&catalog, &|e| entries.get(e as usize).and_then(|entry| entry.text()))?
    };
    if vectors.is_some() {
        catalog.vectors = vectors;
    }
    searchable(Query::from_catalog(catalog))
}

/// An opened catalog, searchable with the loaded model, if any.
pub(crate) fn searchable(mut query: Query) -> anyhow::Result<Query> {
    attach(&mut query)?;
    Ok(query)
}
