//! Unit tests of the codec: the envelope's bytes, the writer's checks and blocks, round trips,
//! forged bodies, lazily decoded fields and their errors, the parallel hash.

use super::lazy::from_slice_bounded;
use super::meta::{PIECE, TAIL, encode_seq};
use super::writer::{ENVELOPE_HEAD_BYTES, envelope_head};
use super::*;
use crate::catalog::{Entry, EntryKind, FORMAT_VERSION, Lazy, SearchIndex, Settings};

#[test]
fn envelope_head_decodes_as_what_rmp_serde_writes_for_every_body_size() {
    for len in [0usize, 1, 255, 256, 65_535, 65_536, 70_000] {
        let body = vec![7u8; len];
        let envelope =
            Envelope { format: FORMAT_NAME, version: FORMAT_VERSION, catalog_hash: "ab", body: &body };
        let mut ours = envelope_head("ab", len).unwrap();
        assert_eq!(ours.len(), envelope_head("ab", 0).unwrap().len(), "one size for every body");
        ours.extend_from_slice(&body);
        let read: Envelope<'_> = rmp_serde::from_slice(&ours).unwrap();
        assert_eq!(
            (read.format, read.version, read.catalog_hash, read.body),
            (envelope.format, envelope.version, envelope.catalog_hash, envelope.body),
            "envelope of a {len}-byte body"
        );
    }
}

#[test]
fn the_envelope_head_has_the_size_the_file_limit_counts() {
    let head = envelope_head(&"0".repeat(64), u32::MAX as usize).unwrap();
    assert_eq!(head.len() as u64, ENVELOPE_HEAD_BYTES);
}

#[test]
fn hash_of_is_the_recorded_hash() {
    let mut large = sample();
    let bytes: Vec<u8> = (0..5u32 << 20).map(|i| (i % 251) as u8).collect();
    large.entries[0].size = bytes.len() as u64;
    large.entries[0].bytes = bytes.into();
    for catalog in [sample(), large] {
        let encoded = encode(&catalog);
        assert_eq!(hash_of(&catalog), encoded.catalog_hash);
        // decode checks the recorded hash against a hash of the body as one slice.
        decode(&encoded.msgpack).expect("the recorded hash verifies");
    }
}

fn sample() -> Catalog {
    let bytes = b"# Hello\n".to_vec();
    Catalog {
        settings: Settings::default(),
        source_fingerprint: "00".repeat(32),
        entries: vec![Entry {
            uri: "resource://docs/hello.md".to_owned(),
            kind: EntryKind::Doc,
            path: "docs/hello.md".to_owned(),
            mime: "text/markdown".to_owned(),
            size: bytes.len() as u64,
            blake3: blake3::hash(&bytes).to_hex().to_string(),
            sha256: None,
            is_text: true,
            total_lines: 1,
            bytes: bytes.into(),
            verdict: Default::default(),
        }],
        docs: Vec::new(),
        skills: Vec::new(),
        search: SearchIndex::default(),
        vectors: None,
    }
}

/// A catalog of `n` entries of about 1 KiB each, with distinct bytes.
fn many_entries(n: usize) -> Catalog {
    let mut catalog = sample();
    let template = catalog.entries.remove(0);
    for i in 0..n {
        let bytes: Vec<u8> =
            format!("# Entry {i}\n").bytes().chain((0..1000).map(|j| (i + j) as u8)).collect();
        catalog.entries.push(Entry {
            uri: format!("resource://docs/e{i:04}.md"),
            path: format!("docs/e{i:04}.md"),
            size: bytes.len() as u64,
            blake3: blake3::hash(&bytes).to_hex().to_string(),
            bytes: bytes.into(),
            verdict: Default::default(),
            ..template.clone()
        });
    }
    catalog
}

