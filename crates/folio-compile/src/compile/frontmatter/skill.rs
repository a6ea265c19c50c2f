//! The SKILL.md schema: the Agent Skills fields at the top level, host-defined fields flagged
//! with the host that reads them, every other top-level field refused (`unknown-field`: extra
//! properties belong under `metadata`), Folio's catalog fields read from `metadata`, and the YAML
//! that hosts or the official validator read differently flagged.
//!
//! Values are judged as a YAML 1.2 core-schema loader types them (`name: 123` is a number, not a
//! string), because SEP-2640 hosts compare the served `frontmatter` with their own parse.
//!
//! Cross-file skill rules (limits, unique names) are `validate`'s. Pure: no IO. Diagnostics name
//! the file given by the caller.

use std::collections::BTreeMap;

use serde_json::Value;
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization as _;

use super::{
    Frontmatter, Located, Node, NodeValue, Style, dedup_keys, parse_block, parse_date, yaml11_non_string,
};
use crate::compile::diagnostic::{Code, Diagnostic, Severity};
use crate::suggest::closest_name as closest;

/// Most characters a skill `name` may have (Agent Skills specification).
pub(crate) const MAX_NAME_CHARS: usize = 64;
/// Most characters a skill `description` may have (Agent Skills specification).
pub(crate) const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Most characters a skill `compatibility` may have (Agent Skills specification).
pub(crate) const MAX_COMPATIBILITY_CHARS: usize = 500;

