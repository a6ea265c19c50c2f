//! Assembles the [`Catalog`] from the processed files: settings, entries (the exact bytes are
//! moved, never copied), docs and skills with their defaults, reference ids, links and
//! backlinks, the source fingerprint and the search index. Runs the cross-file rules of
//! `validate` and the link resolution of `links` on the way. The per-file records and their
//! defaults are made in `records` (`entry_record` and `doc_record` on the parallel stage).
//!
//! Pure: no IO. Deterministic: every collection is sorted by an explicit key. The search index
//! is built on a scoped thread while the calling thread resolves links and gathers backlinks
//! (the index needs only the assembled records); each result lands in a slot chosen by index, so
//! which thread finishes first never reaches the catalog.

mod records;

use std::collections::BTreeMap;

use super::diagnostic::Diagnostic;
use super::frontmatter::SkillMeta;
use super::links::{self, LinkSource, Origin, Targets};
use super::markdown::Markdown;
use super::source::Kind;
use super::{Config, Parsed, Processed, lints, settings, validate};
use crate::catalog::{self, Catalog, Doc, Entry, Link, Skill, SkillFile};
pub(crate) use records::first_sentences;
use records::skill_record;
pub(super) use records::{doc_record, entry_record};

/// What [`build`] produced.
#[derive(Debug)]
pub(crate) struct Built {
    /// The catalog (the caller drops it when there are errors).
    pub catalog: Option<Catalog>,
    /// `[check] deny_warnings` from `folio.toml`.
    pub deny_warnings: bool,
    /// The lint levels in force.
    pub levels: lints::Levels,
    /// The base path link resolution worked out from the links ([`links::Resolution::inferred_base`]).
    pub inferred_base: Option<String>,
    /// Links checked, and of those unverified ([`links::Resolution::checked`]).
    pub links: (usize, usize),
}

/// A doc's analysis still needed for link resolution once its [`Doc`] is made.
struct Pending {
    /// Content-relative path.
    path: String,
    /// Position of its entry in path order (before entries are sorted by URI).
    entry: usize,
    markdown: Markdown,
}

