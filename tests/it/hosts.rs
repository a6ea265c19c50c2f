//! Issue 45, parts 1 and 2: skill collections laid out as agent hosts ship them are read from
//! the repository root with no flag. A Claude Code marketplace's plugins are scoped
//! (`skill://<plugin>/<skill>/SKILL.md`, prompt `<plugin>:<skill>`), the duplicate rule holds
//! within a plugin, plugin parts that are not skills make no noise, the hosts' placeholders are
//! read as the hosts read them, and lenient serving says one line per reason.

use crate::support::{Tree, folio};

fn skill(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name} things when asked.\n---\n# {name}\n\n{body}\n")
}

/// A marketplace of two plugins that each ship `access`, with agents, commands and hooks.
fn marketplace(tree: &Tree) {
    tree.file(
        "content/.claude-plugin/marketplace.json",
        r#"{"name": "m", "owner": {"name": "o"}, "plugins": [
            {"name": "alpha", "source": "./plugins/alpha"},
            {"name": "beta", "source": "./plugins/beta"},
            {"name": "remote", "source": {"source": "github", "repo": "o/remote"}}
        ]}"#,
    )
    .file("content/plugins/alpha/.claude-plugin/plugin.json", r#"{"name": "alpha"}"#)
    .file(
        "content/plugins/alpha/skills/access/SKILL.md",
        skill(
            "access",
            "Run [the scan](${CLAUDE_SKILL_DIR}/jobs/scan.md), then \
             [the shared notes](${CLAUDE_PLUGIN_ROOT}/skills/audit/notes.md) and \
             [the script](${CLAUDE_PLUGIN_ROOT}/scripts/run.md).",
        ),
    )
    .file(
        "content/plugins/alpha/skills/access/jobs/scan.md",
        "# Scan\n\nBack to [the skill]({baseDir}/SKILL.md).\n",
    )
    .file("content/plugins/alpha/skills/audit/SKILL.md", skill("audit", "Audit."))
    .file("content/plugins/alpha/skills/audit/notes.md", "# Notes\n")
    .file("content/plugins/alpha/scripts/run.md", "# Run\n")
    .file("content/plugins/alpha/agents/reviewer.md", "---\nname: reviewer\n---\n# Reviewer\n")
    .file("content/plugins/alpha/commands/review.md", "# Review\n")
    .file("content/plugins/alpha/hooks/hooks.json", "{}")
    .file("content/plugins/alpha/evals/cases.md", "# Cases\n")
    .file("content/plugins/beta/.claude-plugin/plugin.json", r#"{"name": "beta", "skills": "./extra"}"#)
    .file("content/plugins/beta/extra/access/SKILL.md", skill("access", "Beta's access."))
    .file("content/plugins/beta/skills/ignored/SKILL.md", skill("ignored", "Replaced by `skills`."))
    .file("content/plugins/beta/commands/go.md", "# Go\n");
}

#[test]
fn a_marketplace_is_read_from_its_root_with_each_plugin_s_skills_scoped() {
    let tree = Tree::new();
    marketplace(&tree);
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(0), "{}", out.stdout);
    // No `missing-skill-md` for agents, commands, hooks or evals; no duplicate for `access`;
    // every placeholder link resolves.
    assert!(!out.stdout.contains("warning["), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "3 skills, 3 links checked: docs from docs/; skills as hosts load them: Claude Code plugin \
             marketplace (.claude-plugin/marketplace.json: 2 plugins with skills); not read: plugin `remote` \
             (fetched from github, not in this tree)"
        ),
        "{}",
        out.stdout
    );
    let catalog =
        folio::compile::compile(&folio::compile::Config::new(tree.join("content"))).catalog.unwrap();
    let skills: Vec<(String, String)> =
        catalog.skills.iter().map(|s| (s.name.clone(), s.path.clone())).collect();
    assert_eq!(
        skills,
        [
            ("alpha:access".to_owned(), "alpha/access".to_owned()),
            ("alpha:audit".to_owned(), "alpha/audit".to_owned()),
            ("beta:access".to_owned(), "beta/access".to_owned()),
        ]
    );
    let uris: Vec<&str> =
        catalog.entries.iter().map(|e| e.uri.as_str()).filter(|u| u.ends_with("SKILL.md")).collect();
    assert_eq!(
        uris,
        ["skill://alpha/access/SKILL.md", "skill://alpha/audit/SKILL.md", "skill://beta/access/SKILL.md"]
    );
    // Prompts (one per skill) and `resource://catalog/skills/{skill_id}` are keyed by that name.
    let shown = folio(tree.path(), &["show", "--content", "content", "beta:access"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(shown.stdout.contains("skill://beta/access/SKILL.md"), "{}", shown.stdout);
}

#[test]
fn a_placeholder_that_names_no_file_is_still_a_broken_link() {
    let tree = Tree::new();
    marketplace(&tree);
    tree.file(
        "content/plugins/alpha/skills/audit/SKILL.md",
        skill(
            "audit",
            "See [gone](${CLAUDE_PLUGIN_ROOT}/scripts/gone.md) and [lost](${CLAUDE_SKILL_DIR}/lost.md).",
        ),
    );
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    let broken: Vec<&str> = out.stdout.lines().filter(|l| l.contains("error[broken-link]")).collect();
    assert_eq!(broken.len(), 2, "{}", out.stdout);
    assert!(broken[0].starts_with("content/plugins/alpha/skills/audit/SKILL.md:"), "{broken:?}");
}

#[test]
fn a_real_duplicate_within_a_plugin_leaves_one_skill_out_and_serves_the_rest() {
    let tree = Tree::new();
    marketplace(&tree);
    // A second `audit` in alpha, in a folder whose name matches (nested): a real duplicate.
    tree.file("content/plugins/alpha/skills/more/audit/SKILL.md", skill("audit", "Again."));
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stdout.contains(
            "content/plugins/alpha/skills/more/audit/SKILL.md:2:7: error[duplicate-skill-name]: skill name \
             `alpha:audit` is already used by `plugins/alpha/skills/audit/SKILL.md`"
        ),
        "{}",
        out.stdout
    );
    let lenient = folio::compile::lenient(&folio::compile::Config::new(tree.join("content")));
    let catalog = lenient.compilation.catalog.expect("served, without the duplicate");
    let names: Vec<&str> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["alpha:access", "alpha:audit", "beta:access"]);
    let left: Vec<&str> = lenient.left_out.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(left, ["plugins/alpha/skills/more/audit"]);
    // `list` says one line per reason.
    let listed = folio(tree.path(), &["list", "--content", "content", "--kind", "skill"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let notes: Vec<&str> = listed.stderr.lines().filter(|l| l.starts_with("note: left out")).collect();
    assert_eq!(
        notes,
        ["note: left out duplicate-skill-name, 1 entry: plugins/alpha/skills/more/audit (first: \
          plugins/alpha/skills/more/audit/SKILL.md:2:7: skill name `alpha:audit` is already used by \
          `plugins/alpha/skills/audit/SKILL.md`)"]
    );
}

#[test]
fn many_entries_left_out_for_one_reason_are_one_line() {
    let tree = Tree::new();
    for i in 0..5 {
        tree.file(
            format!("content/.claude/skills/s{i}/SKILL.md"),
            format!("---\nname: other{i}\ndescription: x\n---\n# x\n"),
        );
    }
    tree.file("content/.claude/skills/fine/SKILL.md", skill("fine", "Fine."));
    let listed = folio(tree.path(), &["list", "--content", "content", "--kind", "skill"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let notes: Vec<&str> = listed.stderr.lines().filter(|l| l.starts_with("note: left out")).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with(
            "note: left out name-mismatch, 5 entries: .claude/skills/s0, .claude/skills/s1, .claude/skills/s2 and 2 more"
        ),
        "{notes:?}"
    );
    assert!(listed.stdout.contains("fine"), "{}", listed.stdout);
}

#[test]
fn a_docs_site_keeps_its_skills_in_claude_skills_and_they_are_read() {
    let tree = Tree::new();
    tree.file("content/book.toml", "[book]\ntitle = \"B\"\n")
        .file("content/src/SUMMARY.md", "# Summary\n\n- [Intro](intro.md)\n")
        .file("content/src/intro.md", "# Intro\n")
        .file("content/.claude/skills/release/SKILL.md", skill("release", "Release."))
        .file("content/.agents/skills/release/SKILL.md", skill("release", "A copy for Codex."))
        .file("content/.agents/skills/triage/SKILL.md", skill("triage", "Triage."));
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(0), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "2 skills, 1 link checked: docs from src/, skills from .claude/skills/, .agents/skills/ (mdBook, \
             detected from book.toml); skills as hosts load them: Claude Code project skills (.claude/skills/), \
             Agent Skills project folder (.agents/skills/); `.agents/skills/release/` is read from \
             `.claude/skills/release/`"
        ),
        "{}",
        out.stdout
    );
    let catalog =
        folio::compile::compile(&folio::compile::Config::new(tree.join("content"))).catalog.unwrap();
    let names: Vec<&str> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["release", "triage"]);
}

#[test]
fn a_single_plugin_at_the_root_scopes_its_skills_and_a_bad_manifest_is_named() {
    let tree = Tree::new();
    tree.file("content/.claude-plugin/plugin.json", r#"{"name": "solo"}"#)
        .file("content/skills/one/SKILL.md", skill("one", "One."))
        .file("content/agents/helper.md", "# Helper\n");
    let catalog =
        folio::compile::compile(&folio::compile::Config::new(tree.join("content"))).catalog.unwrap();
    let names: Vec<&str> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["solo:one"]);

    let tree = Tree::new();
    tree.file("content/.claude-plugin/marketplace.json", "{ not json").file("content/docs/a.md", "# A\n");
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stdout.contains(
            "content/.claude-plugin/marketplace.json:1:1: error[invalid-config]: `.claude-plugin/marketplace.json` \
             is not read: is not valid JSON"
        ),
        "{}",
        out.stdout
    );
}
