//! The skill-routing evaluation (tests/fixtures/skill-routing/README.md): task queries, written
//! as users phrase them, each labelled with the skill that does the task, searched over the
//! public collection the skill belongs to the way an agent searches (the query alone, ten hits),
//! and scored by where that skill's SKILL.md ranks: top 1 and top 3, per part (`tune`, the
//! queries ranking was tuned on, and `held-out`, written before and scored only after) and per
//! collection, held above the floor committed beside the queries.
//!
//! `FOLIO_EVAL_WRITE=1` rewrites the floor from the current numbers; `FOLIO_EVAL_VERBOSE=1`
//! prints every query's rank and top three hits. This module measures ranking; it must not tune
//! it, and it must not hide the held-out part: every run scores both.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use folio::compile::{Config, lenient};
use folio::query::{Mode, Query, SearchParams};

/// How far below its floor a share may fall before the test fails.
const TOLERANCE: f64 = 0.01;
/// Hits asked for per query: what one `search` call returns by default.
const DEPTH: usize = 10;
/// The targets for keyword search alone, over all queries.
const TARGET_TOP3: f64 = 0.90;
const TARGET_TOP1: f64 = 0.70;

pub(crate) fn fixture_path(name: &str) -> PathBuf {
    crate::support::repo().join("tests/fixtures/skill-routing").join(name)
}

/// One file of `queries/`: the task queries of one collection.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct QueryFile {
    collection: String,
    part: String,
    query: Vec<Labelled>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Labelled {
    q: String,
    /// The skill's name: its SKILL.md is the answer.
    skill: String,
}

/// A collection's content root: Anthropic's skills are the corpus other tests read too.
pub(crate) fn collection_root(name: &str) -> PathBuf {
    match name {
        "anthropic" => crate::support::corpora().join("agent-skills"),
        other => fixture_path(other),
    }
}

/// The collections in the order their files sort, each compiled the way `folio serve` compiles
/// it (leniently), with its queries.
pub(crate) struct Collection {
    pub(crate) name: String,
    part: String,
    queries: Vec<Labelled>,
    pub(crate) catalog: folio::catalog::Catalog,
}

pub(crate) fn collections() -> Vec<Collection> {
    let dir = fixture_path("queries");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let file: QueryFile = toml::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let compiled = lenient(&Config::new(collection_root(&file.collection)));
            let catalog =
                compiled.compilation.catalog.unwrap_or_else(|| panic!("{} is served", file.collection));
            Collection { name: file.collection, part: file.part, queries: file.query, catalog }
        })
        .collect()
}

/// Every label must name a skill its collection serves, every part be known, no query appear
/// twice, and the set be as large as the README promises. All problems are reported at once.
fn validate(collections: &[Collection]) {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for c in collections {
        if !["tune", "held-out"].contains(&c.part.as_str()) {
            problems.push(format!("{}: part `{}` is not `tune` or `held-out`", c.name, c.part));
        }
        let names: BTreeSet<&str> = c.catalog.skills.iter().map(|s| s.name.as_str()).collect();
        for l in &c.queries {
            if !seen.insert((c.name.as_str(), l.q.as_str())) {
                problems.push(format!("{}: query {:?} is labelled twice", c.name, l.q));
            }
            if !names.contains(l.skill.as_str()) {
                let near = names.iter().min_by_key(|n| strsim::levenshtein(n, &l.skill));
                problems.push(format!(
                    "{}: query {:?}: `{}` is not a served skill; did you mean `{}`?",
                    c.name,
                    l.q,
                    l.skill,
                    near.unwrap_or(&"")
                ));
            }
        }
    }
    let count =
        |part: &str| collections.iter().filter(|c| c.part == part).map(|c| c.queries.len()).sum::<usize>();
    let held_out = collections.iter().filter(|c| c.part == "held-out").count();
    for (what, min, n) in [
        ("queries", 150, count("tune") + count("held-out")),
        ("collections", 5, collections.len()),
        ("held-out collections", 2, held_out),
    ] {
        if n < min {
            problems.push(format!("the set has {n} {what}, fewer than {min}"));
        }
    }
    assert!(problems.is_empty(), "tests/fixtures/skill-routing/queries:\n{}", problems.join("\n"));
}

/// One query's outcome: the rank of its skill's SKILL.md (1-based, in the top ten) and the hits.
struct Outcome {
    rank: Option<usize>,
    hits: Vec<String>,
}

/// Shares of queries whose skill ranks first and in the top three.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Shares {
    pub(crate) queries: usize,
    pub(crate) top1: f64,
    pub(crate) top3: f64,
}