/// Builds the catalog from processed files (in path order; `n_docs` of them docs), adding every
/// cross-file diagnostic. Returns no catalog, and builds no search index (the costliest stage),
/// when errors were found.
/// `unserved` are the files under `docs/` that are not docs: valid link targets without a URI.
/// With `assemble` false, it stops once every diagnostic is known (what `folio check` needs).
pub(crate) fn build(
    files: impl ExactSizeIterator<Item = Processed>,
    n_docs: usize,
    dicts: Vec<super::index::TermDict>,
    unserved: &[String],
    assemble: bool,
    (config, layout): (&Config, &super::layout::Layout),
    diags: &mut Vec<Diagnostic>,
) -> Built {
    let site = &layout.site;
    let Gathered { settings, framed, mut entries, mut bodies, mut small, mut out_docs, pending, skills } =
        gather(files, n_docs, diags);

    let mut uris: Vec<(&str, &str)> = entries.iter().map(|e| (e.uri.as_str(), e.path.as_str())).collect();
    uris.sort();
    validate::unique_uris(&uris, diags);
    drop(uris);
    check_skills(&skills, layout, diags);
    // Every per-file and per-skill problem is known: the project's levels apply from here, so
    // an error it lowers does not stop the catalog.
    let levels = lints::Levels::new(settings.lints.iter().chain(&config.lints));
    levels.apply(diags);
    let gate = config.gate;

    // Every doc's locale: its `docs/<locale>/` folder, else the tree's default locale.
    // A generator's config names its locales (one folder is then a locale too); the folders
    // named like locales are added (VitePress's config leaves out the folder it rewrites to
    // the root).
    let from_config = site.locales.as_ref().map(|listed| {
        let detected = super::locales::Locales::new(out_docs.iter().map(|d| d.path.as_str()), None, None);
        let mut all = listed.clone();
        all.extend(detected.folders);
        all.sort();
        all.dedup();
        all
    });
    let locales = super::locales::Locales::new(
        out_docs.iter().map(|d| d.path.as_str()),
        settings.locales.as_deref().or(from_config.as_deref()),
        settings.default_locale.as_deref(),
    );
    set_locales(&mut out_docs, &locales);

    // Docs are stored by path: the files' order, since every doc path is its file's without
    // the shared `docs/`.
    debug_assert!(out_docs.is_sorted_by(|a, b| a.path <= b.path));
    // Skills that have a SKILL.md, by directory: the ones whose links are resolved. Every skill
    // directory is under `skills/`, so this is also the order of their paths.
    let mut skill_list: Vec<(String, SkillParts)> =
        skills.into_iter().filter(|(_, p)| p.document.is_some()).collect();

    // Entries are sorted by URI and docs and skill records assembled (without their links) only
    // when no error is known yet.
    let assemble = assemble && !diags.iter().any(|d| gate.blocks(d));
    let mut out_skills = Vec::new();
    // Per item of `skill_list`: its position in `out_skills`.
    let mut skill_records: Vec<Option<usize>> = vec![None; skill_list.len()];
    if assemble {
        let rank = sort_by_uri(&mut entries, &mut bodies, &mut small);
        for (doc, p) in out_docs.iter_mut().zip(&pending) {
            doc.entry = rank[p.entry];
        }
        out_skills = skill_records_of(&mut skill_list, &mut skill_records, &rank, layout);
    }

    let mut ignore = settings.ignore_links.clone();
    ignore.extend(site.hook_links.iter().cloned());
    let pre = super::index::Pretokenized { dicts, bodies, small };
    let (Linked { diagnostics, doc_links, skill_links, inferred_base, links, .. }, backlinks, search) =
        std::thread::scope(|scope| {
            // The search index reads only the assembled records, not the links: it is built on
            // its own thread while this one resolves the links and gathers the backlinks, whose
            // serial stretches used to leave a core idle. (When resolution finds an error the
            // index is thrown away; only `folio build` of a broken tree pays for it.)
            let index = if assemble {
                let (entries, docs, skills) = (&entries, &out_docs, &out_skills);
                Some(scope.spawn(move || super::index::build_with(entries, docs, skills, pre)))
            } else {
                drop(pre);
                None
            };
            let skills = SkillsView { list: &skill_list, records: &skill_records, out: &out_skills };
            let mut linked = resolve_links(
                &entries,
                &out_docs,
                pending,
                skills,
                (ignore, &locales, site),
                unserved,
                assemble,
            );
            levels.apply(&mut linked.diagnostics);
            let clean = !diags.iter().chain(&linked.diagnostics).any(|d| gate.blocks(d));
            let backlinks = (assemble && clean)
                .then(|| backlinks(&entries, &out_docs, &linked.doc_served, skills, &linked.skill_served));
            // A panic in the index thread is a bug; re-raise it here.
            let search = index.map(crate::parallel::join);
            (linked, backlinks, search)
        });
    diags.extend(diagnostics);
    let (Some(mut backlinks), Some(search)) = (backlinks, search) else {
        // With no catalog to make (`folio check`, or a tree with errors), all of it goes, freed
        // on a thread of its own beside the report: freeing it here cost `folio check` 9% more
        // CPU on the 20,000-doc corpus (5 paired runs), after the last diagnostic was known.
        let garbage = (entries, out_docs, out_skills, skill_list, doc_links, skill_links);
        let _ = std::thread::Builder::new().name("folio-free".into()).spawn(move || drop(garbage));
        return Built { catalog: None, deny_warnings: settings.deny_warnings, levels, inferred_base, links };
    };

    attach_links(&mut out_docs, doc_links, &mut out_skills, &skill_records, skill_links, &mut backlinks);
    debug_assert!(out_skills.is_sorted_by(|a, b| a.path <= b.path));

    // The skills' parse results (their links and anchors) are no longer needed.
    drop(skill_list);
    let catalog = Catalog {
        settings: catalog::Settings {
            default_locale: locales.default.to_ascii_lowercase(),
            version: config.version.clone().or(settings.settings.version),
            ..settings.settings
        },
        source_fingerprint: blake3::hash(&framed).to_hex().to_string(),
        entries,
        docs: out_docs,
        skills: out_skills,
        search,
        // Vectors are the `folio` crate's to add (its `semantic` feature): the compiler runs no model.
        vectors: None,
    };
    Built { catalog: Some(catalog), deny_warnings: settings.deny_warnings, levels, inferred_base, links }
}