#[test]
fn the_writer_refuses_bodies_that_are_not_the_catalogs() {
    let catalog = many_entries(3);
    let body = |i: usize| (catalog.entries[i].path.as_str(), &catalog.entries[i].bytes[..]);
    let io = |e: std::io::Error| (e.kind(), e.to_string());
    // Out of order: refused when written.
    let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
    writer.body(body(1).0, body(1).1).unwrap();
    let err = writer.body(body(0).0, body(0).1).unwrap_err();
    assert_eq!(
        io(err),
        (
            std::io::ErrorKind::InvalidInput,
            "catalog bodies out of order: `docs/e0000.md` after `docs/e0001.md`".to_owned()
        )
    );
    // One missing, or another file's bytes in an entry's place: refused at the end.
    let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
    writer.body(body(0).0, body(0).1).unwrap();
    writer.body(body(2).0, body(2).1).unwrap();
    assert_eq!(
        io(writer.finish(&catalog).err().unwrap()),
        (
            std::io::ErrorKind::InvalidData,
            "the bodies written do not match the catalog: 2 bodies for 3 entries".to_owned()
        )
    );
    let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
    writer.body(body(0).0, body(0).1).unwrap();
    writer.body(body(1).0, b"short").unwrap();
    writer.body(body(2).0, body(2).1).unwrap();
    assert_eq!(
        io(writer.finish(&catalog).err().unwrap()).1,
        "the bodies written do not match the catalog: `docs/e0001.md` (5 bytes) was written \
         where `docs/e0001.md` (1010 bytes) belongs"
    );
    let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
    writer.body(body(0).0, body(0).1).unwrap();
    writer.body("docs/e0000a.md", b"stray").unwrap();
    writer.body(body(2).0, body(2).1).unwrap();
    assert_eq!(
        io(writer.finish(&catalog).err().unwrap()).1,
        "the bodies written do not match the catalog: `docs/e0000a.md` (5 bytes) was written, \
         but no entry has that path"
    );
}

#[test]
fn the_writer_refuses_a_catalog_past_what_a_msgpack_bin_holds() {
    // The limit is 4 GiB; a test writer has a smaller one, with the same checks.
    let catalog = many_entries(3);
    let writer = |limit: u64| {
        let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
        writer.limit = limit;
        writer
    };
    let io = |e: std::io::Error| (e.kind(), e.to_string());
    // The bodies alone: refused at the body that passes the limit, before it is written.
    let mut w = writer(2500);
    w.body(&catalog.entries[0].path, &catalog.entries[0].bytes).unwrap();
    w.body(&catalog.entries[1].path, &catalog.entries[1].bytes).unwrap();
    let err = w.body(&catalog.entries[2].path, &catalog.entries[2].bytes).unwrap_err();
    assert_eq!(
        io(err),
        (
            std::io::ErrorKind::InvalidData,
            "the catalog's files come to 3030 bytes, more than the 2500 bytes a catalog can hold \
             (msgpack's 4 GiB limit); move large files out of the content tree"
                .to_owned()
        )
    );
    assert_eq!(w.written.len(), 2);
    // Bodies that fit, with the metadata after them: refused when finished.
    let mut w = writer(3100);
    for entry in &catalog.entries {
        w.body(&entry.path, &entry.bytes).unwrap();
    }
    let (kind, message) = io(w.finish(&catalog).err().unwrap());
    assert_eq!(kind, std::io::ErrorKind::InvalidData);
    assert!(
        message.starts_with("the catalog would be ")
            && message.ends_with(
                " bytes, more than the 3100 bytes a catalog can hold (msgpack's 4 GiB limit); \
                 move large files out of the content tree"
            ),
        "{message}"
    );
}

/// A file in memory that notes the length of every write.
#[derive(Default)]
struct Recorder {
    file: std::io::Cursor<Vec<u8>>,
    writes: Vec<usize>,
}

impl std::io::Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writes.push(buf.len());
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::io::Seek for Recorder {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.file.seek(pos)
    }
}

