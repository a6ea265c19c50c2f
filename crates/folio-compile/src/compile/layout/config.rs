//! A site generator's config files read as data: TOML (`book.toml`, `hugo.toml`), YAML
//! (`mkdocs.yml`, with the tags MkDocs's loader adds), JSON (`versions.json`, `vercel.json`) and
//! the static part of JavaScript and TypeScript configs (`docusaurus.config.ts`,
//! `.vitepress/config.mts`), all as one [`Value`] tree. What cannot be known without running
//! the generator (a function call, `process.env`, a value imported from a package) is
//! [`Value::Unknown`] with what it was, so a reader can say *why* it could not tell.
//!
//! Reads only the file asked for (and, for JavaScript, the relative modules it imports), each a
//! regular file inside the content root of at most [`MAX_CONFIG_BYTES`]; runs nothing. Must not
//! know what any key means: that is each generator's business (`generators`).

mod js;
mod yaml;

use std::path::Path;

pub(crate) use crate::compile::source::bounded::MAX_CONFIG_BYTES;

/// The deepest bracket nesting a JavaScript or TOML config may have to be parsed: their
/// parsers recurse once per level with no bound of their own (a 1 MiB file of `[` overflows the
/// stack). Real configs nest about a dozen levels.
pub(crate) const MAX_NESTING: usize = 100;

/// The deepest nesting of brackets in `text`, counting every bracket character (in strings and
/// comments too: an upper bound of what a parser recurses through).
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A config value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// `null`, `~`, `undefined`.
    Null,
    /// `true`, `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string (a template literal without expressions included).
    Str(String),
    /// An array or sequence.
    List(Vec<Value>),
    /// An object, table or mapping.
    Map(Map),
    /// A call the generator's config makes, with its arguments (`starlight({…})` in Astro's
    /// `integrations`, `withMermaid(defineConfig({…}))`): unknown as a value, but a generator
    /// that knows the function reads its arguments. `define…(x)` helpers are `x` itself.
    Call(String, Vec<Value>),
    /// A function, with the value it returns when that is known (Next.js calls `redirects()`):
    /// unknown as a value.
    Func(Box<Value>),
    /// Something only running the generator would tell, described (`a call to
    /// \`getSidebar()\``, `\`process.env.BASE\``).
    Unknown(String),
}

/// An object's entries in source order; a key written twice keeps its last value, as
/// JavaScript and the TOML and YAML readers of the generators do.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Map {
    /// The entries, in source order.
    pub entries: Vec<(String, Value)>,
    /// Why some entries may be missing (a spread of something unknown: `...baseConfig`).
    pub partial: Option<String>,
}

impl Value {
    /// The value of `key` in a map.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Map(map) => map.entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value at a path of keys (`["markdown", "anchor"]`).
    pub(crate) fn at(&self, path: &[&str]) -> Option<&Value> {
        path.iter().try_fold(self, |value, key| value.get(key))
    }

    /// The string, when this is one.
    pub(crate) fn str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, when this is one.
    pub(crate) fn bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The items of a list; empty for anything else.
    pub(crate) fn items(&self) -> &[Value] {
        match self {
            Value::List(items) => items,
            _ => &[],
        }
    }

    /// The entries of a map; empty for anything else.
    pub(crate) fn entries(&self) -> &[(String, Value)] {
        match self {
            Value::Map(map) => &map.entries,
            _ => &[],
        }
    }

    /// What is unknown about this value itself: its description when it is
    /// [`Value::Unknown`], or why a map may lack entries.
    pub(crate) fn unknown(&self) -> Option<&str> {
        match self {
            Value::Unknown(what) => Some(what),
            Value::Call(..) => Some("a call to a function"),
            Value::Func(_) => Some("a function"),
            Value::Map(map) => map.partial.as_deref(),
            _ => None,
        }
    }

    /// The config a wrapper call is given: `withMermaid(defineConfig({…}))` is the object
    /// (what the wrapper adds is unknown); any other value is itself.
    pub(crate) fn unwrapped(&self) -> &Value {
        match self {
            Value::Call(_, args) if matches!(args.first(), Some(Value::Map(_) | Value::Call(..))) => {
                args[0].unwrapped()
            }
            other => other,
        }
    }

    /// The arguments of a call to `name` (the last segment of a dotted name).
    pub(crate) fn call_args(&self, name: &str) -> Option<&[Value]> {
        match self {
            Value::Call(callee, args) if callee == name => Some(args),
            _ => None,
        }
    }

    /// Every string anywhere in the value, depth first (for reading lists of pages whose shape
    /// varies: a sidebar of strings, objects and nested groups).
    pub(crate) fn strings(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.walk(&mut |v| {
            if let Value::Str(s) = v {
                out.push(s.as_str());
            }
        });
        out
    }

    /// Calls `f` on this value and every value inside it, depth first.
    pub(crate) fn walk<'v>(&'v self, f: &mut impl FnMut(&'v Value)) {
        f(self);
        match self {
            Value::List(items) => items.iter().for_each(|v| v.walk(f)),
            Value::Map(map) => map.entries.iter().for_each(|(_, v)| v.walk(f)),
            Value::Call(_, args) => args.iter().for_each(|v| v.walk(f)),
            Value::Func(returned) => returned.walk(f),
            _ => {}
        }
    }
}

