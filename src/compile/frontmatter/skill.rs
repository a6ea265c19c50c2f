//! The SKILL.md schema: the Agent Skills fields, Folio's catalog fields and the reference
//! manifest, read from a frontmatter block with every rule the specification sets (name shape and
//! length, description and compatibility lengths, types) and the YAML that hosts re-parse
//! differently flagged.
//!
//! Cross-file skill rules (limits, manifests against the files, unique names) are `validate`'s.
//! Pure: no IO. Diagnostics name the file given by the caller.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{
    Located, Node, NodeValue, Parsed, Style, date_of, dedup_keys, list_of, parse_block, parse_date, text_of,
    yaml11_non_string,
};
use crate::compile::diagnostic::Diagnostic;
use crate::compile::suggest::closest;

/// Most characters a skill `name` may have (Agent Skills specification).
pub const MAX_NAME_CHARS: usize = 64;
/// Most characters a skill `description` may have (Agent Skills specification).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Most characters a skill `compatibility` may have (Agent Skills specification).
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// One entry of a skill's explicit reference manifest (`references:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefDecl {
    /// `id`, unique within the skill.
    pub id: Located<String>,
    /// `path`, relative to the skill directory, as written.
    pub path: Located<String>,
    /// `title`.
    pub title: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `mime_type`.
    pub mime_type: Option<String>,
}