impl Shares {
    fn of(ranks: &[Option<usize>]) -> Shares {
        let n = ranks.len();
        let share = |k: usize| ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count() as f64 / n as f64;
        Shares { queries: n, top1: share(1), top3: share(3) }
    }
}

/// The recorded numbers: shares by group and each query's rank (0: not in the top ten).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Floor {
    #[serde(default)]
    group: BTreeMap<String, FloorShares>,
    #[serde(default)]
    query: BTreeMap<String, usize>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FloorShares {
    queries: usize,
    top1: f64,
    top3: f64,
}

fn toml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The key a query's rank is recorded under.
fn query_key(collection: &str, q: &str) -> String {
    format!("{collection}: {q}")
}

/// Runs every query over its collection's `query` in `mode` and holds the result to `floor`;
/// returns the shares by group (`overall`, `part.<part>`, `collection.<name>`). With
/// `FOLIO_EVAL_WRITE=1` the floor is rewritten instead when `test` names the test that owns it
/// (`None`: the floor belongs to another test and is only held).
#[allow(clippy::print_stdout, reason = "the table is the evaluation's report, shown with --nocapture")]
pub(crate) fn evaluate(
    collections: &[Collection],
    queries: &[Query],
    mode: Mode,
    floor: &str,
    test: Option<&str>,
) -> BTreeMap<String, Shares> {
    validate(collections);
    let mut ranks: BTreeMap<String, Vec<Option<usize>>> = BTreeMap::new();
    let mut lines = String::new();
    let mut now: Vec<(String, Option<usize>, Vec<String>)> = Vec::new();
    for (c, query) in collections.iter().zip(queries) {
        for l in &c.queries {
            let params =
                SearchParams { query: l.q.clone(), limit: Some(DEPTH), mode, ..SearchParams::default() };
            let page = query.search(&params).unwrap_or_else(|e| panic!("search {:?}: {e:?}", l.q));
            let hits: Vec<String> = page.items.into_iter().map(|h| h.uri).collect();
            let wanted = format!("skill://{}/SKILL.md", l.skill);
            let o = Outcome { rank: hits.iter().position(|h| *h == wanted).map(|p| p + 1), hits };
            for group in ["overall".to_owned(), format!("part.{}", c.part), format!("collection.{}", c.name)]
            {
                ranks.entry(group).or_default().push(o.rank);
            }
            let top: Vec<&str> = o.hits.iter().take(3).map(|h| h.trim_start_matches("skill://")).collect();
            let rank = o.rank.map_or("-".to_owned(), |r| r.to_string());
            writeln!(lines, "{rank:>2} [{} {}] {:?} -> {}", c.name, l.skill, l.q, top.join("  ")).unwrap();
            now.push((query_key(&c.name, &l.q), o.rank, o.hits));
        }
    }
    let shares: BTreeMap<String, Shares> = ranks.iter().map(|(g, r)| (g.clone(), Shares::of(r))).collect();
    let mut table = format!("{:<24} {:>7} {:>6} {:>6}\n", "group", "queries", "top1", "top3");
    for (g, s) in &shares {
        writeln!(table, "{g:<24} {:>7} {:>6.3} {:>6.3}", s.queries, s.top1, s.top3).unwrap();
    }
    println!("skill routing, {} ranking:\n{table}", mode.as_str());
    if std::env::var_os("FOLIO_EVAL_VERBOSE").is_some() {
        println!("rank [collection skill] query -> top 3\n{lines}");
    }
    if let Some(test) = test.filter(|_| std::env::var_os("FOLIO_EVAL_WRITE").is_some()) {
        let mut out = format!(
            "# The numbers the skill-routing evaluation must keep (tests/fixtures/skill-routing/README.md).\n\
             # Written by `FOLIO_EVAL_WRITE=1 cargo test {test}`; do not edit by hand.\n\
             # A share may fall at most {TOLERANCE} below its value here; the per-query ranks name the\n\
             # queries that got worse when one does.\n"
        );
        for (g, s) in &shares {
            write!(
                out,
                "\n[group.{}]\nqueries = {}\ntop1 = {:.4}\ntop3 = {:.4}\n",
                toml_string(g),
                s.queries,
                s.top1,
                s.top3
            )
            .unwrap();
        }
        out.push_str("\n# Per query: rank of its skill's SKILL.md in the top 10 (0: not there).\n[query]\n");
        for (key, rank, _) in &now {
            writeln!(out, "{} = {}", toml_string(key), rank.unwrap_or(0)).unwrap();
        }
        std::fs::write(fixture_path(floor), out).unwrap();
        println!("wrote tests/fixtures/skill-routing/{floor}");
        return shares;
    }
    let recorded: Floor = toml::from_str(&std::fs::read_to_string(fixture_path(floor)).unwrap_or_default())
        .unwrap_or_else(|e| panic!("tests/fixtures/skill-routing/{floor}: {e}"));
    let mut problems = Vec::new();
    for (g, s) in &shares {
        let Some(was) = recorded.group.get(g) else {
            problems.push(format!("`{g}` has no floor yet"));
            continue;
        };
        if was.queries != s.queries {
            problems.push(format!(
                "`{g}` had {} queries when the floor was written, now {}",
                was.queries, s.queries
            ));
        }
        for (metric, value, min) in [("top1", s.top1, was.top1), ("top3", s.top3, was.top3)] {
            if value < min - TOLERANCE {
                problems.push(format!("`{g}` {metric} dropped: {value:.4}, floor {min:.4}"));
            }
        }
    }
    if !problems.is_empty() {
        for (key, rank, hits) in &now {
            let was = recorded.query.get(key).copied().unwrap_or(0);
            if was != 0 && rank.is_none_or(|r| r > was) {
                let above: Vec<&str> = hits.iter().take(3).map(String::as_str).collect();
                let rank = rank.unwrap_or(0);
                problems.push(format!("    {key}: rank {was} -> {rank}; top 3: {}", above.join(", ")));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "skill routing fell below tests/fixtures/skill-routing/{floor} (more than {TOLERANCE} under):\n{}\n\
         If the change is intended (or raises quality), rewrite the floor with FOLIO_EVAL_WRITE=1.",
        problems.join("\n")
    );
    shares
}

#[test]
fn keyword_search_routes_task_queries_to_their_skill() {
    let collections = collections();
    let queries: Vec<Query> = collections.iter().map(|c| Query::from_catalog(c.catalog.clone())).collect();
    let shares = evaluate(
        &collections,
        &queries,
        Mode::Keyword,
        "floor-keyword.toml",
        Some("--test it skill_routing"),
    );
    let overall = shares["overall"];
    assert!(
        overall.top3 >= TARGET_TOP3 && overall.top1 >= TARGET_TOP1,
        "keyword routing misses the targets (top 3 >= {TARGET_TOP3}, top 1 >= {TARGET_TOP1}): {overall:?}"
    );
}

#[test]
fn the_shares_follow_their_definitions() {
    let s = Shares::of(&[Some(1), Some(3), Some(4), None]);
    assert_eq!((s.queries, s.top1, s.top3), (4, 0.25, 0.5));
}

/// The three routing rules on a small tree, through `folio search`: the skill whose description
/// names the task ranks first though another skill's long SKILL.md says the same words more
/// often, its reference files rank under it, and they do not fill the page.
#[test]
fn a_task_named_by_a_description_finds_that_skill_first_and_its_files_do_not_fill_the_page() {
    let tree = crate::support::Tree::new();
    tree.file(
        "content/skills/review/SKILL.md",
        "---\nname: review\ndescription: Review pull requests. Use when reviewing a teammate's pull request.\n---\n\
         # Review\n\nRead [the checklist](references/checklist.md).\n",
    );
    for (i, topic) in ["checklist", "security", "tests", "style", "naming"].iter().enumerate() {
        tree.file(
            format!("content/skills/review/references/{topic}.md"),
            format!("# {topic}\n\nWhen reviewing a pull request, check {topic} ({i}). A pull request review of {topic}.\n"),
        );
    }
    let mut release =
        String::from("---\nname: release\ndescription: Ship a release to production.\n---\n# Release\n\n");
    for step in 0..12 {
        release.push_str(&format!("## Step {step}\n\nMerge the reviewed pull request, then tag it. Reviewing pull requests comes first.\n\n"));
    }
    tree.file("content/skills/release/SKILL.md", release);
    let out = crate::support::folio(
        tree.path(),
        &["search", "--content", "content", "--json", "reviewing pull requests"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let page: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let uris: Vec<&str> =
        page["items"].as_array().unwrap().iter().map(|h| h["uri"].as_str().unwrap()).collect();
    assert_eq!(uris[0], "skill://review/SKILL.md", "{uris:?}");
    assert_eq!(
        uris[1], "skill://release/SKILL.md",
        "another skill before a second file of the first: {uris:?}"
    );
    assert_eq!(uris.len(), 7, "every match is still listed: {uris:?}");
}