/// A config file read: its value, and the parts of it that could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ConfigFile {
    /// Content-relative path.
    pub path: String,
    /// The value (for JavaScript, the default export or `module.exports`).
    pub value: Value,
}

/// Why a config file could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// Missing, not a regular file inside the root, or not UTF-8.
    Unreadable,
    /// Larger than [`MAX_CONFIG_BYTES`] (its size, or how much of it was read).
    TooLarge(u64),
    /// Not valid in its format: the parser's message.
    Syntax(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Unreadable => f.write_str("it cannot be read as a UTF-8 file inside the content root"),
            ReadError::TooLarge(n) => {
                write!(f, "it is {n} bytes, more than the {MAX_CONFIG_BYTES}-byte limit of a config file")
            }
            ReadError::Syntax(why) => write!(f, "it does not parse: {why}"),
        }
    }
}

/// The text of the config file `rel` (content-relative), read as the compile reads a file (a
/// regular file inside the root, through no link that leaves it) and decided on its size before
/// a byte is read.
pub(crate) fn read_text(root: &Path, rel: &str) -> Result<String, ReadError> {
    use crate::compile::source::bounded::{ConfigFile, read_config};
    match read_config(root, rel) {
        ConfigFile::Read(bytes) => String::from_utf8(bytes).map_err(|_| ReadError::Unreadable),
        ConfigFile::TooLarge(size) => Err(ReadError::TooLarge(size)),
        ConfigFile::Missing => Err(ReadError::Unreadable),
    }
}

/// Reads the config file `rel` (content-relative) by its extension: `.toml`, `.json`,
/// `.yml`/`.yaml`, or JavaScript/TypeScript (`.js`, `.mjs`, `.cjs`, `.ts`, `.mts`, `.cts`).
pub(crate) fn read(root: &Path, rel: &str) -> Result<ConfigFile, ReadError> {
    let text = read_text(root, rel)?;
    let value = parse(root, rel, &text)?;
    Ok(ConfigFile { path: rel.to_owned(), value })
}

/// [`read`] of text already read.
pub(crate) fn parse(root: &Path, rel: &str, text: &str) -> Result<Value, ReadError> {
    let ext = rel.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "toml" if nesting(text) > MAX_NESTING => {
            Err(ReadError::Syntax(format!("it nests more than {MAX_NESTING} levels deep")))
        }
        "toml" => {
            let table: toml::Table =
                toml::from_str(text).map_err(|e| ReadError::Syntax(e.message().to_owned()))?;
            Ok(from_toml(&toml::Value::Table(table)))
        }
        "json" => {
            // `tsconfig.json` and friends are JSON with comments and trailing commas (what
            // TypeScript's own config reader takes): a file strict JSON refuses is read again
            // without them.
            let json: serde_json::Value = serde_json::from_str(text)
                .or_else(|e| serde_json::from_str(&without_jsonc(text)).map_err(|_| e))
                .map_err(|e| ReadError::Syntax(e.to_string()))?;
            Ok(from_json(&json))
        }
        "yml" | "yaml" => yaml::parse(text),
        _ => Ok(js::evaluate(root, rel, text, None)),
    }
}

/// The export `name` of the JavaScript or TypeScript module `rel` (content-relative):
/// Fumadocs's `export const docs = defineDocs({ dir })`.
pub(crate) fn read_export(root: &Path, rel: &str, name: &str) -> Result<Value, ReadError> {
    let text = read_text(root, rel)?;
    Ok(js::evaluate(root, rel, &text, Some(name)))
}

/// JSON with comments (`//`, `/* */`) and trailing commas as plain JSON: comments become
/// spaces, a comma before `}` or `]` is dropped; strings are left as they are.
fn without_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
                out.push(b' ');
            }
            b',' => {
                let next =
                    bytes[i + 1..].iter().position(|b| !b.is_ascii_whitespace()).map(|at| bytes[i + 1 + at]);
                if !matches!(next, Some(b'}' | b']')) {
                    out.push(b',');
                }
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

fn from_toml(value: &toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::Str(s.clone()),
        toml::Value::Integer(n) => Value::Number(*n as f64),
        toml::Value::Float(n) => Value::Number(*n),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::Str(d.to_string()),
        toml::Value::Array(items) => Value::List(items.iter().map(from_toml).collect()),
        toml::Value::Table(table) => Value::Map(Map {
            entries: table.iter().map(|(k, v)| (k.clone(), from_toml(v))).collect(),
            partial: None,
        }),
    }
}

/// A JSON value as a config value.
pub(crate) fn from_json(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(items) => Value::List(items.iter().map(from_json).collect()),
        serde_json::Value::Object(map) => Value::Map(Map {
            entries: map.iter().map(|(k, v)| (k.clone(), from_json(v))).collect(),
            partial: None,
        }),
    }
}

#[cfg(test)]
mod tests;