/// Typed frontmatter of a SKILL.md.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillMeta {
    /// `name`, with its position.
    pub name: Option<Located<String>>,
    /// `description`.
    pub description: Option<String>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `metadata` (string → string).
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`.
    pub allowed_tools: Option<String>,
    /// `tags`.
    pub tags: Vec<String>,
    /// `capabilities`.
    pub capabilities: Vec<String>,
    /// `version`.
    pub version: Option<String>,
    /// `updated`/`last_updated`, else `metadata.updated`, normalised.
    pub updated: Option<String>,
    /// The explicit reference manifest, if declared, and the position of its `references` key.
    pub references: Option<(Vec<RefDecl>, u32, u32)>,
    /// The whole frontmatter as a JSON object with sorted keys (SEP-2640 `frontmatter`).
    pub frontmatter: Value,
}

/// Keys a SKILL.md may hold: the Agent Skills fields, then Folio's catalog fields.
pub const SKILL_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "tags",
    "capabilities",
    "version",
    "references",
    "updated",
    "last_updated",
];

/// Parses a SKILL.md's frontmatter and checks its fields: `missing-name`, `invalid-name`,
/// `name-mismatch` (against `dir_name`, the skill directory's name), `missing-description`,
/// `description-too-long`, `compatibility-too-long`, `unknown-field`, `frontmatter-type`,
/// `invalid-date`, and `frontmatter-ambiguous` for YAML that parsers read differently.
pub fn parse_skill<'a>(
    path: &str,
    dir_name: &str,
    text: &'a str,
    diags: &mut Vec<Diagnostic>,
) -> Parsed<'a, SkillMeta> {
    let (split, entries) = parse_block(path, text, diags);
    let mut meta = SkillMeta {
        name: None,
        description: None,
        license: None,
        compatibility: None,
        metadata: BTreeMap::new(),
        allowed_tools: None,
        tags: Vec::new(),
        capabilities: Vec::new(),
        version: None,
        updated: None,
        references: None,
        frontmatter: Value::Object(serde_json::Map::new()),
    };
    let broken = entries.is_none();
    let entries = dedup_keys(path, entries.unwrap_or_default(), diags);
    let sorted: BTreeMap<String, Value> = entries.iter().map(|(k, _, v)| (k.clone(), v.to_json())).collect();
    meta.frontmatter = Value::Object(sorted.into_iter().collect());
    let mut description_at = None;
    let mut last_updated = None;
    for (key, k, v) in &entries {
        flag_yaml_features(path, v, diags);
        let key = key.as_str();
        match key {
            "name" | "description" | "license" | "compatibility" | "allowed-tools" | "version" => {
                let value = skill_text(path, key, v, diags);
                match key {
                    "name" => {
                        meta.name = value.map(|value| Located { value, line: v.line, column: v.column })
                    }
                    "description" => {
                        description_at = Some((v.line, v.column));
                        meta.description = value;
                    }
                    "license" => meta.license = value,
                    "compatibility" => {
                        if let Some(c) = &value {
                            let n = c.chars().count();
                            if n > MAX_COMPATIBILITY_CHARS {
                                diags.push(Diagnostic::error(
                                    "compatibility-too-long",
                                    path,
                                    v.line,
                                    v.column,
                                    format!("`compatibility` has {n} characters, more than {MAX_COMPATIBILITY_CHARS}"),
                                ));
                            }
                        }
                        meta.compatibility = value;
                    }
                    "allowed-tools" => meta.allowed_tools = value,
                    _ => meta.version = value,
                }
            }
            "tags" | "capabilities" => {
                let items = list_of(path, key, v, diags);
                if let NodeValue::Seq(nodes) = &v.value {
                    for item in nodes {
                        flag_plain_non_string(path, key, item, diags);
                    }
                }
                let items = items.into_iter().map(|l| l.value).collect();
                if key == "tags" { meta.tags = items } else { meta.capabilities = items }
            }
            "metadata" => meta.metadata = skill_metadata(path, v, diags),
            "references" => meta.references = Some((references(path, v, diags), k.line, k.column)),
            "updated" => meta.updated = date_of(path, key, v, diags),
            "last_updated" => last_updated = date_of(path, key, v, diags),
            _ => diags.push(
                Diagnostic::warning(
                    "unknown-field",
                    path,
                    k.line,
                    k.column,
                    format!("unknown field `{key}` in SKILL.md"),
                )
                .with_help(match closest(key, SKILL_KEYS.iter().copied()) {
                    Some(near) => format!("did you mean `{near}`? known fields: {}", SKILL_KEYS.join(", ")),
                    None => {
                        format!("known fields: {}; put custom keys under `metadata`", SKILL_KEYS.join(", "))
                    }
                }),
            ),
        }
    }
    meta.updated =
        meta.updated.or(last_updated).or_else(|| meta.metadata.get("updated").and_then(|d| parse_date(d)));
    if !broken {
        check_skill_fields(path, dir_name, &mut meta, description_at, diags);
    }
    Parsed { meta, body: split.body, body_line: split.body_line }
}

fn check_skill_fields(
    path: &str,
    dir_name: &str,
    meta: &mut SkillMeta,
    description_at: Option<(u32, u32)>,
    diags: &mut Vec<Diagnostic>,
) {
    match &meta.name {
        None => diags.push(
            Diagnostic::error("missing-name", path, 1, 1, "SKILL.md frontmatter lacks `name`")
                .with_help(format!("add `name: {}` to the frontmatter", suggested_name(dir_name))),
        ),
        Some(name) if name.value.trim().is_empty() => diags.push(
            Diagnostic::error("missing-name", path, name.line, name.column, "SKILL.md `name` is empty")
                .with_help(format!("set `name: {}`", suggested_name(dir_name))),
        ),
        Some(name) if !is_valid_name(&name.value) => {
            let n = name.value.chars().count();
            let why = if n > MAX_NAME_CHARS {
                format!("has {n} characters, more than {MAX_NAME_CHARS}")
            } else {
                "must be lowercase letters, digits and single hyphens (`^[a-z0-9]+(-[a-z0-9]+)*$`)".to_owned()
            };
            diags.push(
                Diagnostic::error(
                    "invalid-name",
                    path,
                    name.line,
                    name.column,
                    format!("skill name `{}` {why}", name.value),
                )
                .with_help(format!("use `{}`", suggested_name(&name.value))),
            );
        }
        Some(name) if name.value != dir_name => diags.push(
            Diagnostic::error(
                "name-mismatch",
                path,
                name.line,
                name.column,
                format!("skill name `{}` differs from its directory name `{dir_name}`", name.value),
            )
            .with_help(format!("rename the directory to `{}` or set `name: {dir_name}`", name.value)),
        ),
        Some(_) => {}
    }
    match (&meta.description, description_at) {
        (Some(d), Some((line, column))) if !d.trim().is_empty() => {
            let n = d.chars().count();
            if n > MAX_DESCRIPTION_CHARS {
                diags.push(
                    Diagnostic::error(
                        "description-too-long",
                        path,
                        line,
                        column,
                        format!("`description` has {n} characters, more than {MAX_DESCRIPTION_CHARS}"),
                    )
                    .with_help("say what the skill does and when to use it in a few sentences; move detail into the body"),
                );
            }
        }
        (_, at) => {
            let (line, column) = at.unwrap_or((1, 1));
            diags.push(
                Diagnostic::error(
                    "missing-description",
                    path,
                    line,
                    column,
                    "SKILL.md frontmatter lacks a `description`",
                )
                .with_help("add `description:` saying what the skill does and when an agent should use it"),
            );
            meta.description = None;
        }
    }
}

/// True for a valid skill name: `^[a-z0-9]+(-[a-z0-9]+)*$`, at most 64 characters.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name.split('-').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// A valid name close to `s`: lowercased, other characters turned into single hyphens.
fn suggested_name(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(MAX_NAME_CHARS).collect();
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() { "my-skill".to_owned() } else { out }
}

/// A text field of a skill: must be a scalar; a plain scalar that some reader would not take as a
/// string is a `frontmatter-ambiguous` warning (the text as written is used).
fn skill_text(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let text = text_of(path, key, v, diags)?;
    flag_plain_non_string(path, key, v, diags);
    Some(text)
}

fn flag_plain_non_string(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) {
    if let Some((s, Style::Plain)) = v.scalar()
        && !v.is_null()
        && yaml11_non_string(s)
    {
        diags.push(
            Diagnostic::warning(
                "frontmatter-ambiguous",
                path,
                v.line,
                v.column,
                format!("`{key}` value `{s}` is unquoted, and some YAML parsers read it as {}", kind_for(s)),
            )
            .with_help(format!("quote it: `\"{s}\"`")),
        );
    }
}

