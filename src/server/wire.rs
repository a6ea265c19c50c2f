//! One line of newline-delimited JSON-RPC, as the stdio transport reads it: either a message for
//! rmcp (marked when its `cursor` is of the wrong type, see `params`), or the error answer
//! JSON-RPC 2.0 requires for it (`-32700` parse error, `-32600` invalid request), with the
//! request's `id` when a lenient scan of the line can recover it. [`malformed`] also finds what
//! a parser would let through without a word (a member given twice, an `id` that is no
//! integer); the HTTP transport asks it about each body too.
//!
//! Pure functions of the bytes: no IO, no state, never a panic on any input. The transport
//! (`stdio.rs`) owns reading, bounding and writing lines.

use rmcp::ErrorData as McpError;
use rmcp::model::{ClientJsonRpcMessage, ErrorCode, RequestId, ServerJsonRpcMessage};
use serde_json::{Value, json};

use super::errors;

/// Longest line read, in bytes (newline excluded): longer lines are discarded as they arrive
/// and answered `-32600`. The same bound rmcp's own line transport has.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What a line is.
#[derive(Debug)]
pub(crate) enum Line {
    /// Only whitespace: nothing to answer.
    Blank,
    /// A message for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// A notification that does not parse: JSON-RPC never answers a notification.
    Ignored,
    /// The answer to a line that is not a message rmcp can take.
    Reply(Box<ServerJsonRpcMessage>),
}

/// Reads one complete line (without its `\n`).
pub(crate) fn decode(line: &[u8]) -> Line {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // RFC 8259 lets a parser ignore a leading byte order mark.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Blank;
    }
    match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(mut message) => {
            if let Some(bad) = malformed(line) {
                return reply(invalid_request(&bad.why), bad.id);
            }
            super::params::mark(line, &mut message);
            Line::Message(Box::new(message))
        }
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            if let Some(bad) = malformed(line) {
                return reply(invalid_request(&bad.why), bad.id);
            }
            if is_notification(line) {
                tracing::debug!(error = %e, "ignoring a notification that does not parse");
                return Line::Ignored;
            }
            reply(invalid_request(NOT_A_MESSAGE), recover_id(line))
        }
        Err(e) => reply(parse_error(&e.to_string()), recover_id(line)),
    }
}

/// The answer to a line over [`MAX_LINE_BYTES`], of which `prefix` was read before it was
/// discarded (the id is looked for there).
pub(crate) fn too_long(prefix: &[u8]) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::error(
        invalid_request(&format!("the line is longer than {MAX_LINE_BYTES} bytes")),
        recover_id(prefix),
    )
}

const NOT_A_MESSAGE: &str =
    "not a JSON-RPC 2.0 request, notification or response (batches are not supported)";

fn reply(error: McpError, id: Option<RequestId>) -> Line {
    Line::Reply(Box::new(ServerJsonRpcMessage::error(error, id)))
}

fn parse_error(why: &str) -> McpError {
    McpError::new(
        ErrorCode::PARSE_ERROR,
        format!("parse error: {}", crate::catalog::uri::echo(why)),
        Some(json!({ "repair": line_repair() })),
    )
}

fn invalid_request(why: &str) -> McpError {
    McpError::new(
        ErrorCode::INVALID_REQUEST,
        format!("invalid request: {why}"),
        Some(json!({ "repair": line_repair() })),
    )
}

fn line_repair() -> Value {
    errors::repair(
        "server/discover",
        json!({}),
        "send one JSON-RPC 2.0 object per line: UTF-8 JSON with `jsonrpc`, `id`, `method` and `params`",
    )
}

/// True for a JSON object with a string `method` and no `id` member: a notification. (Only
/// lines that failed to parse come here, so a second parse costs nothing in the common case.)
fn is_notification(line: &[u8]) -> bool {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(object)) => {
            !object.contains_key("id") && object.get("method").is_some_and(Value::is_string)
        }
        _ => false,
    }
}

/// The `id` of a top-level JSON object, when it is an integer or a string, found by a lenient
/// scan that survives what made the line unparsable (bad escapes, bytes that are not UTF-8,
/// deep nesting, numbers out of range, a cut-off tail): `None` when there is no such id.
pub(crate) fn recover_id(line: &[u8]) -> Option<RequestId> {
    let mut scan = Scan { bytes: line, at: 0 };
    scan.skip_ws();
    scan.eat(b'{')?;
    loop {
        scan.skip_ws();
        let key = scan.string()?;
        scan.skip_ws();
        scan.eat(b':')?;
        scan.skip_ws();
        if key == b"id" {
            return scan.id();
        }
        scan.skip_value()?;
        scan.skip_ws();
        scan.eat(b',')?;
    }
}

