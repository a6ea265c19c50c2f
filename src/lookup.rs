//! A hash map for lookups only: by path and wiki key in link resolution, by heading id and
//! frontmatter key in each file, by path when the catalog writer places the bodies. It must
//! never be iterated where its order could reach the output (the reason `clippy.toml` bans
//! std's `HashMap`): anything iterated is a `BTreeMap` or is sorted first.
//!
//! FxHash (rustc's: a rotate, xor and multiply per 8 bytes) rather than std's SipHash, whose
//! per-byte rounds showed in link resolution; a tree is not an adversary worth SipHash's
//! flooding resistance here (colliding keys would only slow its own check).

/// A `HashMap` for lookups; see the module docs.
#[expect(clippy::disallowed_types, reason = "only looked up, or sorted before it is iterated")]
pub(crate) type LookupMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

/// The hasher of [`LookupMap`].
#[derive(Default)]
pub(crate) struct FxHasher(u64);

/// FxHash's multiplier.
const K: u64 = 0x517c_c1b7_2722_0a95;

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    }

    fn write_u8(&mut self, byte: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(K);
    }

    fn finish(&self) -> u64 {
        // The low bits pick the bucket, and a product's low bits depend only on its inputs' low
        // bits: rotate the well-mixed middle bits down (as rustc-hash 2 does).
        self.0.rotate_left(26)
    }
}
