//! What a catalog file's first bytes and its size decide before the rest is read: the envelope
//! every folio writes (a map of `format`, `version`, `catalog_hash` and `body`, in that order)
//! and where its body ends. Every open checks it first, the plain decode and the planned one.
//!
//! Must not: read past the prefix it is given, or check the hash (that needs the body).

use super::FORMAT_NAME;
use super::error::DecodeError;

/// Bytes a reader needs from the start of a file before calling [`super::plan()`]: the envelope.
pub const PLAN_PREFIX: usize = 256;

/// What a file's first bytes (at least [`PLAN_PREFIX`] of them, or the whole file) and its size
/// alone decide, so that a reader refuses a file before reading the rest of it: one that does
/// not start with the envelope every folio writes (a map of `format`, `version`,
/// `catalog_hash` and `body`, in that order), one of another format or version, and one whose
/// body does not end where the file does (bytes appended, or the file cut short). `Ok` says
/// only that these hold: the hash and the body are checked once the file is read.
///
/// Fails with the error [`super::decode_owned`] gives for the whole file.
pub fn check_envelope(prefix: &[u8], file_len: u64) -> Result<(), DecodeError> {
    let whole = prefix.len() as u64 >= file_len;
    let mut rest = prefix;
    let unlike = || {
        DecodeError::NotACatalog(if whole && prefix.len() < PLAN_PREFIX {
            "it is too short, or does not start as a catalog does (a map of `format`, `version`, \
             `catalog_hash` and `body`)"
                .to_owned()
        } else {
            "it does not start as a catalog does (a map of `format`, `version`, `catalog_hash` \
             and `body`)"
                .to_owned()
        })
    };
    let key = |rest: &mut &[u8], name: &str| -> Result<(), DecodeError> {
        (read_str(rest) == Some(name.as_bytes())).then_some(()).ok_or_else(unlike)
    };
    if rmp::decode::read_map_len(&mut rest).ok() != Some(4) {
        return Err(unlike());
    }
    key(&mut rest, "format")?;
    let format = read_str(&mut rest).ok_or_else(unlike)?;
    if format != FORMAT_NAME.as_bytes() {
        let shown = crate::catalog::consistency::shown(&String::from_utf8_lossy(format));
        return Err(DecodeError::NotACatalog(format!("format is `{shown}`")));
    }
    key(&mut rest, "version")?;
    let version: u64 = rmp::decode::read_int(&mut rest).map_err(|_| unlike())?;
    if version != u64::from(crate::catalog::FORMAT_VERSION) {
        return Err(DecodeError::Version { found: u32::try_from(version).unwrap_or(u32::MAX) });
    }
    key(&mut rest, "catalog_hash")?;
    read_str(&mut rest).ok_or_else(unlike)?;
    key(&mut rest, "body")?;
    let body_len = rmp::decode::read_bin_len(&mut rest).map_err(|_| unlike())?;
    let body_end = (prefix.len() - rest.len()) as u64 + u64::from(body_len);
    if body_end > file_len {
        let missing = body_end - file_len;
        return Err(DecodeError::NotACatalog(format!(
            "the file ends {missing} bytes before its body does: it was cut short"
        )));
    }
    let trailing = file_len - body_end;
    if trailing > 0 {
        let bytes = if trailing == 1 { "byte follows" } else { "bytes follow" };
        return Err(DecodeError::Corrupt(format!("{trailing} {bytes} the end of its body")));
    }
    Ok(())
}

/// The bytes of a msgpack string at the start of `rest`, moving past it; `None` when there is
/// none or it does not fit.
fn read_str<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let len = usize::try_from(rmp::decode::read_str_len(rest).ok()?).ok()?;
    let (text, after) = rest.split_at_checked(len)?;
    *rest = after;
    Some(text)
}
