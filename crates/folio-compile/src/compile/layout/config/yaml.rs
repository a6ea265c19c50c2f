//! YAML config files (`mkdocs.yml`, Hugo's `hugo.yaml`) as config values, through the
//! frontmatter's bounded YAML reader. MkDocs loads its config with PyYAML's full loader plus tags
//! of its own, so real files carry tags a plain YAML reader refuses or misreads:
//! `!!python/name:material.extensions.emoji.twemoji` (a Python object: unknown), `!ENV [SITE_URL,
//! 'https://…']` (an environment variable, else the last item as its default: what a CI run
//! without the variable gets) and `!relative $config_dir` (a path only MkDocs resolves).

use super::{Map, ReadError, Value};
use crate::compile::frontmatter::parse_yaml;
use crate::compile::frontmatter::yaml::{Node, NodeValue};

/// Parses one YAML document.
pub(super) fn parse(text: &str) -> Result<Value, ReadError> {
    let node =
        parse_yaml(text, 1).map_err(|e| ReadError::Syntax(format!("line {}: {}", e.line, e.message)))?;
    Ok(convert(&node))
}

fn convert(node: &Node) -> Value {
    match node.tag.as_deref() {
        Some(tag) if tag.starts_with("tag:yaml.org,2002:python/") => {
            let what = tag.trim_start_matches("tag:yaml.org,2002:");
            return Value::Unknown(format!("the Python object `!!{what}`"));
        }
        Some("!ENV") => return env(node),
        Some(tag @ "!relative") => return Value::Unknown(format!("a path MkDocs resolves (`{tag}`)")),
        _ => {}
    }
    match &node.value {
        NodeValue::Scalar(..) => match node.to_json() {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap_or(0.0)),
            serde_json::Value::String(s) => Value::Str(s),
            other => super::from_json(&other),
        },
        NodeValue::Seq(items) => Value::List(items.iter().map(convert).collect()),
        NodeValue::Map(entries) => Value::Map(Map {
            entries: entries.iter().map(|(k, v)| (k.key_text(), convert(v))).collect(),
            partial: None,
        }),
    }
}

/// MkDocs's `!ENV NAME` and `!ENV [NAME, OTHER, default]`: the first variable that is set, else
/// the last item when it is not a variable name. Folio reads no environment for a tree (the
/// same tree must check the same everywhere), so a value is known only through its default.
fn env(node: &Node) -> Value {
    let names: Vec<String> = match &node.value {
        NodeValue::Scalar(s, _) => vec![s.clone()],
        NodeValue::Seq(items) => items.iter().map(Node::key_text).collect(),
        NodeValue::Map(_) => Vec::new(),
    };
    match &node.value {
        NodeValue::Seq(items) if items.len() >= 2 => convert(&items[items.len() - 1]),
        _ => Value::Unknown(format!("the environment variable `{}`", names.join("`, `"))),
    }
}
