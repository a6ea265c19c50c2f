//! Serving what is sound: compiles a tree for `folio serve --content` (and a server that
//! recompiles a live tree) so that an entry whose own content has errors is left out instead of
//! the whole tree being refused.
//!
//! Owns the decision of what is left out: every error of class [`Class::Entry`] names the entry
//! it belongs to (a skill's directory for anything inside a skill, else the doc); link errors
//! never remove an entry and do not block; an error of class [`Class::Unsound`] (or one that
//! belongs to no entry, such as a bad `folio.toml`) still refuses the tree, but for the two that
//! leaving an entry out removes (see `owners`): one entry never refuses the whole tree for the
//! rest. Must not print: the
//! caller reports [`Lenient::left_out`].

use std::collections::BTreeMap;

use super::diagnostic::{Code, Diagnostic};
use super::layout::Layout;
use super::lints::{Class, Gate};
use super::{Compilation, Config, compile, source};
use crate::catalog::LeftOut;

/// What [`lenient`] produced. (It will gain fields: read it, do not build it.)
#[derive(Debug)]
#[non_exhaustive]
pub struct Lenient {
    /// The compilation of what is served: its catalog lists [`Lenient::left_out`] in its
    /// settings. `catalog` is `None` when the tree is refused all the same (see the module docs);
    /// `diagnostics` then holds what refused it.
    pub compilation: Compilation,
    /// The entries left out, with the errors that left each out, sorted by path.
    pub left_out: Vec<LeftOut>,
}

/// Compiles `config.root`, leaving out every entry whose own content has errors. `config.gate`
/// and `config.exclude` are set here; the levels of `config.lints` apply as they do to a build.
///
/// A tree without such errors compiles once; otherwise it compiles a second time without the
/// left-out entries (which stay valid link targets, without a URI).
pub fn lenient(config: &Config) -> Lenient {
    lenient_with(config, &mut |c: &Config| compile(c))
}

/// [`lenient`] with an incremental compile ([`compile_incremental`](super::compile_incremental)):
/// what a server following a tree runs on every save.
pub fn lenient_incremental(config: &Config, cache: &mut super::Cache) -> Lenient {
    lenient_with(config, &mut |c: &Config| super::compile_incremental(c, cache))
}

fn lenient_with(config: &Config, compile: &mut dyn FnMut(&Config) -> Compilation) -> Lenient {
    let mut config = Config { gate: Gate::Lenient, exclude: Vec::new(), ..config.clone() };
    let first = compile(&config);
    if first.catalog.is_some() {
        return Lenient { compilation: first, left_out: Vec::new() };
    }
    let Some(owners) = owners(&config, &first.layout, &first.diagnostics) else {
        return Lenient { compilation: first, left_out: Vec::new() };
    };
    config.exclude = owners.keys().map(|path| exclude_form(path)).collect();
    let mut second = compile(&config);
    // What the first compile could not read because the tree moved is not read again (it may
    // be left out): the second must not look settled.
    second.unsettled |= first.unsettled;
    let left_out: Vec<LeftOut> = owners
        .into_iter()
        .map(|(path, reasons)| LeftOut {
            path: first.layout.real(&config.root, &path),
            reasons: reasons.iter().map(|d| reason(d)).collect(),
        })
        .collect();
    if let Some(catalog) = &mut second.catalog {
        catalog.settings.left_out = left_out.clone();
    }
    Lenient { compilation: second, left_out }
}

/// The entries the blocking errors belong to, each with its errors; `None` when an error belongs
/// to no entry or may not be left behind (the tree is refused).
///
/// Two unsound codes can be left behind with an entry, because leaving the entry out removes
/// what made the catalog wrong: a `path-escape` inside a skill or under `docs/` (nothing was read
/// through the link; its skill, or the link itself, is left out, so nothing that was read through
/// that path before stays served either), and a `duplicate-skill-name`: the skill left out for
/// errors of its own when one of the two is (a copied skill whose `name` is not its folder's),
/// else the one the duplicate is reported on (the later by path), so the first is served.
///
/// Diagnostics name real paths; owners are catalog paths (what [`Config::exclude`] takes).
fn owners<'d>(
    config: &Config,
    layout: &Layout,
    diags: &'d [Diagnostic],
) -> Option<BTreeMap<String, Vec<&'d Diagnostic>>> {
    let mut owners: BTreeMap<String, Vec<&Diagnostic>> = BTreeMap::new();
    let mut duplicates = Vec::new();
    for d in diags.iter().filter(|d| config.gate.blocks(d)) {
        match d.code.class() {
            Class::Entry => {}
            _ if d.code == Code::PathEscape => {}
            _ if d.code == Code::DuplicateSkillName => {
                duplicates.push(d);
                continue;
            }
            _ => return None,
        }
        owners.entry(owner(config, layout, &d.path)?).or_default().push(d);
    }
    for d in duplicates {
        let skill_of = |real: &str| source::skill_dir_of(&config.root, layout, &layout.logical(real)?);
        let here = skill_of(&d.path);
        let first = super::validate::duplicate_of(d).and_then(skill_of);
        // A skill left out for errors of its own explains the clash; else the skill the
        // duplicate is reported on (the later by path) is left out, and the first one served.
        let explained = [here.clone(), first].into_iter().flatten().find(|dir| owners.contains_key(dir));
        owners.entry(explained.or(here)?).or_default().push(d);
    }
    // In the order diagnostics are reported.
    for reasons in owners.values_mut() {
        reasons.sort_by(|a, b| (&a.path, a.line, a.column, a.code).cmp(&(&b.path, b.line, b.column, b.code)));
    }
    Some(owners)
}

/// The entry the real path `path` belongs to, as a catalog path: its skill's directory under
/// `skills/`, the doc itself under `docs/`; `None` for anything else (`folio.toml`, the root).
fn owner(config: &Config, layout: &Layout, path: &str) -> Option<String> {
    let path = layout.logical(path)?;
    if path.starts_with("skills/") {
        source::skill_dir_of(&config.root, layout, &path)
    } else if path.starts_with("docs/") {
        Some(path)
    } else {
        None
    }
}

/// How [`Config::exclude`] names an owner: a skill directory ends in `/`.
fn exclude_form(path: &str) -> String {
    if path.starts_with("skills/") { format!("{path}/") } else { path.to_owned() }
}

/// One line for a left-out entry: `path:line:column: code: message`.
fn reason(d: &Diagnostic) -> String {
    format!("{}:{}:{}: {}: {}", d.path, d.line, d.column, d.code, d.message)
}