/// Typed frontmatter of a SKILL.md.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SkillMeta {
    /// `name`, with its position.
    pub name: Option<Located<String>>,
    /// `description`.
    pub description: Option<String>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `metadata` (string → string; entries whose value is not a string are left out).
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`.
    pub allowed_tools: Option<String>,
    /// `metadata.tags`, split at commas.
    pub tags: Vec<String>,
    /// `metadata.capabilities`, split at commas.
    pub capabilities: Vec<String>,
    /// `metadata.version`.
    pub version: Option<String>,
    /// `metadata.updated`, normalised.
    pub updated: Option<String>,
    /// The whole frontmatter as a JSON object with sorted keys (SEP-2640 `frontmatter`): the
    /// core-schema value of every key, extra fields included.
    pub frontmatter: Value,
}

/// The top-level fields of the Agent Skills specification.
pub(crate) const SKILL_KEYS: &[&str] =
    &["name", "description", "license", "compatibility", "metadata", "allowed-tools"];

/// Top-level fields a major host defines outside the specification, with the hosts that read
/// them: Claude Code's skills documentation (frontmatter reference) and VS Code's Agent Skills
/// reference (GitHub Copilot), which documents three of the same fields.
pub(crate) const HOST_KEYS: &[(&str, &str)] = &[
    ("agent", "Claude Code"),
    ("argument-hint", "Claude Code and VS Code"),
    ("context", "Claude Code"),
    ("disable-model-invocation", "Claude Code and VS Code"),
    ("effort", "Claude Code"),
    ("hooks", "Claude Code"),
    ("model", "Claude Code"),
    ("paths", "Claude Code"),
    ("shell", "Claude Code"),
    ("user-invocable", "Claude Code and VS Code"),
    ("when_to_use", "Claude Code"),
];

/// Parses a SKILL.md's frontmatter and checks its fields: `missing-name`, `invalid-name`,
/// `name-mismatch` (against `dir_name`, the skill directory's name), `missing-description`,
/// `description-too-long`, `compatibility-too-long`, `unknown-field`, `host-field`,
/// `frontmatter-type`, `duplicate-key`, `invalid-date`, `byte-order-mark`, and
/// `frontmatter-ambiguous` for YAML that readers take differently.
pub(crate) fn parse_skill<'a>(
    path: &str,
    dir_name: &str,
    text: &'a str,
    diags: &mut Vec<Diagnostic>,
) -> Frontmatter<'a, SkillMeta> {
    if text.starts_with("\u{feff}---") {
        diags.push(
            Diagnostic::warning(
                Code::ByteOrderMark,
                path,
                1,
                1,
                "SKILL.md starts with a byte-order mark before `---`; the official validator and \
                 readers that do not strip it find no frontmatter",
            )
            .with_help("save the file as UTF-8 without a BOM"),
        );
    }
    // Hugo's `+++` TOML block is a doc's frontmatter only: the Agent Skills specification (and
    // its validator) read YAML between `---` lines and find no frontmatter in a TOML block.
    let (split, entries) = if super::split(text).toml {
        diags.push(
            Diagnostic::error(
                Code::FrontmatterSyntax,
                path,
                1,
                1,
                "SKILL.md frontmatter is TOML (`+++`); the Agent Skills specification reads YAML between `---` lines",
            )
            .with_help("write the frontmatter as YAML: `---`, then `name: …` and `description: …`, then `---`"),
        );
        (super::split(text), None)
    } else {
        parse_block(path, text, false, diags)
    };
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
        frontmatter: Value::Object(serde_json::Map::new()),
    };
    let broken = entries.is_none();
    let entries = dedup_keys(path, entries.unwrap_or_default(), Severity::Error, diags);
    let sorted: BTreeMap<String, Value> = entries.iter().map(|(k, _, v)| (k.clone(), v.to_json())).collect();
    meta.frontmatter = Value::Object(sorted.into_iter().collect());
    let mut description_at = None;
    // A `name` or `description` of the wrong type is reported as such, not as missing too.
    let mut mistyped = (false, false);
    for (key, k, v) in &entries {
        flag_yaml_features(path, v, diags);
        let key = key.as_str();
        match key {
            "name" => {
                meta.name = spec_text(path, key, v, diags).map(|value| Located {
                    value,
                    line: v.line,
                    column: v.column,
                });
                mistyped.0 = meta.name.is_none() && !v.is_null();
            }
            "description" => {
                description_at = Some((v.line, v.column));
                meta.description = spec_text(path, key, v, diags);
                mistyped.1 = meta.description.is_none() && !v.is_null();
            }
            "license" => meta.license = spec_text(path, key, v, diags),
            "allowed-tools" => meta.allowed_tools = allowed_tools(path, v, diags),
            "compatibility" => {
                meta.compatibility = spec_text(path, key, v, diags);
                check_compatibility(path, v, meta.compatibility.as_deref(), diags);
            }
            "metadata" => meta.metadata = skill_metadata(path, v, diags),
            _ => diags.push(extra_field(path, key, k)),
        }
    }
    read_folio_fields(path, &entries, &mut meta, diags);
    if !broken {
        let mut found = Vec::new();
        check_skill_fields(path, dir_name, &mut meta, description_at, &mut found);
        found.retain(|d| {
            !(mistyped.0 && d.code == Code::MissingName || mistyped.1 && d.code == Code::MissingDescription)
        });
        diags.extend(found);
    }
    Frontmatter { meta, body: split.body, body_line: split.body_line }
}

/// A top-level field outside the specification: a warning naming the host that reads it, or an
/// `unknown-field` error.
fn extra_field(path: &str, key: &str, k: &Node) -> Diagnostic {
    if let Some((_, host)) = HOST_KEYS.iter().find(|(h, _)| *h == key) {
        return Diagnostic::warning(
            Code::HostField,
            path,
            k.line,
            k.column,
            format!(
                "`{key}` is read by {host}; other hosts ignore it, and the official validator refuses it"
            ),
        )
        .with_help(format!(
            "keep it for {host}, or move it under `metadata:` for a skill every host validates"
        ));
    }
    let help = match closest(key, SKILL_KEYS.iter().copied()) {
        Some(near) => format!("did you mean `{near}`? otherwise move it under `metadata:`"),
        None => {
            format!("move it under `metadata:` (as a string); top-level fields are {}", SKILL_KEYS.join(", "))
        }
    };
    Diagnostic::error(
        Code::UnknownField,
        path,
        k.line,
        k.column,
        format!(
            "`{key}` is not an Agent Skills field; the specification allows only {}",
            SKILL_KEYS.join(", ")
        ),
    )
    .with_help(help)
}

/// `compatibility`, when present, has 1 to 500 characters.
fn check_compatibility(path: &str, v: &Node, value: Option<&str>, diags: &mut Vec<Diagnostic>) {
    let Some(c) = value else { return };
    let n = c.chars().count();
    if n > MAX_COMPATIBILITY_CHARS {
        diags.push(Diagnostic::error(
            Code::CompatibilityTooLong,
            path,
            v.line,
            v.column,
            format!("`compatibility` has {n} characters, more than {MAX_COMPATIBILITY_CHARS}"),
        ));
    } else if n == 0 {
        diags.push(
            Diagnostic::error(
                Code::CompatibilityTooLong,
                path,
                v.line,
                v.column,
                "`compatibility` is empty; when present it must have 1 to 500 characters",
            )
            .with_help("remove the field, or say what the skill needs (a product, packages, network access)"),
        );
    }
}

/// Folio's catalog fields, read from `metadata`: `tags` and `capabilities` (comma-separated),
/// `version`, `updated` (a date).
fn read_folio_fields(
    path: &str,
    entries: &[(String, Node, Node)],
    meta: &mut SkillMeta,
    diags: &mut Vec<Diagnostic>,
) {
    let list = |s: &str| {
        s.split(',').map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned).collect::<Vec<_>>()
    };
    meta.tags = meta.metadata.get("tags").map(|s| list(s)).unwrap_or_default();
    meta.capabilities = meta.metadata.get("capabilities").map(|s| list(s)).unwrap_or_default();
    meta.version = meta.metadata.get("version").cloned();
    let Some(updated) = meta.metadata.get("updated") else { return };
    meta.updated = parse_date(updated);
    if meta.updated.is_none() {
        let at = entries
            .iter()
            .find(|(k, ..)| k == "metadata")
            .and_then(|(_, _, v)| match &v.value {
                NodeValue::Map(m) => {
                    m.iter().find(|(k, _)| k.key_text() == "updated").map(|(_, v)| (v.line, v.column))
                }
                _ => None,
            })
            .unwrap_or((1, 1));
        diags.push(
            Diagnostic::error(
                Code::InvalidDate,
                path,
                at.0,
                at.1,
                format!("`metadata.updated` is not a valid date: `{updated}`"),
            )
            .with_help("use `YYYY-MM-DD` or an RFC 3339 date-time such as `2026-01-31T09:30:00Z`, quoted"),
        );
    }
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
            Diagnostic::error(Code::MissingName, path, 1, 1, "SKILL.md frontmatter lacks `name`")
                .with_help(format!("add `name: {}` to the frontmatter", suggested_name(dir_name))),
        ),
        Some(name) if name.value.trim().is_empty() => diags.push(
            Diagnostic::error(Code::MissingName, path, name.line, name.column, "SKILL.md `name` is empty")
                .with_help(format!("set `name: {}`", suggested_name(dir_name))),
        ),
        Some(name) => check_name(path, dir_name, name, diags),
    }
    match (&meta.description, description_at) {
        (Some(d), Some((line, column))) if !d.trim().is_empty() => {
            let n = d.chars().count();
            if n > MAX_DESCRIPTION_CHARS {
                diags.push(
                    Diagnostic::error(
                        Code::DescriptionTooLong,
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
                    Code::MissingDescription,
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

/// The name rules, applied as the specification and its validator do: to the name's NFKC form
/// (a warning when that differs from the name as written, since hosts that do not normalise see
/// another name), which must be at most 64 characters of Unicode lowercase letters, digits and
/// single inner hyphens, and equal the NFKC form of the directory's name.
fn check_name(path: &str, dir_name: &str, name: &Located<String>, diags: &mut Vec<Diagnostic>) {
    let written = name.value.as_str();
    let folded: String = written.nfkc().collect();
    if folded != written {
        diags.push(
            Diagnostic::warning(
                Code::InvalidName,
                path,
                name.line,
                name.column,
                format!("skill name `{written}` reads as `{folded}` once Unicode-normalised (NFKC)"),
            )
            .with_help(format!("write `name: {folded}` (and name the directory so): hosts that compare names as written see two names")),
        );
    }
    if let Some(why) = name_problem(&folded) {
        diags.push(
            Diagnostic::error(
                Code::InvalidName,
                path,
                name.line,
                name.column,
                format!("skill name `{written}` {why}"),
            )
            .with_help(format!("use `{}`", suggested_name(&folded))),
        );
        return;
    }
    let dir_folded: String = dir_name.nfkc().collect();
    if dir_folded != folded {
        diags.push(
            Diagnostic::error(
                Code::NameMismatch,
                path,
                name.line,
                name.column,
                format!("skill name `{written}` differs from its directory name `{dir_name}`"),
            )
            .with_help(format!("rename the directory to `{written}` or set `name: {dir_name}`")),
        );
    }
}

/// Why `name` (already NFKC-normalised) breaks the specification's name rule, if it does.
fn name_problem(name: &str) -> Option<String> {
    let n = name.chars().count();
    if n > MAX_NAME_CHARS {
        return Some(format!("has {n} characters, more than {MAX_NAME_CHARS}"));
    }
    if name.to_lowercase() != name {
        return Some("must be lowercase".to_owned());
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("must not start or end with a hyphen".to_owned());
    }
    if name.contains("--") {
        return Some("must not contain consecutive hyphens".to_owned());
    }
    if let Some(c) = name.chars().find(|&c| !(is_name_char(c) || c == '-')) {
        return Some(format!(
            "contains `{}`: only lowercase letters, digits and hyphens are allowed",
            c.escape_default()
        ));
    }
    None
}

/// A letter or digit a name may hold: the general categories Python's `str.isalnum()` accepts
/// once uppercase and titlecase letters are out (the validator requires `name.lower() == name`),
/// which are also the ones rmcp's SEP-2640 check accepts. Combining marks (vowel signs) are not.
fn is_name_char(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::LowercaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
            | GeneralCategory::DecimalNumber
            | GeneralCategory::LetterNumber
            | GeneralCategory::OtherNumber
    )
}

/// A valid name close to `s`: lowercased, other characters turned into single hyphens.
fn suggested_name(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        if is_name_char(c) {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(MAX_NAME_CHARS).collect();
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() { "my-skill".to_owned() } else { out }
}

/// A text field of the specification: its core-schema value must be a string. A null value
/// counts as absent; a number, boolean, list or mapping is `frontmatter-type`; a plain string
/// that a YAML 1.1 reader would type is a `frontmatter-ambiguous` warning.
/// `allowed-tools`: the specification writes one space-separated string (`Read Grep`). A YAML
/// list of strings, which the official validator and Claude Code accept, is read as that string
/// with a warning.
fn allowed_tools(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let NodeValue::Seq(items) = &v.value else { return spec_text(path, "allowed-tools", v, diags) };
    let tools: Option<Vec<String>> = items
        .iter()
        .map(|item| match (&item.value, item.to_json()) {
            (NodeValue::Scalar(s, _), Value::String(_)) => Some(s.clone()),
            _ => None,
        })
        .collect();
    let Some(tools) = tools else { return spec_text(path, "allowed-tools", v, diags) };
    let joined = tools.join(" ");
    diags.push(
        Diagnostic::warning(
            Code::FrontmatterType,
            path,
            v.line,
            v.column,
            "`allowed-tools` is a YAML list; the Agent Skills specification writes it as one space-separated \
             string (the official validator accepts both)",
        )
        .with_help(format!("write `allowed-tools: {joined}`")),
    );
    Some(joined)
}

fn spec_text(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    string_value(path, key, v, diags)
}

fn string_value(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let value = v.to_json();
    match (&v.value, value) {
        (_, Value::Null) => None,
        (NodeValue::Scalar(s, style), Value::String(_)) => {
            if *style == Style::Plain && v.tag.is_none() && yaml11_non_string(s) {
                diags.push(
                    Diagnostic::warning(
                        Code::FrontmatterAmbiguous,
                        path,
                        v.line,
                        v.column,
                        format!(
                            "`{key}` value `{s}` is unquoted, and YAML 1.1 parsers read it as {}",
                            kind_for(s)
                        ),
                    )
                    .with_help(format!("quote it: `\"{s}\"`")),
                );
            }
            Some(s.clone())
        }
        (NodeValue::Scalar(s, _), typed) => {
            let kind = match typed {
                Value::Bool(_) => "a boolean",
                _ => "a number",
            };
            diags.push(
                Diagnostic::error(
                    Code::FrontmatterType,
                    path,
                    v.line,
                    v.column,
                    format!("`{key}` must be a string, but YAML reads `{s}` as {kind}"),
                )
                .with_help(format!("quote it: `{}: \"{s}\"`", key.rsplit('.').next().unwrap_or(key))),
            );
            None
        }
        _ => {
            let field = key.rsplit('.').next().unwrap_or(key);
            diags.push(
                Diagnostic::error(
                    Code::FrontmatterType,
                    path,
                    v.line,
                    v.column,
                    format!("`{key}` must be a string, found {}", v.type_name()),
                )
                .with_help(match &v.value {
                    NodeValue::Seq(_) => format!("write the items as one string: `{field}: \"a, b\"`"),
                    _ => format!("write one string: `{field}: \"…\"`"),
                }),
            );
            None
        }
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

