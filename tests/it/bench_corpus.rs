//! The benchmark corpus generator (the `folio-bench-corpus` crate): byte-identical output for the same
//! size, a tree that should compile clean (names, links, backlinks), and reuse of a complete corpus.

use folio_bench_corpus as corpus;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use corpus::{MARKER, Size};

fn fresh_dir(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "bench-corpus-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// Every file under `root` (marker excluded), by `/`-separated relative path.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, acc: &mut BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, acc);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_str().unwrap().replace('\\', "/");
                if rel != MARKER {
                    acc.insert(rel, fs::read(&path).unwrap());
                }
            }
        }
    }
    let mut acc = BTreeMap::new();
    walk(root, root, &mut acc);
    acc
}

#[test]
fn small_corpus_is_byte_identical_across_runs_and_directories() {
    let (a, b) = (fresh_dir("a"), fresh_dir("b"));
    let stats_a = corpus::generate(&a, Size::Small);
    let stats_b = corpus::generate(&b, Size::Small);
    assert_eq!(stats_a, stats_b);
    let (tree_a, tree_b) = (tree(&a), tree(&b));
    assert_eq!(tree_a.keys().collect::<Vec<_>>(), tree_b.keys().collect::<Vec<_>>());
    for (path, bytes) in &tree_a {
        assert!(&tree_b[path] == bytes, "{path} differs between two generations");
    }
    assert_eq!(stats_a.docs, 50);
    assert_eq!(stats_a.skills, 10);
    assert_eq!(stats_a.files, tree_a.len());
    assert_eq!(stats_a.files, 1 + 50 + 10 * 4);
    assert_eq!(stats_a.bytes, tree_a.values().map(|b| b.len() as u64).sum::<u64>());
    // The size budget (~0.75 MB) is met within 10%, and the one big doc is 200 KB or more.
    assert!((675_000..=825_000).contains(&stats_a.bytes), "small corpus is {} bytes", stats_a.bytes);
    assert!(tree_a.iter().any(|(p, b)| p.starts_with("docs/") && b.len() >= 200_000));
    fs::remove_dir_all(&a).unwrap();
    fs::remove_dir_all(&b).unwrap();
}

#[test]
fn complete_corpus_is_reused_and_partial_one_is_regenerated() {
    let dir = fresh_dir("reuse");
    let stats = corpus::generate(&dir, Size::Small);
    let victim = dir.join("folio.toml");
    fs::remove_file(&victim).unwrap();
    // The marker says the corpus is complete, so nothing is rewritten.
    assert_eq!(corpus::generate(&dir, Size::Small), stats);
    assert!(!victim.exists());
    // Without the marker (an interrupted run), the tree is regenerated from scratch.
    fs::remove_file(dir.join(MARKER)).unwrap();
    fs::write(dir.join("docs/stray.md"), "left over").unwrap();
    assert_eq!(corpus::generate(&dir, Size::Small), stats);
    assert!(victim.exists());
    assert!(!dir.join("docs/stray.md").exists());
    fs::remove_dir_all(&dir).unwrap();
}

/// Link targets of a markdown text: `[..](target)` and `[[target|label]]`, outside code fences.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find(')').unwrap();
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
        let mut rest = line;
        while let Some(i) = rest.find("[[") {
            let after = &rest[i + 2..];
            let end = after.find("]]").unwrap();
            let target = after[..end].split('|').next().unwrap();
            out.push(format!("[[{target}"));
            rest = &after[end..];
        }
    }
    out
}

fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[test]
fn small_corpus_names_and_links_are_valid() {
    let dir = fresh_dir("links");
    corpus::generate(&dir, Size::Small);
    let files = tree(&dir);
    let mut backlinks: BTreeMap<String, usize> = BTreeMap::new();
    for (path, bytes) in &files {
        let text = std::str::from_utf8(bytes).unwrap_or_else(|_| panic!("{path} is not UTF-8"));
        if let Some(skill_dir) = path.strip_suffix("/SKILL.md") {
            let dir_name = skill_dir.rsplit('/').next().unwrap();
            let name = text.lines().find_map(|l| l.strip_prefix("name: ")).unwrap();
            assert_eq!(name, dir_name, "{path}: name must equal the directory name");
            assert!(
                name.split('-').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                "{path}: invalid skill name `{name}`"
            );
            for target in links(text) {
                assert!(files.contains_key(&format!("{skill_dir}/{target}")), "{path}: broken link {target}");
            }
            continue;
        }
        if !path.starts_with("docs/") {
            continue;
        }
        assert!(text.starts_with("---\ntitle: \""), "{path}: no frontmatter");
        assert!(text.contains("\n## Overview\n"), "{path}: no overview section");
        let dir_of = &path[..path.rfind('/').unwrap()];
        for target in links(text) {
            let resolved = if let Some(wiki) = target.strip_prefix("[[") {
                format!("docs/{wiki}.md")
            } else if target.starts_with("https://") {
                continue;
            } else if let Some(abs) = target.strip_prefix('/') {
                format!("docs/{}.md", abs.trim_end_matches('/'))
            } else {
                normalize(&format!("{dir_of}/{}", target.split('#').next().unwrap()))
            };
            assert!(files.contains_key(&resolved), "{path}: link `{target}` does not resolve ({resolved})");
            *backlinks.entry(resolved).or_default() += 1;
        }
    }
    for path in files.keys().filter(|p| p.starts_with("docs/")) {
        assert!(backlinks.contains_key(path), "{path} is linked from nowhere");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn small_corpus_compiles_with_no_diagnostic() {
    // The benches measure a clean tree: a rule the generator breaks (a field the Agent Skills
    // spec does not define, say) would make every bench stop at "corpus has errors".
    let dir = fresh_dir("clean");
    corpus::generate(&dir, Size::Small);
    let checked = folio::compile::check(&folio::compile::Config::new(&dir));
    let shown: Vec<String> = checked
        .diagnostics
        .iter()
        .map(|d| format!("{}:{} {} {}", d.path, d.line, d.code, d.message))
        .collect();
    assert_eq!(shown, Vec::<String>::new());
    fs::remove_dir_all(&dir).unwrap();
}
