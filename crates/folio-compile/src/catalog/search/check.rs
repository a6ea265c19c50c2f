//! The load-time check of a stored search index: its tables are what the reader in the parent
//! module trusts, so a forged catalog is refused at open instead of answering from tables that
//! point outside themselves. Performs no IO and allocates nothing.

use super::{HEADER, SearchIndex, TERM_ROW, View, u32_at};

impl SearchIndex {
    /// Checks the tables of a stored index against a catalog of `n_entries` entries: the header
    /// and section lengths fill the bytes exactly, every document row names an entry, the term
    /// rows' offsets run forward within their areas, terms are sorted and unique, and no term is
    /// in more documents than there are. One pass over the rows, no allocation; the postings
    /// themselves are not decoded (their reader stops at the first malformed byte). An empty
    /// index (no bytes) is valid. `Err` says what is wrong (a fragment: "… has …").
    pub fn check(&self, n_entries: usize) -> Result<(), String> {
        let data = &self.data[..];
        if data.is_empty() {
            return Ok(());
        }
        let view = View::new(data).ok_or_else(|| {
            format!("has a header or section lengths that do not fit its {} bytes", data.len())
        })?;
        let used = HEADER + view.docs.len() + view.table.len() + view.strings.len() + view.postings.len();
        if used != data.len() {
            return Err(format!("has {} bytes after its postings", data.len() - used));
        }
        for ordinal in 0..view.n_docs {
            let entry = view.doc_entry(ordinal);
            if entry as usize >= n_entries {
                return Err(format!(
                    "has document {ordinal} pointing at entry {entry}, but the catalog has {n_entries} entries"
                ));
            }
        }
        let (mut string_at, mut posting_at) = (0, 0);
        for i in 0..=view.n_terms {
            let string = u32_at(view.table, i * TERM_ROW) as usize;
            let posting = u32_at(view.table, i * TERM_ROW + 4) as usize;
            if string < string_at || posting < posting_at {
                return Err(format!("has term {i} starting before the term ahead of it ends"));
            }
            (string_at, posting_at) = (string, posting);
            if i == view.n_terms {
                break;
            }
            if view.df(i) as usize > view.n_docs {
                return Err(format!("has term {i} in {} documents, but indexes {}", view.df(i), view.n_docs));
            }
            if i > 0 && view.term(i - 1) >= view.term(i) {
                return Err(format!("has term {i} out of order"));
            }
        }
        Ok(())
    }
}