/// Reports anchors, aliases, tags and flow collections anywhere under a skill field
/// (`frontmatter-ambiguous`, an error): hosts re-parse SKILL.md with their own YAML reader and
/// compare field by field, and the official validator (strictyaml) refuses all four. Duplicate
/// keys in nested mappings are `duplicate-key` errors.
fn flag_yaml_features(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) {
    let what = if v.aliased {
        Some("an alias (`*name`)")
    } else if v.anchored {
        Some("an anchor (`&name`)")
    } else if v.tag.is_some() {
        Some("a tag (`!tag`)")
    } else if v.flow {
        Some("a flow collection (`[…]` or `{…}`)")
    } else {
        None
    };
    if let Some(what) = what {
        diags.push(
            Diagnostic::error(
                Code::FrontmatterAmbiguous,
                path,
                v.line,
                v.column,
                format!("SKILL.md frontmatter uses {what}, which the official validator refuses and YAML readers do not all support alike"),
            )
            .with_help(if v.flow {
                "write it in block style, one item per line, or as a single string"
            } else {
                "write the value out in full"
            }),
        );
        // One report per written feature: an alias's expansion is not reported again.
        if v.aliased {
            return;
        }
    }
    match &v.value {
        NodeValue::Scalar(..) => {}
        NodeValue::Seq(items) => items.iter().for_each(|i| flag_yaml_features(path, i, diags)),
        NodeValue::Map(entries) => {
            let mut seen: BTreeMap<String, u32> = BTreeMap::new();
            for (k, val) in entries {
                let key = k.key_text();
                if let Some(first) = seen.get(&key) {
                    diags.push(duplicate_key(path, &key, k, *first, Severity::Error));
                } else {
                    seen.insert(key, k.line);
                }
                flag_yaml_features(path, k, diags);
                flag_yaml_features(path, val, diags);
            }
        }
    }
}