fn kind_for(s: &str) -> &'static str {
    if parse_date(s).is_some() {
        "a date"
    } else if s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
        "a number"
    } else {
        "a boolean or null"
    }
}

/// Reports anchors, aliases and tags anywhere under a skill field (`frontmatter-ambiguous`):
/// hosts re-parse SKILL.md with their own YAML reader and compare field by field.
fn flag_yaml_features(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) {
    let what = if v.aliased {
        Some("an alias (`*name`)")
    } else if v.anchored {
        Some("an anchor (`&name`)")
    } else if v.tagged {
        Some("a tag (`!tag`)")
    } else {
        None
    };
    if let Some(what) = what {
        diags.push(
            Diagnostic::warning(
                "frontmatter-ambiguous",
                path,
                v.line,
                v.column,
                format!("SKILL.md frontmatter uses {what}, which YAML readers do not all support alike"),
            )
            .with_help("write the value out in full"),
        );
        // One warning per written feature: an alias's expansion is not reported again.
        if v.aliased {
            return;
        }
    }
    match &v.value {
        NodeValue::Scalar(..) => {}
        NodeValue::Seq(items) => items.iter().for_each(|i| flag_yaml_features(path, i, diags)),
        NodeValue::Map(entries) => entries.iter().for_each(|(k, v)| {
            flag_yaml_features(path, k, diags);
            flag_yaml_features(path, v, diags);
        }),
    }
}

fn skill_metadata(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match &v.value {
        _ if v.is_null() => {}
        NodeValue::Map(entries) => {
            for (k, val) in entries {
                let key = k.key_text();
                if let Some(text) = skill_text(path, &format!("metadata.{key}"), val, diags) {
                    out.insert(key, text);
                }
            }
        }
        _ => diags.push(Diagnostic::error(
            "frontmatter-type",
            path,
            v.line,
            v.column,
            format!("`metadata` must be a mapping of strings to strings, found {}", v.type_name()),
        )),
    }
    out
}

/// Parses the explicit reference manifest; shape problems are `frontmatter-type`.
fn references(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Vec<RefDecl> {
    let NodeValue::Seq(items) = &v.value else {
        if !v.is_null() {
            diags.push(
                Diagnostic::error(
                    "frontmatter-type",
                    path,
                    v.line,
                    v.column,
                    format!(
                        "`references` must be a list of `{{id, path}}` mappings, found {}",
                        v.type_name()
                    ),
                )
                .with_help("write `references:` followed by `- id: api` / `  path: references/api.md` items"),
            );
        }
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let NodeValue::Map(entries) = &item.value else {
            diags.push(Diagnostic::error(
                "frontmatter-type",
                path,
                item.line,
                item.column,
                format!("each reference must be a mapping with `id` and `path`, found {}", item.type_name()),
            ));
            continue;
        };
        let (mut id, mut file, mut title, mut description, mut mime_type) = (None, None, None, None, None);
        for (k, val) in entries {
            let key = k.key_text();
            let field = format!("references.{key}");
            let located = |text: Option<String>| {
                text.map(|value| Located { value, line: val.line, column: val.column })
            };
            match key.as_str() {
                "id" => id = located(skill_text(path, &field, val, diags)),
                "path" => file = located(skill_text(path, &field, val, diags)),
                "title" => title = skill_text(path, &field, val, diags),
                "description" => description = skill_text(path, &field, val, diags),
                "mime_type" => mime_type = skill_text(path, &field, val, diags),
                _ => diags.push(
                    Diagnostic::warning(
                        "unknown-field",
                        path,
                        k.line,
                        k.column,
                        format!("unknown reference field `{key}`"),
                    )
                    .with_help("known fields: id, path, title, description, mime_type"),
                ),
            }
        }
        if let Some(id) = &id {
            let ok = !id.value.is_empty()
                && id
                    .value
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'));
            if !ok {
                diags.push(Diagnostic::error(
                    "frontmatter-type",
                    path,
                    id.line,
                    id.column,
                    format!("reference id `{}` must match `[a-z0-9._-]+`", id.value),
                ));
            }
        }
        match (id, file) {
            (Some(id), Some(file)) => out.push(RefDecl { id, path: file, title, description, mime_type }),
            (id, file) => {
                let missing = if id.is_none() && file.is_none() {
                    "`id` and `path`"
                } else if id.is_none() {
                    "`id`"
                } else {
                    "`path`"
                };
                diags.push(Diagnostic::error(
                    "frontmatter-type",
                    path,
                    item.line,
                    item.column,
                    format!("reference lacks {missing}"),
                ));
            }
        }
    }
    out
}
