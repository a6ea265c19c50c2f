//! The manual agrees with the registries it documents: one page per diagnostic code under
//! `content/docs/diagnostics/`, each stating the severities the code is reported with by
//! default, as the code registry ([`Code`]) declares them.

use std::collections::BTreeSet;

use folio::compile::Code;

use crate::support::repo;

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The severity words of a page's `**Severity:** …` line: parenthesised remarks dropped,
/// `warning or error` and `warning, error` both listing two.
fn page_severities(page: &str) -> Option<BTreeSet<String>> {
    let line = page.lines().find_map(|l| l.strip_prefix("**Severity:** "))?;
    let line = line.split(" · ").next()?;
    let mut plain = String::new();
    let mut depth = 0;
    for c in line.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let words = plain.replace(" or ", ",");
    Some(
        words
            .split(',')
            .map(|w| w.trim().trim_end_matches(" by default").to_owned())
            .filter(|w| !w.is_empty())
            .collect(),
    )
}

#[test]
fn every_code_has_a_manual_page_and_every_page_a_code() {
    let dir = repo().join("content/docs/diagnostics");
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .expect("the diagnostics pages")
        .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".md").map(str::to_owned))
        .filter(|name| name != "index")
        .collect();
    pages.sort();
    let codes: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(pages, codes);
}

#[test]
fn each_code_page_states_the_registry_default() {
    let mut wrong = Vec::new();
    for code in Code::ALL {
        let name = code.name();
        let page = read(&format!("content/docs/diagnostics/{name}.md"));
        assert!(page.contains(&format!("\ntitle: {name}\n")), "{name}.md is titled `{name}`");
        assert!(page.contains(&format!("\n# `{name}`\n")), "{name}.md is headed `{name}`");
        let stated = page_severities(&page);
        let declared: BTreeSet<String> = code.documented_default().split(", ").map(str::to_owned).collect();
        if stated.as_ref() != Some(&declared) {
            wrong.push(format!("{name}.md states {stated:?}, the registry {declared:?}"));
        }
    }
    assert!(wrong.is_empty(), "pages disagree with the registry:\n{}", wrong.join("\n"));
}

#[test]
fn the_diagnostics_index_lists_every_code_with_its_default() {
    let index = read("content/docs/diagnostics/index.md");
    let mut rows = Vec::new();
    for line in index.lines() {
        let Some(rest) = line.strip_prefix("| [`") else { continue };
        let cells: Vec<&str> = rest.split(" | ").collect();
        let (name, link) = cells[0].split_once("`](").expect("a row starts with a linked code");
        assert_eq!(link, format!("{name}.md)"), "the row of `{name}` links its page");
        rows.push((name.to_owned(), cells[1].to_owned()));
    }
    rows.sort();
    let expected: Vec<(String, String)> =
        Code::ALL.iter().map(|c| (c.name().to_owned(), c.documented_default().to_owned())).collect();
    assert_eq!(rows, expected, "index.md's rows (code, severity) against the registry");
}