/// Each doc's locale (its `docs/<locale>/` folder, else the tree's default) and translation key,
/// where its frontmatter set neither.
fn set_locales(docs: &mut [Doc], locales: &super::locales::Locales) {
    for doc in docs {
        if doc.locale.is_empty() {
            doc.locale = locales.locale_of(&doc.path);
        }
        if doc.translation_key.is_empty() {
            doc.translation_key = locales.page_of(&doc.path);
        }
    }
}

/// Puts the resolved links, and the backlinks by entry, into the doc and skill records
/// (`skill_records[i]`: where item `i` of the skill list went in `skills`, if anywhere).
fn attach_links(
    docs: &mut [Doc],
    doc_links: Vec<Vec<Link>>,
    skills: &mut [Skill],
    skill_records: &[Option<usize>],
    skill_links: Vec<Vec<Link>>,
    backlinks: &mut [Vec<String>],
) {
    for (doc, links) in docs.iter_mut().zip(doc_links) {
        doc.links = links.into();
        doc.backlinks = std::mem::take(&mut backlinks[doc.entry as usize]).into();
    }
    for (record, links) in skill_records.iter().zip(skill_links) {
        if let Some(i) = *record {
            let skill = &mut skills[i];
            skill.links = links.into();
            skill.backlinks = std::mem::take(&mut backlinks[skill.document as usize]).into();
        }
    }
}

/// Every processed file sorted into what the later phases need, in path order.
struct Gathered {
    settings: settings::Project,
    /// What the source fingerprint hashes, gathered here and hashed once at the end (the same
    /// bytes as four small hasher updates per file, without a call into the hasher for each).
    framed: Vec<u8>,
    entries: Vec<Entry>,
    /// Tokenized bodies and small fields, by position in `entries` (path order until entries are
    /// sorted by URI).
    bodies: Vec<Option<super::index::BodyTerms>>,
    small: Vec<Option<super::index::SmallTerms>>,
    /// Docs by path, and what link resolution needs of each.
    out_docs: Vec<Doc>,
    pending: Vec<Pending>,
    skills: BTreeMap<String, SkillParts>,
}