/// A key written twice in one mapping.
pub(super) fn duplicate_key(
    path: &str,
    key: &str,
    k: &Node,
    first_line: u32,
    severity: Severity,
) -> Diagnostic {
    let d = match severity {
        Severity::Error => Diagnostic::error(
            Code::DuplicateKey,
            path,
            k.line,
            k.column,
            format!(
                "key `{key}` appears twice (first on line {first_line}); YAML forbids it and readers disagree on which wins"
            ),
        ),
        _ => Diagnostic::warning(
            Code::FrontmatterAmbiguous,
            path,
            k.line,
            k.column,
            format!(
                "key `{key}` appears twice (first on line {first_line}); YAML parsers disagree on which wins"
            ),
        ),
    };
    d.with_help("keep one of them")
}

/// `metadata`: a mapping of string keys to string values (core-schema typed: `version: 1.0` is a
/// number, and an error).
fn skill_metadata(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match &v.value {
        _ if v.is_null() => {}
        NodeValue::Map(entries) => {
            for (k, val) in entries {
                let key = k.key_text();
                if !matches!(k.to_json(), Value::String(_)) {
                    diags.push(
                        Diagnostic::error(
                            Code::FrontmatterType,
                            path,
                            k.line,
                            k.column,
                            format!(
                                "`metadata` keys must be strings, but YAML reads `{key}` as {}",
                                k.type_name()
                            ),
                        )
                        .with_help(format!("quote it: `\"{key}\":`")),
                    );
                    continue;
                }
                let field = format!("metadata.{key}");
                if val.is_null() {
                    diags.push(
                        Diagnostic::error(
                            Code::FrontmatterType,
                            path,
                            val.line,
                            val.column,
                            format!("`{field}` must be a string, found null"),
                        )
                        .with_help(format!("give it a value, such as `{key}: \"\"`, or remove it")),
                    );
                } else if let Some(text) = string_value(path, &field, val, diags) {
                    out.insert(key, text);
                }
            }
        }
        _ => diags.push(
            Diagnostic::error(
                Code::FrontmatterType,
                path,
                v.line,
                v.column,
                format!("`metadata` must be a mapping of strings to strings, found {}", v.type_name()),
            )
            .with_help("write `metadata:` followed by indented `key: \"value\"` lines"),
        ),
    }
    out
}
