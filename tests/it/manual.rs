//! The manual agrees with the registries it documents: one page per diagnostic code under
//! `content/docs/diagnostics/`, each stating the severities the code is reported with by
//! default, as the code registry ([`Code`]) declares them; and the fallback tools' page listing
//! every tool `tools/list` answers with, its arguments and their values, with the number of tools
//! wherever the manual states it.

use std::collections::BTreeSet;
use std::path::Path;

use folio::compile::Code;
use serde_json::{Value, json};

use crate::mcp::Wire;
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

/// The backticked words of a table cell: `` `a`, `b` `` is `[a, b]`.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

#[tokio::test]
async fn the_tools_page_lists_every_tool_with_its_arguments() {
    let mut w = Wire::start();
    let tools = w.ok("tools/list", json!({})).await["tools"].as_array().unwrap().clone();
    let page = read("content/docs/reference/tools.md");
    let mut documented = Vec::new();
    for section in page.split("\n## ").skip(1) {
        let (heading, body) = section.split_once('\n').unwrap_or((section, ""));
        if !heading.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            continue; // "Not found", "Which to use"
        }
        let tool = tools.iter().find(|t| t["name"] == json!(heading));
        let tool = tool.unwrap_or_else(|| panic!("tools.md documents `{heading}`, which tools/list lacks"));
        let properties = tool["inputSchema"]["properties"].as_object().unwrap();
        let mut arguments = BTreeSet::new();
        for row in body.lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = row.split(" | ").collect();
            for argument in backticked(cells[0]) {
                let schema = properties
                    .get(&argument)
                    .unwrap_or_else(|| panic!("tools.md: `{heading}` has no argument `{argument}`"));
                if let Some(values) = schema["enum"].as_array() {
                    let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
                    assert_eq!(
                        backticked(cells[1]),
                        values,
                        "tools.md: the values of `{heading}`'s `{argument}`"
                    );
                }
                arguments.insert(argument);
            }
        }
        let declared: BTreeSet<String> = properties.keys().cloned().collect();
        assert_eq!(arguments, declared, "tools.md: the arguments of `{heading}`");
        documented.push(heading.to_owned());
    }
    documented.sort();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(documented, names, "tools.md has one section per tool");
}

#[tokio::test]
async fn the_manual_states_the_number_of_tools_tools_list_answers_with() {
    let mut w = Wire::start();
    let count = w.ok("tools/list", json!({})).await["tools"].as_array().unwrap().len();
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    let mut files = vec![repo().join("README.md"), repo().join("ARCHITECTURE.md")];
    markdown_under(&repo().join("content"), &mut files);
    let mut stated = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap().to_lowercase();
        let tokens: Vec<&str> =
            text.split(|c: char| !c.is_ascii_alphanumeric() && !matches!(c, '-' | '/' | '_')).collect();
        let tokens: Vec<&str> = tokens.into_iter().filter(|t| !t.is_empty()).collect();
        for (i, token) in tokens.iter().enumerate() {
            let Some(n) = words.iter().position(|w| w == token).or_else(|| token.parse().ok()) else {
                continue;
            };
            let rest = tokens[i + 1..].iter().skip_while(|t| matches!(**t, "read-only" | "fallback" | "mcp"));
            if rest.take(1).any(|t| *t == "tools") {
                stated.push((file.strip_prefix(repo()).unwrap().display().to_string(), n));
            }
        }
    }
    assert!(!stated.is_empty(), "the manual states how many tools there are somewhere (tools.md)");
    let wrong: Vec<_> = stated.iter().filter(|(_, n)| *n != count).collect();
    assert!(wrong.is_empty(), "tools/list has {count} tools; the manual says otherwise: {wrong:?}");
}

fn markdown_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "md" || e == "mdx") {
            out.push(path);
        }
    }
}