/// Takes the processed files apart: each file's entry (with its bytes moved in), its doc record
/// or its share of a skill, its search terms and its frame of the source fingerprint.
fn gather(
    files: impl ExactSizeIterator<Item = Processed>,
    n_docs: usize,
    diags: &mut Vec<Diagnostic>,
) -> Gathered {
    let mut parsed_settings = settings::Project::default();
    let mut framed: Vec<u8> = Vec::with_capacity(files.len() * 96);
    let mut entries: Vec<Entry> = Vec::with_capacity(files.len());
    let mut bodies: Vec<Option<super::index::BodyTerms>> = Vec::with_capacity(files.len());
    let mut small: Vec<Option<super::index::SmallTerms>> = Vec::with_capacity(files.len());
    // Sized up front: a doc is large, and growing by doubling copied them all several times.
    let mut out_docs: Vec<Doc> = Vec::with_capacity(n_docs);
    let mut pending: Vec<Pending> = Vec::with_capacity(n_docs);
    let mut skills: BTreeMap<String, SkillParts> = BTreeMap::new();
    for file in files {
        // The fingerprint covers every input, folio.toml included, in path order. Each file is
        // framed by its path, length and blake3 (computed in parallel), which identifies its bytes
        // as well as hashing them again would.
        let Processed { found, bytes, size, blake3, entry, parsed, body_terms, small_terms } = file;
        framed.extend_from_slice(&(found.path.len() as u64).to_le_bytes());
        framed.extend_from_slice(found.path.as_bytes());
        framed.extend_from_slice(&size.to_le_bytes());
        // Unhashed only when checking, which makes no catalog.
        framed.extend_from_slice(&blake3.map_or([0; 32], |h| *h.as_bytes()));
        // Only `folio.toml` has no entry.
        let Some(mut entry) = entry else {
            parsed_settings = settings::parse(&found.path, &bytes, diags);
            continue;
        };
        entry.bytes = bytes.into();
        let at = entries.len();
        bodies.push(body_terms);
        small.push(small_terms);
        match (found.kind, parsed) {
            (Kind::Doc, parsed) => {
                let (doc, markdown) = match parsed {
                    Parsed::Doc(doc, markdown) => (*doc, markdown),
                    // Not UTF-8: a doc all the same, with the defaults.
                    _ => {
                        let mut markdown = Markdown::default();
                        (doc_record(&found.path, super::DocMeta::default(), &mut markdown), markdown)
                    }
                };
                out_docs.push(doc);
                pending.push(Pending { path: found.path, entry: at, markdown });
            }
            (Kind::SkillDocument { skill_dir }, parsed) => {
                let parts = skills.entry(skill_dir).or_default();
                parts.document_lines = entry.total_lines;
                parts.document_size = entry.size;
                if let Parsed::Skill(meta, mut markdown) = parsed {
                    parts.meta = Some(meta);
                    let mentions = std::mem::take(&mut markdown.mentions);
                    parts.markdown = markdown;
                    parts.mentions.push((found.path.clone(), String::new(), mentions));
                }
                parts.document = Some((found.path, at));
            }
            (Kind::SkillFile { skill_dir }, parsed) => {
                let rel = found.path[skill_dir.len() + 1..].to_owned();
                let parts = skills.entry(skill_dir).or_default();
                let mut about = (None, None);
                if let Parsed::SkillMarkdown(mut markdown, title, description) = parsed {
                    let mentions = std::mem::take(&mut markdown.mentions);
                    parts.markdown_files.push((found.path.clone(), markdown));
                    let file_dir = rel.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
                    parts.mentions.push((found.path.clone(), file_dir, mentions));
                    about = (title, description);
                }
                parts.files.push(PartFile {
                    rel,
                    size: entry.size,
                    at,
                    title: about.0,
                    description: about.1,
                });
            }
            (Kind::Settings, _) => unreachable!("settings were handled above"),
        }
        entries.push(entry);
    }
    Gathered { settings: parsed_settings, framed, entries, bodies, small, out_docs, pending, skills }
}

/// Runs the per-skill rules (limits, mentioned files) and the unique-name rule, which holds
/// within a host's scope (two Claude Code plugins may each ship `access`).
fn check_skills(
    skills: &BTreeMap<String, SkillParts>,
    layout: &super::layout::Layout,
    diags: &mut Vec<Diagnostic>,
) {
    let mut names = Vec::new();
    let mut scoped = Vec::new();
    for (dir, parts) in skills {
        let Some((document, _)) = &parts.document else { continue };
        let mut files: Vec<(&str, u64)> = parts.files.iter().map(|f| (f.rel.as_str(), f.size)).collect();
        files.push(("SKILL.md", parts.document_size));
        files.sort();
        let rels: Vec<&str> = files.iter().map(|(rel, _)| *rel).collect();
        for (path, file_dir, mentions) in &parts.mentions {
            super::mentions::check(path, dir, file_dir, &rels, mentions, diags);
        }
        let shape = validate::SkillShape { document, dir, files, document_lines: parts.document_lines };
        validate::skill(&shape, diags);
        if let Some(name) = parts.meta.as_ref().and_then(|m| m.name.as_ref()) {
            match layout.scope_of(dir) {
                Some(scope) => scoped.push((document.as_str(), validate::scoped_name(scope, name))),
                None => names.push((document.as_str(), name)),
            }
        }
    }
    names.extend(scoped.iter().map(|(document, name)| (*document, name)));
    validate::skill_names(&names, diags);
}

