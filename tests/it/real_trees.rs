//! Trees written for the rest of the ecosystem, as they are: the Anthropic skills repository
//! (one skill's description is over the spec's limit), a Claude-Code-style skills collection
//! (cross-skill links, command references, truly missing files) and a Starlight-style
//! multilingual docs site. Golden `folio check` output for each, lenient serving, lint levels.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::mcp::modern_meta;
use crate::support::{Tree, copy_dir, corpora, expect_file, folio};

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs `folio serve` with `args` over stdio, sends `requests` (stateless 2026 requests) and
/// returns the answers in id order, stderr and the exit code.
fn serve(cwd: &Path, args: &[&str], requests: &[Value]) -> (Vec<Value>, String, Option<i32>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_folio"))
        .arg("serve")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the folio binary runs");
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let mut answers: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Requests are answered concurrently: put the answers back in request order.
    answers.sort_by_key(|a| a["id"].as_u64());
    (answers, String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code())
}

fn request(id: u32, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = modern_meta();
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

#[test]
fn anthropic_skills_check_matches_the_golden_file() {
    let out = folio(&corpora(), &["check", "agent-skills"]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    expect_file("tests/fixtures/golden/agent-skills.check.txt", &out.stdout);
}

#[test]
fn anthropic_skills_serve_every_valid_skill_and_name_the_one_left_out() {
    let requests = [
        request(1, "skills/list", json!({})),
        request(2, "resources/read", json!({ "uri": "resource://catalog/about" })),
    ];
    let (answers, stderr, code) = serve(&corpora(), &["--content", "agent-skills"], &requests);
    assert_eq!(code, Some(0), "{stderr}");
    let names: Vec<&str> = answers[0]["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(!names.contains(&"claude-api"), "{names:?}");
    assert_eq!(
        stderr,
        "folio: agent-skills: left out 1 entry with errors of its own (serving the rest; --strict refuses instead):\n  \
         skills/claude-api\n    skills/claude-api/SKILL.md:4:3: description-too-long: `description` has 1068 \
         characters, more than 1024\n"
    );
    let about = answers[1]["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(
        about.ends_with(
            "## Left out\n\n1 entry of the content tree is not served: its own content has errors (`folio check` \
             reports them).\n\n- `skills/claude-api`\n  - skills/claude-api/SKILL.md:4:3: description-too-long: \
             `description` has 1068 characters, more than 1024\n"
        ),
        "{about}"
    );
    // `--strict` refuses, as before; `build` refuses unless the level is lowered.
    let (answers, stderr, code) = serve(&corpora(), &["--strict", "--content", "agent-skills"], &requests);
    assert_eq!((code, answers.len()), (Some(1), 0));
    assert!(stderr.contains("skills/claude-api/SKILL.md:4:3: error[description-too-long]"), "{stderr}");
    let tree = Tree::new();
    let content = corpora().join("agent-skills");
    let content = content.to_str().unwrap();
    assert_eq!(folio(tree.path(), &["build", content, "--out", "out"]).code, Some(1));
    let out = folio(tree.path(), &["build", content, "--out", "out", "--warn", "description-too-long"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}

#[test]
fn claude_skills_report_only_truly_missing_files_as_errors() {
    let tree = Tree::new();
    copy_dir(&fixtures().join("claude-skills/content"), &tree.join("content"));
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(1));
    expect_file("tests/fixtures/claude-skills/expected/check.txt", &out.stdout);
    // Served, the cross-skill links keep their targets' URIs and make backlinks.
    let requests =
        [request(1, "resources/read", json!({ "uri": "resource://catalog/skills/writing-plans" }))];
    let (answers, stderr, code) = serve(tree.path(), &["--content", "content"], &requests);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "", "link errors never leave an entry out");
    let detail: Value =
        serde_json::from_str(answers[0]["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    let backlinks = detail["backlinks"].as_array().unwrap();
    assert!(backlinks.contains(&json!("skill://brainstorming/SKILL.md")), "{detail:#}");
}

#[test]
fn lint_levels_come_from_folio_toml_and_the_command_line() {
    let tree = Tree::new();
    copy_dir(&fixtures().join("claude-skills/content"), &tree.join("content"));
    // From the command line: broken links become warnings, cross-skill links are not reported.
    let out =
        folio(tree.path(), &["check", "content", "--warn", "broken-link", "--allow", "cross-skill-link"]);
    assert_eq!(out.code, Some(0), "{}", out.stdout);
    assert!(out.stdout.contains("0 errors, 4 warnings\n"), "{}", out.stdout);
    assert!(
        out.stdout.ends_with(
            "lint levels:\n  broken-link       warn   command line `--warn broken-link`\n  \
             cross-skill-link  allow  command line `--allow cross-skill-link`\n"
        ),
        "{}",
        out.stdout
    );
    // From folio.toml, and the command line wins over it.
    tree.file("content/folio.toml", "[lints]\nbroken-link = \"warn\"\ncross-skill-link = \"error\"\n");
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stdout.contains("4 errors, 4 warnings\n"), "{}", out.stdout);
    assert!(out.stdout.contains("  cross-skill-link  error  folio.toml:3:1\n"), "{}", out.stdout);
    let out = folio(tree.path(), &["check", "content", "--allow", "cross-skill-link"]);
    assert_eq!(out.code, Some(0), "{}", out.stdout);
    // Codes that would make the catalog unsound cannot be lowered, from either place.
    let out = folio(tree.path(), &["check", "content", "--allow", "duplicate-uri"]);
    assert_eq!(out.code, Some(2));
    assert_eq!(
        out.stderr,
        "error: --allow duplicate-uri: `duplicate-uri` cannot be lowered to `allow`: it means the catalog itself \
         would be wrong (see the diagnostics reference); fix the content instead\n"
    );
    tree.file("content/folio.toml", "[lints]\ncase-collision = \"warn\"\nbroken-lnk = \"allow\"\n");
    let out = folio(tree.path(), &["check", "content", "--format", "json"]);
    let diags: Value = serde_json::from_str(&out.stdout).unwrap();
    let config: Vec<_> = diags
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "invalid-config")
        .map(|d| (d["line"].as_u64().unwrap(), d["message"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(config.len(), 2, "{config:?}");
    assert_eq!(config[0].0, 2);
    assert!(config[0].1.contains("`case-collision` cannot be lowered"), "{config:?}");
    assert!(config[1].1.ends_with("did you mean `broken-link`?"), "{config:?}");
}
