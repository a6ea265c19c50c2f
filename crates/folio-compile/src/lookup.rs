//! A hash map for lookups only: by path and wiki key in link resolution, by heading id and
//! frontmatter key in each file, by path when the catalog writer places the bodies. It must
//! never be iterated where its order could reach the output (the reason `clippy.toml` bans
//! std's `HashMap`): anything iterated is a `BTreeMap` or is sorted first.
//!
//! FxHash (rustc's, from `rustc-hash`) rather than std's SipHash, whose per-byte rounds showed
//! in link resolution; a tree is not an adversary worth SipHash's
//! flooding resistance here (colliding keys would only slow its own check).

/// A `HashMap` for lookups; see the module docs.
#[expect(clippy::disallowed_types, reason = "only looked up, or sorted before it is iterated")]
pub(crate) type LookupMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;