#[test]
fn bodies_go_out_in_whole_blocks_whatever_their_sizes() {
    // Bodies small and large, ending short of a block, on one and just past one.
    let sizes = [10, STAGE_BYTES - 5, 7, 3 * STAGE_BYTES + 1, 1, STAGE_BYTES, 2 * STAGE_BYTES - 3, 40];
    let mut catalog = many_entries(sizes.len());
    for (i, (entry, size)) in catalog.entries.iter_mut().zip(sizes).enumerate() {
        let bytes: Vec<u8> = (0..size).map(|j| (i * 31 + j * 7) as u8).collect();
        entry.size = size as u64;
        entry.blake3 = blake3::hash(&bytes).to_hex().to_string();
        entry.bytes = bytes.into();
    }
    let mut writer = Writer::new(Recorder::default()).unwrap();
    for entry in &catalog.entries {
        writer.body(&entry.path, &entry.bytes).unwrap();
    }
    // The first write is the placeholder envelope; the rest so far are bodies.
    let bodies = &writer.out.writes[1..];
    assert!(bodies.iter().all(|n| n % STAGE_BYTES == 0), "{bodies:?}");
    let staged = sizes.iter().sum::<usize>() - bodies.iter().sum::<usize>();
    assert!(staged < STAGE_BYTES, "{staged} bytes left for the last write");
    let (out, hash) = writer.finish(&catalog).unwrap();
    let file = out.file.into_inner();
    assert_eq!(catalog_hash(&file).unwrap(), hash);
    assert_eq!(decode(&file).unwrap(), catalog, "each entry gets its own bytes back");
}

#[test]
fn bodies_are_stored_in_source_order_and_found_by_offset() {
    let mut catalog = many_entries(3);
    // Source order is neither entry (URI) order nor byte order of the paths: the walk reads
    // `docs/a/x.md` (in directory `a`) before `docs/a-b.md`, and that before `docs/a.md`.
    for (entry, path) in catalog.entries.iter_mut().zip(["docs/a-b.md", "docs/a.md", "docs/a/x.md"]) {
        entry.path = path.to_owned();
    }
    let encoded = encode(&catalog);
    let at = |needle: &[u8]| encoded.msgpack.windows(needle.len()).position(|w| w == needle).unwrap();
    let (a_b, a, a_x) = (at(b"# Entry 0\n"), at(b"# Entry 1\n"), at(b"# Entry 2\n"));
    assert!(a_x < a_b && a_b < a, "bodies in source order");
    assert_eq!(decode(&encoded.msgpack).unwrap(), catalog, "each entry gets its own bytes back");
}

#[test]
fn pieces_of_a_sequence_are_what_rmp_serde_writes_for_it() {
    for n in [0usize, 1, 15, 16, 3000, 70_000] {
        let items: Vec<String> = (0..n).map(|i| format!("item {i} {}", "x".repeat(i % 50))).collect();
        let pieces = encode_seq(&items);
        assert!(pieces.iter().all(|p| p.len() < 2 * PIECE), "{n}: bounded pieces");
        assert_eq!(pieces.concat(), rmp_serde::to_vec(&items).unwrap(), "{n} items");
    }
}

#[test]
fn round_trips() {
    let catalog = sample();
    let encoded = encode(&catalog);
    assert_eq!(decode(&encoded.msgpack).unwrap(), catalog);
    assert_eq!(encode(&catalog), encoded, "encoding is deterministic");
}

#[test]
fn refuses_truncated_and_tampered_bytes() {
    let encoded = encode(&sample());
    let truncated = &encoded.msgpack[..encoded.msgpack.len() - 3];
    assert!(matches!(decode(truncated), Err(DecodeError::NotACatalog(_))));

    // A flipped body byte: the metadata still verifies, so the catalog opens, but the entry's
    // bytes are refused when first asked for, and every time after.
    let mut tampered = encoded.msgpack.clone();
    let at = tampered.windows(7).position(|w| w == b"# Hello").unwrap();
    tampered[at + 2] = b'J';
    let opened = decode(&tampered).expect("the metadata verifies");
    let entry = &opened.entries[0];
    assert!(!entry.verdict.is_decided(), "bodies are not hashed at open");
    for _ in 0..2 {
        let err = entry.body().unwrap_err();
        assert!(err.starts_with("the bytes of `resource://docs/hello.md` hash to "), "{err}");
        assert_eq!(entry.text(), None);
    }
    // A flipped metadata byte (the entry's path): the catalog is refused at open.
    let mut tampered = encoded.msgpack.clone();
    let at = tampered.windows(13).position(|w| w == b"docs/hello.md").unwrap();
    tampered[at] = b'D';
    assert!(matches!(decode(&tampered), Err(DecodeError::HashMismatch { .. })));

    assert!(matches!(decode(b"hello"), Err(DecodeError::NotACatalog(_))));
}