/// Sorts the entries (and their search terms) by URI, and returns each old position's new one.
/// URIs are unique here: duplicates are errors, and nothing is assembled after an error.
fn sort_by_uri(
    entries: &mut Vec<Entry>,
    bodies: &mut Vec<Option<super::index::BodyTerms>>,
    small: &mut Vec<Option<super::index::SmallTerms>>,
) -> Vec<u32> {
    // `order[new] = old`, `rank[old] = new`.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_unstable_by(|&a, &b| entries[a].uri.cmp(&entries[b].uri));
    let mut rank = vec![0u32; entries.len()];
    for (new, &old) in order.iter().enumerate() {
        rank[old] = u32::try_from(new).expect("fewer than 2^32 entries");
    }
    *entries = permute(std::mem::take(entries), &order);
    *bodies = permute(std::mem::take(bodies), &order);
    *small = permute(std::mem::take(small), &order);
    rank
}

/// The skill records, without their links, for every skill whose frontmatter parsed; sets each
/// one's position in `records`. A file's `ref_id` is its path in the skill.
fn skill_records_of(
    skill_list: &mut [(String, SkillParts)],
    records: &mut [Option<usize>],
    rank: &[u32],
    layout: &super::layout::Layout,
) -> Vec<Skill> {
    let mut out_skills = Vec::new();
    for ((dir, parts), record) in skill_list.iter_mut().zip(records.iter_mut()) {
        let Some(meta) = parts.meta.take() else { continue };
        let document = parts.document.as_ref().map_or(0, |(_, at)| rank[*at]);
        let mut skill_files: Vec<SkillFile> = std::mem::take(&mut parts.files)
            .into_iter()
            .map(|f| SkillFile {
                ref_id: f.rel.clone(),
                rel_path: f.rel,
                entry: rank[f.at],
                title: f.title,
                description: f.description,
            })
            .collect();
        skill_files.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
        // The title and sections move into the record; link resolution reads the section
        // anchors from its outline.
        let title = parts.markdown.title.take();
        let sections = std::mem::take(&mut parts.markdown.sections);
        *record = Some(out_skills.len());
        let mut skill = skill_record(dir, *meta, title, sections, document, skill_files);
        if let Some(scope) = layout.scope_of(dir) {
            skill.name = format!("{scope}:{}", skill.name);
        }
        out_skills.push(skill);
    }
    // Records are sorted by skill path. Directory order is that order, except where a hidden
    // collection folder is left out of the path (`skills/.system/a` is skill `a`).
    if !out_skills.is_sorted_by(|a, b| a.path <= b.path) {
        let mut order: Vec<usize> = (0..out_skills.len()).collect();
        order.sort_by(|&a, &b| out_skills[a].path.cmp(&out_skills[b].path));
        let mut place = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            place[old] = new;
        }
        for record in records.iter_mut().flatten() {
            *record = place[*record];
        }
        let mut slots: Vec<Option<Skill>> = out_skills.into_iter().map(Some).collect();
        out_skills = order.iter().map(|&old| slots[old].take().expect("each record moves once")).collect();
    }
    out_skills
}

/// The skills as link resolution sees them.
#[derive(Clone, Copy)]
struct SkillsView<'a> {
    /// Skills with a SKILL.md, by directory.
    list: &'a [(String, SkillParts)],
    /// Per item of `list`: its record in `out`, when assembled.
    records: &'a [Option<usize>],
    out: &'a [Skill],
}

/// What [`resolve_links`] found.
struct Linked {
    diagnostics: Vec<Diagnostic>,
    /// See [`links::Resolution::inferred_base`].
    inferred_base: Option<String>,
    /// Links checked and unverified.
    links: (usize, usize),
    /// Per doc, in `docs` order.
    doc_links: Vec<Vec<Link>>,
    /// Per item of [`SkillsView::list`].
    skill_links: Vec<Vec<Link>>,
    /// [`links::Resolution::served`] of each doc, in `docs` order.
    doc_served: Vec<Vec<u32>>,
    /// [`links::Resolution::served`] of each item of [`SkillsView::list`].
    skill_served: Vec<Vec<u32>>,
}