/// Why a JSON object is no JSON-RPC request although it may parse, and the id to answer with.
#[derive(Debug)]
pub(crate) struct Malformed {
    pub(crate) why: String,
    pub(crate) id: Option<RequestId>,
}

/// What a parser would hide in a top-level JSON object: a member given twice (serde keeps one,
/// or refuses the object with a message about something else), or an `id` that is a number
/// but not an integer (`1e-999999` reads as the float 0, and would be answered with id 0, an id
/// the client never sent). `None` for everything else, including text that is not an object:
/// that is for the parser to refuse.
pub(crate) fn malformed(line: &[u8]) -> Option<Malformed> {
    let mut scan = Scan { bytes: line, at: 0 };
    // A set: a forged line may hold a million members.
    let mut keys: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
    let mut fractional_id = None;
    scan.skip_ws();
    scan.eat(b'{')?;
    scan.skip_ws();
    if scan.eat(b'}').is_some() {
        return None;
    }
    loop {
        scan.skip_ws();
        let quoted = scan.at;
        scan.string()?;
        // Decoded, so that `"\u0069d"` is the member `id` too.
        let key: String = serde_json::from_slice(&line[quoted..scan.at]).ok()?;
        if keys.contains(&key) {
            let id = if key == "id" { None } else { recover_id(line) };
            let why = format!(
                "the member `{}` is given twice; send each member of the object once",
                crate::catalog::uri::echo(&key)
            );
            return Some(Malformed { why, id });
        }
        scan.skip_ws();
        scan.eat(b':')?;
        scan.skip_ws();
        let start = scan.at;
        scan.skip_value()?;
        if key == "id" && is_fraction(&line[start..scan.at]) {
            fractional_id = Some(String::from_utf8_lossy(&line[start..scan.at]).into_owned());
        }
        keys.insert(key);
        scan.skip_ws();
        if scan.eat(b',').is_none() {
            break;
        }
    }
    scan.eat(b'}')?;
    fractional_id.map(|raw| Malformed {
        why: format!(
            "`id` {} is not an integer or a string (MCP request ids are strings or integers)",
            crate::catalog::uri::echo(&raw)
        ),
        id: None,
    })
}

/// True when `raw` is a JSON number whose exact value is not an integer (`0.5`, `1e-999999`;
/// not `1.0`, `1e2` or `-0`). Decided on the digits, never through a float.
fn is_fraction(raw: &[u8]) -> bool {
    let Ok(raw) = std::str::from_utf8(raw) else { return false };
    let unsigned = raw.strip_prefix('-').unwrap_or(raw);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], &unsigned[at + 1..]),
        None => (unsigned, "0"),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_ok = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits_ok(whole) || !digits_ok(fraction) {
        return false;
    }
    let (exp_negative, exp_digits) = match exponent.as_bytes().first() {
        Some(b'-') => (true, &exponent[1..]),
        Some(b'+') => (false, &exponent[1..]),
        _ => (false, exponent),
    };
    if exp_digits.is_empty() || !digits_ok(exp_digits) {
        return false;
    }
    // The digits that are not trailing zeros, and the power of ten of the last one.
    let digits = format!("{whole}{fraction}");
    let significant = digits.trim_end_matches('0');
    if significant.trim_start_matches('0').is_empty() {
        return false; // zero
    }
    let trailing_zeros = (digits.len() - significant.len()) as i128;
    // Exponents past i64 are saturated: their sign alone decides.
    let exponent = exp_digits.parse::<i64>().unwrap_or(i64::MAX) as i128;
    let exponent = if exp_negative { -exponent } else { exponent };
    exponent - fraction.len() as i128 + trailing_zeros < 0
}

/// A cursor over the bytes of one line.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// A string's raw bytes between its quotes (escapes left as they are).
    fn string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        loop {
            match self.peek()? {
                b'"' => {
                    self.at += 1;
                    return Some(&self.bytes[start..self.at - 1]);
                }
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// Skips any value without checking it: strings by their quotes, containers by counting
    /// brackets (no recursion, so no depth limit), scalars up to the next delimiter.
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => depth -= 1,
                        _ => {}
                    }
                    self.at += 1;
                    if depth == 0 {
                        return Some(());
                    }
                }
            }
            _ => {
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))
                {
                    self.at += 1;
                }
                Some(())
            }
        }
    }

    /// The id value here: a string (decoded; `None` if its escapes are bad) or an integer.
    fn id(&mut self) -> Option<RequestId> {
        let start = self.at;
        if self.peek()? == b'"' {
            self.string()?;
            let text: String = serde_json::from_slice(&self.bytes[start..self.at]).ok()?;
            return Some(RequestId::String(text.into()));
        }
        self.skip_value()?;
        let raw = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
        raw.parse::<i64>().ok().map(RequestId::Number)
    }
}

#[cfg(test)]
mod tests;
