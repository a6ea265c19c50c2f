//! `show`: what `folio show` prints for an id or a URI, the read of what it names and that
//! entry's detail record, from one resolve. Builds on `read` and `detail`; prints nothing.

use super::Query;
use super::detail::Detail;
use super::error::QueryError;
use super::read::{Named, ReadResult, Selection};

/// The answer to [`Query::show`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Shown {
    /// What was read: the entry's text (or the part `selection` named), or a generated resource.
    pub read: ReadResult,
    /// The detail record of the doc or skill read (a skill file's is its skill's); `None` for
    /// generated resources other than detail records.
    pub detail: Option<Detail>,
}

impl Query {
    /// Reads what `id` names with `selection`, and its detail record. A URI is read as given
    /// (aliases, generated resources, `?section=`); anything else is resolved like
    /// [`Query::resolve`] and its entry read, so `pdf` reads the skill's SKILL.md. Either way
    /// the id is looked up once and the entry found is what is read and described.
    ///
    /// Fails like [`Query::resolve`] and [`Query::read`], and with [`QueryError::Corrupt`] when
    /// the detail record does not decode.
    pub fn show(&self, id: &str, selection: &Selection) -> Result<Shown, QueryError> {
        let (read, named) = if id.contains("://") {
            self.read_named(id, selection)?
        } else {
            let at = self.resolve_at(id)?;
            match at.entry {
                Some(idx) => {
                    selection.check_order()?;
                    (self.read_at(at.resolved.uri(), idx, selection)?, Named::Entry(idx))
                }
                None => self.read_named(at.resolved.uri(), selection)?,
            }
        };
        let detail = match named {
            Named::Entry(idx) => self.detail_at(idx).transpose()?,
            Named::Generated(detail) => detail,
        };
        Ok(Shown { read, detail })
    }
}

#[cfg(test)]
mod tests {
    use crate::query::{Selection, fixture_query};

    /// `show` reads and describes what an id or a URI names from one resolve: a URI costs one
    /// lookup, a plain id exactly what resolving it costs (a doc path is tried with and without
    /// its extension), and the answer is what `resolve`, `read` and `detail` give one by one.
    #[test]
    fn show_resolves_its_id_once() {
        let q = fixture_query();
        let none = Selection::default();
        for id in [
            "pdf",
            "guides/install",
            "docs/guides/install.md",
            "skill://pdf/references/api.md",
            "resource://skills/pdf/document",
            "resource://docs/guides/install.md?section=macos",
            "resource://catalog/skills/pdf",
            "resource://catalog/about",
        ] {
            let before = q.lookups();
            let uri =
                if id.contains("://") { id.to_owned() } else { q.resolve(id).unwrap().uri().to_owned() };
            let resolve = if id.contains("://") { 1 } else { q.lookups() - before };
            let before = q.lookups();
            let shown = q.show(id, &none).unwrap_or_else(|e| panic!("{id}: {e}"));
            let lookups = q.lookups() - before;
            if id == "resource://catalog/about" {
                assert_eq!(lookups, 0, "{id} names no entry");
            } else {
                assert_eq!(lookups, resolve, "lookups of `show {id}`");
            }
            assert_eq!(shown.read, q.read(&uri, &none).unwrap(), "{id}");
            assert_eq!(shown.detail, q.detail(&uri).ok(), "{id}");
        }
    }
}
