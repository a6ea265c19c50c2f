//! Rendered entry pages of one catalog, kept so that a page asked for again is answered without
//! rendering it again (the markdown pass, the outline of a reference file, link resolution).
//!
//! A cache belongs to one catalog snapshot: a reload builds a new snapshot with an empty cache,
//! so a changed entry is rendered anew. It is keyed by entry index within that catalog, not by the
//! entry's content hash alone: a page also shows the entry's path, links, backlinks and
//! translations, which change when other entries do, and two entries with the same bytes have
//! different pages. Bounded by bytes and by pages (oldest first out), so a huge catalog browsed
//! end to end cannot grow it without limit. Must not render: the caller does.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashMap;

/// A page's title and the HTML of its body.
pub(crate) type Rendered = Arc<(String, String)>;

/// Most bytes of HTML kept: the largest pages of a big manual are a few hundred KB.
const MAX_BYTES: usize = 32 << 20;
/// Most pages kept, whatever their size.
const MAX_PAGES: usize = 4096;

/// The rendered pages of one catalog, by entry index.
#[derive(Default)]
pub(crate) struct PageCache {
    inner: Mutex<Inner>,
    bounds: Bounds,
}

#[derive(Default)]
struct Inner {
    pages: FxHashMap<u32, Rendered>,
    /// Entry indexes in the order they were kept, oldest first.
    order: VecDeque<u32>,
    bytes: usize,
}

struct Bounds {
    bytes: usize,
    pages: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds { bytes: MAX_BYTES, pages: MAX_PAGES }
    }
}

impl PageCache {
    /// A cache keeping at most `bytes` of HTML and `pages` pages (tests use small bounds).
    #[cfg(test)]
    fn with_bounds(bytes: usize, pages: usize) -> PageCache {
        PageCache { inner: Mutex::default(), bounds: Bounds { bytes, pages } }
    }

    /// The page of entry `idx`, rendered by `render` the first time it is asked for (and again
    /// once it has been let go). The lock is not held while rendering: two requests for a page
    /// not kept yet may both render it, and the same page is kept.
    pub(crate) fn page(
        &self,
        idx: u32,
        render: impl FnOnce() -> Option<(String, String)>,
    ) -> Option<Rendered> {
        if let Some(page) = self.lock().pages.get(&idx) {
            return Some(Arc::clone(page));
        }
        let page = Arc::new(render()?);
        let size = page.0.len() + page.1.len();
        if size > self.bounds.bytes {
            return Some(page);
        }
        let mut inner = self.lock();
        if inner.pages.insert(idx, Arc::clone(&page)).is_none() {
            inner.order.push_back(idx);
            inner.bytes += size;
        }
        while inner.bytes > self.bounds.bytes || inner.order.len() > self.bounds.pages {
            let Some(oldest) = inner.order.pop_front() else { break };
            if let Some(gone) = inner.pages.remove(&oldest) {
                inner.bytes -= gone.0.len() + gone.1.len();
            }
        }
        Some(page)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::PageCache;

    fn page(body: &str) -> Option<(String, String)> {
        Some((String::new(), body.to_owned()))
    }

    /// A page is rendered once while it is kept; past the bounds the oldest go first, and a page
    /// larger than the whole budget is served but not kept.
    #[test]
    fn keeps_pages_within_its_bounds() {
        let cache = PageCache::with_bounds(10, 2);
        let mut renders = 0;
        let mut get = |idx: u32, body: &str| {
            cache.page(idx, || {
                renders += 1;
                page(body)
            })
        };
        get(0, "aaaa");
        get(0, "aaaa");
        get(1, "bbbb");
        get(1, "bbbb");
        get(2, "cccc"); // over two pages: 0 goes
        get(1, "bbbb");
        get(0, "aaaa");
        get(3, "a page longer than ten bytes");
        get(3, "a page longer than ten bytes");
        assert_eq!(renders, 6);
    }
}