/// Re-wraps a modified body with a matching hash (of its metadata and lengths, or of all of it
/// when its lengths do not fit it, as the reader hashes), as a forger would.
fn forge(body: &[u8]) -> Vec<u8> {
    let parts = body.len().checked_sub(TAIL).and_then(|at| super::meta::parts(body.len(), &body[at..]));
    let hash = blake3::hash(&body[parts.map_or(0, |p| p.meta.start)..]).to_hex().to_string();
    let envelope = Envelope { format: FORMAT_NAME, version: FORMAT_VERSION, catalog_hash: &hash, body };
    rmp_serde::to_vec_named(&envelope).unwrap()
}

#[test]
fn refuses_forged_bodies_without_panicking() {
    let encoded = encode(&sample());
    let envelope: Envelope<'_> = rmp_serde::from_slice(&encoded.msgpack).unwrap();
    let body = envelope.body.to_vec();
    let tail = body.len() - TAIL;
    let with_lengths = |bodies: u64, search: u64| {
        let mut forged = body.clone();
        forged[tail..tail + 8].copy_from_slice(&bodies.to_le_bytes());
        forged[tail + 8..].copy_from_slice(&search.to_le_bytes());
        forged
    };
    let bodies = u64::from_le_bytes(body[tail..tail + 8].try_into().unwrap());
    let forgeries = [
        with_lengths(u64::MAX, 0),
        with_lengths(0, u64::MAX),
        with_lengths(u64::MAX / 2 + 1, u64::MAX / 2 + 1),
        // The bodies area one byte short: the entry extends beyond it.
        with_lengths(bodies - 1, 1),
        body[..10].to_vec(),
        Vec::new(),
        body[..body.len() - 1].to_vec(),
    ];
    for forged in forgeries {
        let res = decode(&forge(&forged));
        assert!(matches!(res, Err(DecodeError::Body(_))), "{res:?}");
    }
    assert_eq!(decode(&forge(&body)).unwrap(), sample(), "an honest re-wrap still decodes");
}

#[test]
fn lazy_fields_decode_on_demand_and_re_encode_identically() {
    let outline = vec![crate::catalog::Section {
        id: "intro".to_owned(),
        title: "Intro".to_owned(),
        level: 2,
        line_start: 3,
        line_end: 9,
    }];
    let written = rmp_serde::to_vec(&Lazy::new(outline.clone())).unwrap();
    let read: Lazy<Vec<crate::catalog::Section>> = rmp_serde::from_slice(&written).unwrap();
    assert!(!read.is_decoded(), "nothing is decoded before first use");
    assert_eq!(rmp_serde::to_vec(&read).unwrap(), written, "raw bytes are written back as read");
    assert_eq!(read.get(), Ok(&outline));
    assert_eq!(rmp_serde::to_vec(&read).unwrap(), written);
    let json = serde_json::to_string(&read).unwrap();
    assert_eq!(json, serde_json::to_string(&outline).unwrap(), "JSON sees the plain value");
}

#[test]
fn deeply_nested_msgpack_is_refused_not_a_stack_overflow() {
    // 10,000 nested one-element arrays: as a lazy field's value, and as the value of an
    // unknown key of a doc (skipped, recursively), each decoded on a 2 MiB thread.
    let deep = |prefix: &[u8]| [prefix, &[0x91u8; 10_000][..], &[0xc0][..]].concat();
    let lazy = Lazy::<serde_json::Value>::from_raw(deep(&[]).into_boxed_slice());
    let docs = deep(&[0x91, 0x81, 0xa1, b'x']);
    let (value, docs) = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || (lazy.get().cloned(), from_slice_bounded::<Vec<crate::catalog::Doc>>(&docs, 32)))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(
        value,
        Err(DecodeError::Body("depth limit exceeded".to_owned())),
        "too deep: an error, not a stack overflow"
    );
    assert_eq!(docs.unwrap_err().to_string(), "depth limit exceeded");
}