/// The sections of a record built here: held decoded, so [`catalog::Lazy::get`] cannot fail.
fn outline_of(outline: &catalog::Lazy<Vec<catalog::Section>>) -> &[catalog::Section] {
    outline.get().map_or(&[], Vec::as_slice)
}

/// Resolves the links of every doc and SKILL.md against every served file and heading. Without
/// `keep_links` (no catalog will hold them), only the diagnostics are made.
/// Every skill's name and directory name: what a `/name` host command reference may name.
fn skill_names<'a>(skills: SkillsView<'a>) -> std::collections::BTreeSet<&'a str> {
    let mut names = std::collections::BTreeSet::new();
    for ((dir, parts), record) in skills.list.iter().zip(skills.records) {
        names.insert(dir.rsplit('/').next().unwrap_or(dir));
        // A scoped skill (`plugin:access`) is named either way.
        if let Some(scoped) = record.and_then(|i| skills.out[i].name.split_once(':')) {
            names.insert(scoped.1);
        }
        let name = match record {
            Some(i) => Some(skills.out[*i].name.as_str()),
            None => parts.meta.as_ref().and_then(|m| m.name.as_ref()).map(|n| n.value.as_str()),
        };
        names.extend(name);
    }
    names
}

fn resolve_links(
    entries: &[Entry],
    docs: &[Doc],
    pending: Vec<Pending>,
    skills: SkillsView<'_>,
    (ignore, locales, site): (Vec<String>, &super::locales::Locales, &super::layout::SiteRules),
    unserved: &[String],
    keep_links: bool,
) -> Linked {
    // Borrowed, and collected (sorted once, then bulk-built) rather than inserted one by one.
    let mut anchors: Vec<(&str, links::Anchors<'_>)> = Vec::with_capacity(pending.len() + skills.list.len());
    for (doc, p) in docs.iter().zip(&pending) {
        // The outline was moved out of the markdown; the other anchors are still there.
        let ids = outline_of(&doc.outline).iter().map(|s| s.id.as_str());
        anchors.push((&p.path, ids.chain(p.markdown.anchors()).collect()));
    }
    for ((_, parts), record) in skills.list.iter().zip(skills.records) {
        if let Some((path, _)) = &parts.document {
            // When assembled, the sections moved into the record's outline.
            let outline = record.map(|i| outline_of(&skills.out[i].outline)).unwrap_or_default();
            anchors.push((
                path,
                outline.iter().map(|s| s.id.as_str()).chain(parts.markdown.anchors()).collect(),
            ));
        }
        for (path, markdown) in &parts.markdown_files {
            anchors.push((path, markdown.anchors().collect()));
        }
    }
    let mut targets = Targets {
        uri_by_path: entries.iter().map(|e| (e.path.as_str(), e.uri.as_str())).collect(),
        anchors_by_path: anchors.into_iter().collect(),
        other_files: unserved.iter().map(String::as_str).collect(),
        ignore,
        aliases: BTreeMap::new(),
        skill_dirs: skills.list.iter().map(|(dir, _)| dir.as_str()).collect(),
        skill_names: skill_names(skills),
        locale_folders: locales.folders.iter().map(String::as_str).collect(),
        default_locale: (!locales.folders.is_empty()).then_some(locales.default.as_str()),
        site: site.clone(),
        locale_suffixes: locales.suffixes.iter().map(String::as_str).collect(),
        open_anchors: pending.iter().filter(|p| p.markdown.generated).map(|p| p.path.as_str()).collect(),
    };
    // The first doc to claim an alias keeps it: the first in path order.
    let mut claims: Vec<(&Doc, &Pending)> = docs.iter().zip(&pending).collect();
    claims.sort_by_key(|(_, p)| p.entry);
    for (doc, p) in claims {
        for alias in &doc.aliases {
            targets.add_alias(&super::links::page_alias(alias, &p.path), &p.path);
        }
        // A page's own route, where its frontmatter sets one (Docusaurus and Starlight `slug`,
        // Docusaurus `id`): served there instead of at its file's path.
        for route in frontmatter_routes(doc, &p.path) {
            targets.add_alias(&route, &p.path);
        }
    }
    let mut sources: Vec<LinkSource<'_>> = Vec::with_capacity(pending.len() + skills.list.len());
    for p in &pending {
        sources.push(LinkSource { path: &p.path, origin: Origin::Doc, links: &p.markdown.links });
    }
    for (dir, parts) in skills.list {
        let (path, _) = parts.document.as_ref().expect("listed skills have a SKILL.md");
        sources.push(LinkSource {
            path,
            origin: Origin::SkillDocument { skill_dir: dir.clone() },
            links: &parts.markdown.links,
        });
    }
    // A skill's other markdown files last: their links are checked but not stored.
    for (dir, parts) in skills.list {
        for (path, markdown) in &parts.markdown_files {
            sources.push(LinkSource {
                path,
                origin: Origin::SkillFile { skill_dir: dir.clone() },
                links: &markdown.links,
            });
        }
    }
    // The site's navigation (its config files' links) last, as a page of its own: what it
    // links to is linked. Its problems are the config file's, not a page's: not reported.
    // A sidebar lists each locale's translation of its pages (Starlight, Docusaurus).
    let mut nav_links = site.nav_links.clone();
    for locale in locales.folders.iter().filter(|l| **l != locales.default) {
        nav_links.extend(site.nav_links.iter().map(|link| match link.strip_prefix('/') {
            Some(rest) => format!("/{locale}/{rest}"),
            None => format!("{locale}/{link}"),
        }));
    }
    let nav_text: String =
        nav_links.iter().map(|link| format!("[]({})\n", link.replace(' ', "%20"))).collect();
    let nav = super::markdown::analyze(&nav_text, 1);
    if !nav.links.is_empty() {
        sources.push(LinkSource { path: NAV_PATH, origin: Origin::Doc, links: &nav.links });
    }
    let mut resolution =
        if keep_links { links::resolve(&sources, &targets) } else { links::diagnose(&sources, &targets) };
    resolution.diagnostics.retain(|d| d.path != NAV_PATH);
    drop(sources);
    drop(targets);
    // The raw links are resolved now: freed before the search index peaks.
    drop(pending);

    let (doc_links, skill_links) = per_source(resolution.links, docs.len(), skills.list.len());
    let (doc_served, skill_served) = per_source(resolution.served, docs.len(), skills.list.len());
    Linked {
        diagnostics: resolution.diagnostics,
        inferred_base: resolution.inferred_base,
        links: (resolution.checked, resolution.unverified),
        doc_links,
        skill_links,
        doc_served,
        skill_served,
    }
}

/// The routes a doc's frontmatter gives it: `slug` (from the site root when it starts with `/`,
/// else from the doc's folder), `id` (the file name's replacement), both relative to `docs/`,
/// and Hugo's `url` (the page's whole path from the site root, `/events/gsoc-2024/`).
fn frontmatter_routes(doc: &Doc, path: &str) -> Vec<String> {
    let Ok(extra) = doc.extra.get() else { return Vec::new() };
    let rel = path.strip_prefix("docs/").unwrap_or(path);
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let within = |name: &str| if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") };
    let mut out = Vec::new();
    if let Some(slug) = extra.get("slug").and_then(|v| v.as_str()).filter(|s| !s.is_empty()) {
        out.push(if slug.starts_with('/') { slug.to_owned() } else { within(slug) });
    }
    if let Some(id) = extra.get("id").and_then(|v| v.as_str()).filter(|s| !s.is_empty() && !s.contains('/')) {
        out.push(within(id));
    }
    if let Some(url) = extra.get("url").and_then(|v| v.as_str()).filter(|u| u.starts_with('/') && u.len() > 1)
    {
        out.push(url.trim_end_matches('/').to_owned());
    }
    out
}

const NAV_PATH: &str = links::NAVIGATION;

/// A per-source list of [`links::Resolution`] split into its docs' (the first `docs`) and its
/// listed skills' SKILL.md (the next `skills`); the skills' other files, last, are not kept.
fn per_source<T>(items: Vec<Vec<T>>, docs: usize, skills: usize) -> (Vec<Vec<T>>, Vec<Vec<T>>) {
    debug_assert!(items.len() >= docs + skills, "one list per source");
    let mut items = items.into_iter();
    let docs = items.by_ref().take(docs).collect();
    let skills = items.take(skills).collect();
    (docs, skills)
}

/// Per entry (sorted by URI, with every doc's and skill record's entry index set): the URIs of
/// the docs and SKILL.md files linking to it, sorted and deduplicated (self-links are not
/// backlinks). `doc_served` and `skill_served` are what each doc and listed skill links to
/// ([`links::Resolution::served`]). Large trees have many links, so they become (target, source)
/// entry index pairs sorted once; entries are sorted by URI, so the order of the indices is the
/// order of the URIs.
fn backlinks(
    entries: &[Entry],
    docs: &[Doc],
    doc_served: &[Vec<u32>],
    skills: SkillsView<'_>,
    skill_served: &[Vec<u32>],
) -> Vec<Vec<String>> {
    let skill_linking = skills
        .records
        .iter()
        .zip(skill_served)
        .filter_map(|(record, served)| record.map(|i| (skills.out[i].document, served)));
    let linking = docs.iter().map(|d| d.entry).zip(doc_served).chain(skill_linking);
    // A served file's position in path order (how resolution names it) to its entry index. The
    // entries are sorted by URI, nearly always path order too, which the sort only checks. (Each
    // link's entry was found by hashing its URI: a hash and a compare of a cold string each, for
    // hundreds of thousands of links on a large tree.)
    let mut by_path: Vec<u32> = (0..u32::try_from(entries.len()).expect("fewer than 2^32 entries")).collect();
    by_path.sort_unstable_by(|&a, &b| entries[a as usize].path.cmp(&entries[b as usize].path));
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (own, served) in linking {
        for &id in served {
            let target = by_path[id as usize];
            if target != own {
                pairs.push((target, own));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    let mut out: Vec<Vec<String>> = entries.iter().map(|_| Vec::new()).collect();
    for group in pairs.chunk_by(|a, b| a.0 == b.0) {
        out[group[0].0 as usize] = group.iter().map(|&(_, s)| entries[s as usize].uri.clone()).collect();
    }
    out
}

/// `items` reordered so that item `i` of the result is `items[order[i]]`; `order` is a
/// permutation.
fn permute<T>(items: Vec<T>, order: &[usize]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    order.iter().map(|&i| slots[i].take().expect("a permutation takes each item once")).collect()
}

/// A skill's SKILL.md, other files and parsed frontmatter, gathered while walking entries.
#[derive(Default)]
struct SkillParts {
    /// Content-relative path of SKILL.md and the position of its entry in path order.
    document: Option<(String, usize)>,
    document_lines: u32,
    document_size: u64,
    meta: Option<Box<SkillMeta>>,
    markdown: Markdown,
    /// Every other file.
    files: Vec<PartFile>,
    /// Content-relative path and analysis of every other markdown file (link checking only).
    markdown_files: Vec<(String, Markdown)>,
    /// Per markdown file (SKILL.md first): its content path, its directory in the skill, and the
    /// file names its text mentions.
    mentions: Vec<(String, String, Vec<super::mentions::Mention>)>,
}

/// A skill file other than SKILL.md, as gathered.
struct PartFile {
    /// Path relative to the skill directory.
    rel: String,
    size: u64,
    /// Position of its entry in path order.
    at: usize,
    /// A markdown file's title and description (its frontmatter's, else its first heading and
    /// paragraph).
    title: Option<String>,
    description: Option<String>,
}
