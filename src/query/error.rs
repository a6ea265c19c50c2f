//! [`QueryError`]: why a query could not be answered, with the repair hint every error carries,
//! and the two ways a request or a catalog field turns into one (a URI that does not parse, a
//! lazily decoded field that does not decode). Knows no protocol: the server maps these onto MCP
//! errors, the CLI onto exit codes.

use std::fmt;

use crate::catalog::codec::DecodeError;
use crate::catalog::uri::UriError;

/// Why a query could not be answered. Never a panic, never content from outside the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// Nothing in the catalog has this id or URI (MCP: `resource_not_found` with `data.uri`).
    NotFound {
        /// The id or URI as the caller gave it.
        uri: String,
        /// What was looked for, for messages (`skill \`pdff\``, `doc \`guide.md\``).
        what: String,
        /// Nearby ids or URIs that do exist, best first (at most 5).
        suggestions: Vec<String>,
    },
    /// The request is malformed (MCP: `-32602`): traversal, a bad cursor, a bad line range, an
    /// unknown section, an unknown parameter value.
    InvalidParams {
        /// The parameter at fault (`uri`, `cursor`, `lines`, `section`, `limit`, `query`, …).
        param: &'static str,
        /// Why, as a sentence fragment (lowercase, no trailing period).
        reason: String,
        /// A real next step (a URI to read or a call to make).
        repair: String,
    },
    /// The catalog holds what its compiler cannot have written (MCP: `-32603`): a lazily decoded
    /// field that does not decode, a section range past the end of its file. Only a forged or
    /// damaged file gets here; its hash proves nothing about who wrote it. The request is fine.
    Corrupt {
        /// The URI of the record at fault.
        uri: String,
        /// What is wrong, as a sentence fragment (lowercase, no trailing period).
        reason: String,
    },
}

impl QueryError {
    pub(super) fn invalid(param: &'static str, reason: impl Into<String>) -> QueryError {
        let repair = match param {
            "cursor" => "restart from the first page: repeat the call without `cursor`".to_owned(),
            "uri" => format!(
                "read `{}` for the URI families, or call search_patterns / list_resources",
                crate::catalog::uri::ABOUT
            ),
            "mode" => format!(
                "leave `mode` out or pass `keyword`: both rank by words where meaning cannot be used \
                 (`{}` says which search this catalog has)",
                crate::catalog::uri::ABOUT
            ),
            _ => "fix the parameter and retry; call list_resources or search_patterns to see what \
                  exists"
                .to_owned(),
        };
        QueryError::InvalidParams { param, reason: reason.into(), repair }
    }

    pub(super) fn invalid_with(
        param: &'static str,
        reason: impl Into<String>,
        repair: impl Into<String>,
    ) -> QueryError {
        QueryError::InvalidParams { param, reason: reason.into(), repair: repair.into() }
    }

    /// A hint naming a real next step: a URI to read or a tool to call.
    pub fn repair(&self) -> String {
        match self {
            QueryError::NotFound { suggestions, .. } if !suggestions.is_empty() => format!(
                "did you mean {}? Call search_patterns or list_resources to see what exists",
                suggestions.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
            ),
            QueryError::NotFound { .. } => {
                "call search_patterns or list_resources to see what exists".to_owned()
            }
            QueryError::InvalidParams { repair, .. } => repair.clone(),
            QueryError::Corrupt { .. } => "rebuild the catalog with `folio build`".to_owned(),
        }
    }

    /// True for [`QueryError::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, QueryError::NotFound { .. })
    }

    /// True for [`QueryError::Corrupt`]: the catalog is at fault, not the request.
    pub fn is_corrupt_catalog(&self) -> bool {
        matches!(self, QueryError::Corrupt { .. })
    }
}

/// The value of `field`, the `what` (outline, links, …) of the record served at `uri`, decoded
/// on first use. A field that does not decode (a forged catalog: its hash proves nothing) is
/// [`QueryError::Corrupt`], never an empty value served as if it were the record's.
pub(crate) fn decoded<'a, T: serde::de::DeserializeOwned + Default>(
    field: &'a crate::catalog::Lazy<T>,
    uri: &str,
    what: &str,
) -> Result<&'a T, QueryError> {
    field.get().map_err(|e| {
        let why = match e {
            DecodeError::Body(why) | DecodeError::Corrupt(why) => why,
            other => other.to_string(),
        };
        QueryError::Corrupt {
            uri: uri.to_owned(),
            reason: format!("the {what} of `{uri}` does not decode ({why})"),
        }
    })
}

/// `entry`'s bytes, checked against its recorded blake3 the first time they are served
/// ([`crate::catalog::Entry::body`]): bytes that do not match (a damaged or edited catalog
/// file) are [`QueryError::Corrupt`], never served.
pub(crate) fn verified_body(entry: &crate::catalog::Entry) -> Result<&bytes::Bytes, QueryError> {
    entry.body().map_err(|why| QueryError::Corrupt { uri: entry.uri.clone(), reason: why })
}

impl super::Query {
    /// Checks the search index against its recorded blake3 and its tables the first time it is
    /// used ([`crate::catalog::search::SearchIndex::verify`]); an index that fails is
    /// [`QueryError::Corrupt`] for every search, never searched.
    pub(crate) fn verified_index(&self) -> Result<(), QueryError> {
        let catalog = &self.catalog;
        catalog
            .search
            .verify(catalog.entries.len())
            .map_err(|why| QueryError::Corrupt { uri: crate::catalog::uri::ABOUT.to_owned(), reason: why })
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::NotFound { what, suggestions, .. } => {
                write!(f, "no {what}")?;
                if let Some(first) = suggestions.first() {
                    write!(f, "; did you mean `{first}`?")?;
                }
                Ok(())
            }
            QueryError::InvalidParams { param, reason, .. } => write!(f, "invalid `{param}`: {reason}"),
            QueryError::Corrupt { reason, .. } => write!(f, "catalog is corrupt: {reason}"),
        }
    }
}

impl std::error::Error for QueryError {}

/// Maps a URI parse failure onto the query error the MCP layer turns into `-32602`.
pub(super) fn uri_error(err: UriError) -> QueryError {
    QueryError::invalid("uri", err.to_string())
}