#[test]
fn default_lazy_fields_hold_nothing_and_re_encode_identically() {
    // Empty list, empty map, null: the default values, kept as nothing at all.
    let empty_list = rmp_serde::to_vec(&Lazy::new(Vec::<String>::new())).unwrap();
    let read: Lazy<Vec<String>> = rmp_serde::from_slice(&empty_list).unwrap();
    assert!(read.holds_nothing());
    assert_eq!(rmp_serde::to_vec(&read).unwrap(), empty_list);
    assert_eq!(read.get().map(Vec::len), Ok(0));
    assert_eq!(rmp_serde::to_vec(&read).unwrap(), empty_list, "after first use too");
    let null = rmp_serde::to_vec(&Lazy::new(serde_json::Value::Null)).unwrap();
    let read: Lazy<serde_json::Value> = rmp_serde::from_slice(&null).unwrap();
    assert!(read.holds_nothing());
    assert_eq!(rmp_serde::to_vec(&read).unwrap(), null);
    // A one-byte value that is not the default (`true`) is kept decoded.
    let yes = rmp_serde::to_vec(&Lazy::new(serde_json::Value::Bool(true))).unwrap();
    let read: Lazy<serde_json::Value> = rmp_serde::from_slice(&yes).unwrap();
    assert_eq!(read.get(), Ok(&serde_json::Value::Bool(true)));
    assert_eq!(rmp_serde::to_vec(&read).unwrap(), yes);
}

#[test]
fn parallel_hash_equals_blake3() {
    for len in [0, 1, 1024, 4 << 20, (4 << 20) + 1, 9_999_999] {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        assert_eq!(hash(&bytes), blake3::hash(&bytes), "len {len}");
    }
}

#[test]
fn decoded_bodies_share_the_file_buffer() {
    let encoded = encode(&sample());
    let file: &'static [u8] = Box::leak(encoded.msgpack.into_boxed_slice());
    let catalog = decode_static(file).unwrap();
    let body = &catalog.entries[0].bytes;
    assert_eq!(&body[..], b"# Hello\n");
    let inside = file.as_ptr_range().contains(&body.as_ptr());
    assert!(inside, "the body points into the file, it was not copied");
}

#[test]
fn a_lazy_field_that_does_not_decode_is_an_error_every_time_it_is_read() {
    // A `u32` where a list of sections belongs, and bytes that are not msgpack at all.
    let number: Lazy<Vec<crate::catalog::Section>> =
        rmp_serde::from_slice(&rmp_serde::to_vec(&Lazy::new(7u32)).unwrap()).unwrap();
    let junk: Lazy<Vec<String>> = Lazy::from_raw(vec![0xc1, 0xc1].into_boxed_slice());
    let expected = Err(DecodeError::Body("invalid type: integer `7`, expected a sequence".to_owned()));
    assert_eq!(number.get(), expected.as_ref().map_err(Clone::clone));
    assert_eq!(number.get(), expected.as_ref().map_err(Clone::clone), "not kept as an empty value");
    let err = junk.get().unwrap_err();
    assert!(matches!(&err, DecodeError::Body(_)), "{err:?}");
    assert!(err.to_string().starts_with("catalog body does not decode ("), "{err}");
    // Writing the field back keeps its bytes; only JSON, which needs the value, fails.
    let mut written = Vec::new();
    rmp_serde::encode::write(&mut written, &number).unwrap();
    assert_eq!(written, rmp_serde::to_vec(&Lazy::new(7u32)).unwrap());
    assert!(serde_json::to_string(&number).is_err());
}
