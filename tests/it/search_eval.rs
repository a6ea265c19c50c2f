//! The labelled search evaluation (tests/fixtures/search-eval/README.md): every query of
//! `queries.toml` searched over the vendored Astro docs the way an agent searches (the query
//! alone, ten hits), scored by MRR@10, recall@5 and nDCG@10 per kind, per language and overall,
//! and held above the floor committed in `floor.toml`.
//!
//! `FOLIO_EVAL_WRITE=1` rewrites the floor from the current numbers (after a ranking change
//! that moved them); `FOLIO_EVAL_VERBOSE=1` prints every query's rank and top three hits.
//! This module measures ranking; it must not tune it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use folio::compile::{Config, lenient};
use folio::query::{Mode, Query, SearchParams};

use crate::support::corpora;

/// How far below its floor an aggregate may fall before the test fails.
const TOLERANCE: f64 = 0.01;
/// Hits scored per query: what one `search` call returns by default.
const DEPTH: usize = 10;

pub(crate) fn fixture_path(name: &str) -> PathBuf {
    crate::support::repo().join("tests/fixtures/search-eval").join(name)
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Fixture {
    query: Vec<Labelled>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Labelled {
    q: String,
    kind: String,
    lang: String,
    /// Grade 2: the pages that answer the query.
    answer: Vec<String>,
    /// Grade 1: pages also worth reading.
    #[serde(default)]
    useful: Vec<String>,
}

impl Labelled {
    fn grade(&self, uri: &str) -> u32 {
        if self.answer.iter().any(|a| a == uri) {
            2
        } else if self.useful.iter().any(|u| u == uri) {
            1
        } else {
            0
        }
    }
}

/// One query's outcome.
#[derive(Debug, Clone)]
struct Outcome {
    /// 1-based rank of the first answer (grade 2) in the top ten.
    rank: Option<usize>,
    /// Answers in the top five / answers.
    recall5: f64,
    /// Answers and useful pages in the top five / answers and useful pages.
    recall5_all: f64,
    ndcg10: f64,
    /// The URIs of the hits, best first.
    hits: Vec<String>,
}

impl Outcome {
    fn reciprocal_rank(&self) -> f64 {
        self.rank.map_or(0.0, |r| 1.0 / r as f64)
    }
}

fn gain(grade: u32) -> f64 {
    f64::from((1u32 << grade) - 1)
}

fn discount(position: usize) -> f64 {
    // Position 0 is rank 1: log2(rank + 1).
    ((position + 2) as f64).log2()
}

/// Scores one query's hits (their primary URIs, best first) against its labels.
fn score(labelled: &Labelled, hits: Vec<String>) -> Outcome {
    let top = &hits[..hits.len().min(DEPTH)];
    let rank = top.iter().position(|h| labelled.grade(h) == 2).map(|p| p + 1);
    let in_top5 = |set: &[String]| top.iter().take(5).filter(|h| set.contains(h)).count() as f64;
    let recall5 = in_top5(&labelled.answer) / labelled.answer.len() as f64;
    let relevant = labelled.answer.len() + labelled.useful.len();
    let recall5_all = (in_top5(&labelled.answer) + in_top5(&labelled.useful)) / relevant as f64;
    let dcg: f64 = top.iter().enumerate().map(|(i, h)| gain(labelled.grade(h)) / discount(i)).sum();
    let ideal = labelled.answer.iter().map(|_| 2).chain(labelled.useful.iter().map(|_| 1)).take(DEPTH);
    let idcg: f64 = ideal.enumerate().map(|(i, g)| gain(g) / discount(i)).sum();
    Outcome { rank, recall5, recall5_all, ndcg10: dcg / idcg, hits }
}

/// Mean metrics of a group of queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Aggregate {
    pub(crate) queries: usize,
    pub(crate) mrr10: f64,
    pub(crate) recall5: f64,
    ndcg10: f64,
    recall5_all: f64,
}

impl Aggregate {
    fn of(outcomes: &[&Outcome]) -> Aggregate {
        let n = outcomes.len() as f64;
        let mean = |f: &dyn Fn(&Outcome) -> f64| outcomes.iter().map(|o| f(o)).sum::<f64>() / n;
        Aggregate {
            queries: outcomes.len(),
            mrr10: mean(&Outcome::reciprocal_rank),
            recall5: mean(&|o| o.recall5),
            ndcg10: mean(&|o| o.ndcg10),
            recall5_all: mean(&|o| o.recall5_all),
        }
    }

    /// The metrics the floor holds, by name.
    fn floored(&self) -> [(&'static str, f64); 3] {
        [("mrr10", self.mrr10), ("recall5", self.recall5), ("ndcg10", self.ndcg10)]
    }
}

/// The groups a query counts in: `overall`, `kind.<kind>`, `lang.<lang>`.
fn groups_of(labelled: &Labelled) -> [String; 3] {
    ["overall".to_owned(), format!("kind.{}", labelled.kind), format!("lang.{}", labelled.lang)]
}

/// A labelled set: its file and what it must hold.
pub(crate) struct Set {
    /// The file under tests/fixtures/search-eval/.
    file: &'static str,
    /// The kinds its queries may have.
    kinds: &'static [&'static str],
    /// (what, at least, how many the set has): the sizes the README promises.
    minimums: fn(&Fixture) -> Vec<(&'static str, usize, usize)>,
}

/// The keyword set: API names, error messages, page names and how-to questions in five languages.
pub(crate) const KEYWORDS: Set = Set {
    file: "queries.toml",
    kinds: &["api", "error", "nav", "concept"],
    minimums: |fixture| {
        let count = |f: &dyn Fn(&Labelled) -> bool| fixture.query.iter().filter(|l| f(l)).count();
        vec![
            ("queries", 80, fixture.query.len()),
            ("English api queries", 25, count(&|l| l.kind == "api" && l.lang == "en")),
            ("nav queries", 15, count(&|l| l.kind == "nav")),
            ("concept queries", 15, count(&|l| l.kind == "concept")),
            ("ja queries", 8, count(&|l| l.lang == "ja")),
            ("zh-cn queries", 8, count(&|l| l.lang == "zh-cn")),
            ("ko queries", 8, count(&|l| l.lang == "ko")),
        ]
    },
};

/// The paraphrase set: questions in a user's own words, avoiding the answer's title and keywords.
pub(crate) const PARAPHRASES: Set = Set {
    file: "paraphrases.toml",
    kinds: &["paraphrase"],
    minimums: |fixture| vec![("queries", 60, fixture.query.len())],
};

impl Set {
    fn load(&self) -> Fixture {
        toml::from_str(&std::fs::read_to_string(fixture_path(self.file)).unwrap())
            .unwrap_or_else(|e| panic!("tests/fixtures/search-eval/{}: {e}", self.file))
    }

    /// Every labelled page must be a doc of the catalog, every query well formed, and the set as
    /// large and as mixed as the README promises. All problems are reported at once.
    fn validate(&self, fixture: &Fixture, query: &Query) {
        let mut problems = Vec::new();
        let mut seen = BTreeSet::new();
        for l in &fixture.query {
            if !seen.insert(l.q.as_str()) {
                problems.push(format!("query {:?} is labelled twice", l.q));
            }
            if !self.kinds.contains(&l.kind.as_str()) {
                problems.push(format!("query {:?}: kind `{}` is not one of {:?}", l.q, l.kind, self.kinds));
            }
            if !["en", "ja", "zh-cn", "ko", "ru"].contains(&l.lang.as_str()) {
                problems.push(format!("query {:?}: lang `{}` is not a locale of the corpus", l.q, l.lang));
            }
            if l.answer.is_empty() {
                problems.push(format!("query {:?} has no answer", l.q));
            }
            for uri in l.answer.iter().chain(&l.useful) {
                if query.entry(uri).is_none() {
                    let near =
                        query.catalog().entries.iter().min_by_key(|e| strsim::levenshtein(&e.uri, uri));
                    let hint = near.map(|e| format!("; did you mean `{}`?", e.uri)).unwrap_or_default();
                    problems.push(format!("query {:?}: `{uri}` is not in the catalog{hint}", l.q));
                }
                if l.answer.contains(uri) && l.useful.contains(uri) {
                    problems.push(format!("query {:?}: `{uri}` is both an answer and useful", l.q));
                }
            }
        }
        for (what, min, n) in (self.minimums)(fixture) {
            if n < min {
                problems.push(format!("the set has {n} {what}, fewer than {min}"));
            }
        }
        assert!(problems.is_empty(), "tests/fixtures/search-eval/{}:\n{}", self.file, problems.join("\n"));
    }
}

/// The recorded numbers: aggregates by group, and each query's rank and nDCG@10 (to name the
/// queries that got worse).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Floor {
    #[serde(default)]
    aggregate: BTreeMap<String, FloorAggregate>,
    #[serde(default)]
    query: BTreeMap<String, FloorQuery>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FloorAggregate {
    queries: usize,
    mrr10: f64,
    recall5: f64,
    ndcg10: f64,
}

impl FloorAggregate {
    fn get(&self, metric: &str) -> f64 {
        match metric {
            "mrr10" => self.mrr10,
            "recall5" => self.recall5,
            _ => self.ndcg10,
        }
    }
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FloorQuery {
    /// Rank of the first answer; 0 when it was not in the top ten.
    rank: usize,
    ndcg10: f64,
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => write!(out, "\\u{:04X}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `floor.toml` for the current numbers, rounded to four places.
fn floor_text(
    aggregates: &BTreeMap<String, Aggregate>,
    fixture: &Fixture,
    outcomes: &[Outcome],
    test: &str,
) -> String {
    let mut out = format!(
        "# The numbers the labelled search evaluation must keep (tests/fixtures/search-eval/README.md).\n\
         # Written by `FOLIO_EVAL_WRITE=1 cargo test --test it {test}`; do not edit by hand.\n\
         # An aggregate may fall at most 0.01 below its value here; the per-query figures name the\n\
         # queries that got worse when one does.\n",
    );
    for (group, a) in aggregates {
        write!(out, "\n[aggregate.{}]\nqueries = {}\n", toml_string(group), a.queries).unwrap();
        for (metric, value) in a.floored() {
            writeln!(out, "{metric} = {value:.4}").unwrap();
        }
    }
    out.push_str(
        "\n# Per query: rank of the first answer in the top 10 (0: not there), and nDCG@10.\n[query]\n",
    );
    for (l, o) in fixture.query.iter().zip(outcomes) {
        let rank = o.rank.unwrap_or(0);
        writeln!(out, "{} = {{ rank = {rank}, ndcg10 = {:.4} }}", toml_string(&l.q), o.ndcg10).unwrap();
    }
    out
}

/// The aggregate table, one row per group.
fn table(aggregates: &BTreeMap<String, Aggregate>) -> String {
    let mut out = format!(
        "{:<16} {:>7} {:>7} {:>9} {:>8} {:>13}\n",
        "group", "queries", "MRR@10", "recall@5", "nDCG@10", "recall@5(all)"
    );
    for (group, a) in aggregates {
        writeln!(
            out,
            "{group:<16} {:>7} {:>7.3} {:>9.3} {:>8.3} {:>13.3}",
            a.queries, a.mrr10, a.recall5, a.ndcg10, a.recall5_all
        )
        .unwrap();
    }
    out
}

/// One line per query: rank of its first answer, its nDCG@10 and its top three hits.
fn per_query(fixture: &Fixture, outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for (l, o) in fixture.query.iter().zip(outcomes) {
        let rank = o.rank.map_or("-".to_owned(), |r| r.to_string());
        let top: Vec<&str> =
            o.hits.iter().take(3).map(|h| h.trim_start_matches("resource://docs/")).collect();
        writeln!(out, "{rank:>2} {:.3} [{} {}] {:?} -> {}", o.ndcg10, l.kind, l.lang, l.q, top.join("  "))
            .unwrap();
    }
    out
}

/// What fell below the floor, with the queries of that group that got worse; empty when all hold.
fn regressions(
    floor: &Floor,
    aggregates: &BTreeMap<String, Aggregate>,
    fixture: &Fixture,
    outcomes: &[Outcome],
) -> Vec<String> {
    let mut problems = Vec::new();
    for group in floor.aggregate.keys().filter(|g| !aggregates.contains_key(*g)) {
        problems.push(format!("`{group}` has a floor but no queries any more"));
    }
    for (group, now) in aggregates {
        let Some(was) = floor.aggregate.get(group) else {
            problems.push(format!("`{group}` has no floor yet"));
            continue;
        };
        if was.queries != now.queries {
            problems.push(format!(
                "`{group}` had {} queries when the floor was written, now {}",
                was.queries, now.queries
            ));
        }
        for (metric, value) in now.floored() {
            let min = was.get(metric);
            if value < min - TOLERANCE {
                problems.push(format!("`{group}` {metric} dropped: {value:.4}, floor {min:.4}"));
                problems.extend(worse_queries(floor, group, fixture, outcomes));
            }
        }
    }
    problems
}

/// The queries of `group` whose nDCG@10 or rank is worse than recorded, with what ranks above.
fn worse_queries(floor: &Floor, group: &str, fixture: &Fixture, outcomes: &[Outcome]) -> Vec<String> {
    let mut lines = Vec::new();
    for (l, o) in fixture.query.iter().zip(outcomes) {
        if !groups_of(l).iter().any(|g| g == group) {
            continue;
        }
        let Some(was) = floor.query.get(&l.q) else { continue };
        let rank = o.rank.unwrap_or(0);
        let worse_rank = was.rank != 0 && (rank == 0 || rank > was.rank);
        if o.ndcg10 < was.ndcg10 - 1e-4 || worse_rank {
            // What pushed the answer down: the hits above it, or the top three when it is gone.
            let (label, n) = o.rank.map_or(("top 3", 3), |r| ("above the answer", (r - 1).min(3)));
            let above: Vec<&str> = o.hits.iter().take(n).map(String::as_str).collect();
            lines.push(format!(
                "    {:?} [{} {}]: rank {} -> {rank}, nDCG@10 {:.4} -> {:.4}; {label}: {}",
                l.q,
                l.kind,
                l.lang,
                was.rank,
                was.ndcg10,
                o.ndcg10,
                above.join(", ")
            ));
        }
    }
    lines
}

/// The astro-docs corpus compiled the way `folio serve` compiles it (leniently).
pub(crate) fn astro_catalog() -> folio::catalog::Catalog {
    let compiled = lenient(&Config::new(corpora().join("astro-docs")));
    compiled.compilation.catalog.expect("the corpus is served")
}

/// Runs `set` over `query` in `mode` and holds it to the floor in `floor`; returns the
/// aggregates. With `FOLIO_EVAL_WRITE=1` the floor is rewritten instead, when `test` names the
/// test that owns it (`None`: the floor belongs to another ranking and is only held).
#[allow(clippy::print_stdout, reason = "the table is the evaluation's report, shown with --nocapture")]
pub(crate) fn evaluate(
    set: &Set,
    query: &Query,
    mode: Mode,
    floor: &str,
    test: Option<&str>,
) -> BTreeMap<String, Aggregate> {
    let fixture = set.load();
    set.validate(&fixture, query);
    let outcomes: Vec<Outcome> = fixture
        .query
        .iter()
        .map(|l| {
            let params =
                SearchParams { query: l.q.clone(), limit: Some(DEPTH), mode, ..SearchParams::default() };
            let page = query.search(&params).unwrap_or_else(|e| panic!("search {:?}: {e:?}", l.q));
            score(l, page.items.into_iter().map(|h| h.uri).collect())
        })
        .collect();
    let mut members: BTreeMap<String, Vec<&Outcome>> = BTreeMap::new();
    for (l, o) in fixture.query.iter().zip(&outcomes) {
        for group in groups_of(l) {
            members.entry(group).or_default().push(o);
        }
    }
    let aggregates: BTreeMap<String, Aggregate> =
        members.iter().map(|(g, os)| (g.clone(), Aggregate::of(os))).collect();
    println!(
        "search evaluation, astro-docs, {} ({} queries, {} ranking):\n{}",
        set.file,
        fixture.query.len(),
        mode.as_str(),
        table(&aggregates)
    );
    if std::env::var_os("FOLIO_EVAL_VERBOSE").is_some() {
        println!("rank nDCG [kind lang] query -> top 3\n{}", per_query(&fixture, &outcomes));
    }
    if let Some(test) = test.filter(|_| std::env::var_os("FOLIO_EVAL_WRITE").is_some()) {
        std::fs::write(fixture_path(floor), floor_text(&aggregates, &fixture, &outcomes, test)).unwrap();
        println!("wrote tests/fixtures/search-eval/{floor}");
        return aggregates;
    }
    let recorded: Floor = toml::from_str(&std::fs::read_to_string(fixture_path(floor)).unwrap_or_default())
        .unwrap_or_else(|e| panic!("tests/fixtures/search-eval/{floor}: {e}"));
    let problems = regressions(&recorded, &aggregates, &fixture, &outcomes);
    assert!(
        problems.is_empty(),
        "search quality fell below tests/fixtures/search-eval/{floor} (more than {TOLERANCE} under):\n{}\n\
         If the change is intended (or raises quality), rewrite the floor with FOLIO_EVAL_WRITE=1.",
        problems.join("\n")
    );
    aggregates
}

#[test]
fn search_quality_on_the_labelled_astro_queries_holds_its_floor() {
    let query = Query::from_catalog(astro_catalog());
    evaluate(&KEYWORDS, &query, Mode::Keyword, "floor.toml", Some("search_quality_on_the_labelled"));
}

#[test]
fn keyword_search_on_the_paraphrased_questions_holds_its_floor() {
    let query = Query::from_catalog(astro_catalog());
    let floor = "paraphrases-keyword.floor.toml";
    evaluate(&PARAPHRASES, &query, Mode::Keyword, floor, Some("keyword_search_on_the_paraphrased"));
}

#[test]
fn the_metrics_follow_their_definitions() {
    let labelled = Labelled {
        q: "q".to_owned(),
        kind: "nav".to_owned(),
        lang: "en".to_owned(),
        answer: vec!["a".to_owned()],
        useful: vec!["u".to_owned(), "v".to_owned()],
    };
    let hits = |h: &[&str]| h.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    // The answer third, one useful page first: MRR counts answers only; nDCG counts both.
    let o = score(&labelled, hits(&["u", "x", "a", "y", "z", "v"]));
    assert_eq!(o.rank, Some(3));
    assert_eq!(o.reciprocal_rank(), 1.0 / 3.0);
    assert_eq!((o.recall5, o.recall5_all), (1.0, 2.0 / 3.0));
    let dcg = 1.0 + 3.0 / 4f64.log2() + 1.0 / 7f64.log2();
    let idcg = 3.0 + 1.0 / 3f64.log2() + 1.0 / 4f64.log2();
    assert!((o.ndcg10 - dcg / idcg).abs() < 1e-12, "{}", o.ndcg10);
    // The ideal order scores 1; an answer below the tenth hit scores nothing.
    assert_eq!(score(&labelled, hits(&["a", "u", "v"])).ndcg10, 1.0);
    let deep: Vec<String> = (0..10).map(|i| i.to_string()).chain(["a".to_owned()]).collect();
    let o = score(&labelled, deep);
    assert_eq!((o.rank, o.recall5, o.ndcg10), (None, 0.0, 0.0));
}
