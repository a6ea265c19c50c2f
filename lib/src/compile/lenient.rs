//! Serving what is sound: compiles a tree for `folio serve --content` (and a server that
//! recompiles a live tree) so that an entry whose own content has errors is left out instead of
//! the whole tree being refused.
//!
//! Owns the decision of what is left out: every error of class [`Class::Entry`] names the entry
//! it belongs to (a skill's directory for anything inside a skill, else the doc); link errors
//! never remove an entry and do not block; an error of class [`Class::Unsound`] (or one that
//! belongs to no entry, such as a bad `folio.toml`) still refuses the tree. Must not print: the
//! caller reports [`Lenient::left_out`].

use std::collections::BTreeMap;

use super::diagnostic::Diagnostic;
use super::lints::{Class, Gate, lookup};
use super::{Compilation, Config, compile, source};
use crate::catalog::LeftOut;

/// What [`lenient`] produced.
#[derive(Debug)]
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
    let Some(owners) = owners(&config, &first.diagnostics) else {
        return Lenient { compilation: first, left_out: Vec::new() };
    };
    config.exclude = owners.keys().map(|path| exclude_form(path)).collect();
    let mut second = compile(&config);
    // What the first compile could not read because the tree moved is not read again (it may
    // be left out): the second must not look settled.
    second.unsettled |= first.unsettled;
    let left_out: Vec<LeftOut> = owners
        .into_iter()
        .map(|(path, reasons)| LeftOut { path, reasons: reasons.iter().map(|d| reason(d)).collect() })
        .collect();
    if let Some(catalog) = &mut second.catalog {
        catalog.settings.left_out = left_out.clone();
    }
    Lenient { compilation: second, left_out }
}

/// The entries the blocking errors belong to, each with its errors; `None` when an error belongs
/// to no entry or may not be left behind (the tree is refused).
fn owners<'d>(config: &Config, diags: &'d [Diagnostic]) -> Option<BTreeMap<String, Vec<&'d Diagnostic>>> {
    let mut owners: BTreeMap<String, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diags.iter().filter(|d| config.gate.blocks(d)) {
        if lookup(d.code).is_none_or(|c| c.class != Class::Entry) {
            return None;
        }
        let owner = if d.path.starts_with("skills/") {
            source::skill_dir_of(&config.root, &d.path)?
        } else if d.path.starts_with("docs/") {
            d.path.clone()
        } else {
            return None;
        };
        owners.entry(owner).or_default().push(d);
    }
    Some(owners)
}

/// How [`Config::exclude`] names an owner: a skill directory ends in `/`.
fn exclude_form(path: &str) -> String {
    if path.starts_with("skills/") { format!("{path}/") } else { path.to_owned() }
}

/// One line for a left-out entry: `path:line:column: code: message`.
fn reason(d: &Diagnostic) -> String {
    format!("{}:{}:{}: {}: {}", d.path, d.line, d.column, d.code, d.message)
}
