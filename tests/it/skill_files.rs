//! Skill directories as a whole: which files a skill serves and how they are described (hidden
//! files and markdown outside every skill are reported, reference files take their path as
//! `ref_id` and their own title), and the mention lint over a skill's text, on crafted trees and
//! on every vendored Agent Skill.

use crate::compile::{SKILL, case, skill_md};
use crate::support::{corpora, folio};
use folio::compile::Code;
use folio::compile::markdown::{Dialect, analyze_with_mentions};

#[test]
fn markdown_outside_every_skill_and_hidden_skill_files_are_reported() {
    let files: &[(&str, &[u8])] = &[
        ("skills/pdf/SKILL.md", SKILL),
        ("skills/pdf/.notes.md", b"# scratch\n"),
        ("skills/pdf/.cache/x.txt", b"x\n"),
        ("skills/notes/ideas.md", b"# Ideas\n"),
        ("skills/forms/skill.md", SKILL),
        // A folder grouping skills may hold a README.
        ("skills/acme/README.md", b"# Acme skills\n"),
        ("skills/acme/billing/SKILL.md", b"---\nname: billing\ndescription: Bills.\n---\n# Billing\n"),
    ];
    let tree = case(
        files,
        &[
            "missing-skill-md skills/forms/skill.md:1:1",
            "missing-skill-md skills/notes:1:1",
            "hidden-file skills/pdf/.cache:1:1",
            "hidden-file skills/pdf/.notes.md:1:1",
        ],
    );
    let out = folio(tree.path(), &["check", "content"]);
    assert!(
        out.stdout.contains("did you mean `SKILL.md`? rename `skill.md` to `SKILL.md`"),
        "{}",
        out.stdout
    );
}

#[test]
fn reference_files_take_their_path_as_ref_id_and_their_own_title() {
    let md = skill_md("name: pdf\ndescription: Fill PDF forms.\n");
    let tree = case(
        &[
            ("skills/pdf/SKILL.md", &md),
            (
                "skills/pdf/references/api.md",
                b"---\ntitle: API guide\ndescription: Every call.\n---\n# API\n",
            ),
            ("skills/pdf/references/forms.md", b"# Form fields\n\nEach field, by type. Second sentence.\n"),
            ("skills/pdf/scripts/fill.py", b"print(1)\n"),
        ],
        &[],
    );
    let out = folio(tree.path(), &["build", "content", "--out", "out"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let catalog = folio::query::load_catalog(&tree.join("out/catalog.msgpack")).unwrap();
    let files: Vec<_> = catalog.skills[0]
        .files
        .iter()
        .map(|f| (f.ref_id.as_str(), f.title.as_deref(), f.description.as_deref()))
        .collect();
    assert_eq!(
        files,
        [
            ("references/api.md", Some("API guide"), Some("Every call.")),
            ("references/forms.md", Some("Form fields"), Some("Each field, by type. Second sentence.")),
            ("scripts/fill.py", None, None),
        ]
    );
}

#[test]
fn mentioned_files_are_checked_against_the_skill_case_included() {
    // Anthropic's pdf skill, as published: the text says REFERENCE.md and FORMS.md, the files
    // are reference.md and forms.md.
    let md = skill_md("name: pdf\ndescription: Fill PDF forms.\n");
    let mut text = md.clone();
    text.extend_from_slice(b"\nFor advanced features, see REFERENCE.md.\nIf you need to fill out a PDF form, read FORMS.md and follow its instructions.\n");
    let tree = case(
        &[
            ("skills/pdf/SKILL.md", &text),
            ("skills/pdf/reference.md", b"# Reference\n"),
            ("skills/pdf/forms.md", b"# Forms\n\nRun `scripts/fill.py`.\n"),
        ],
        &["mentioned-file skills/pdf/SKILL.md:7:28", "mentioned-file skills/pdf/SKILL.md:8:42"],
    );
    let out = folio(tree.path(), &["check", "content"]);
    assert!(
        out.stdout
            .contains("`REFERENCE.md` names no file of skill `skills/pdf`; did you mean `reference.md`?"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_mention_lint_is_quiet_on_every_vendored_skill() {
    // Every skill of the Agent Skills corpus: the lint reads its mentions and reports none
    // (the corpus names its own files correctly and many files of the user's project).
    let skills = corpora().join("agent-skills/skills");
    let mut found = 0;
    for entry in walkdir::WalkDir::new(&skills).into_iter().map(Result::unwrap) {
        if entry.path().extension().is_some_and(|e| e == "md") {
            let body = std::fs::read_to_string(entry.path()).unwrap();
            found += analyze_with_mentions(&body, 1, Dialect::Markdown).mentions.len();
        }
    }
    assert_eq!(found, 385, "the count content/docs/diagnostics/mentioned-file.md quotes");
    let checked = folio::compile::check(&folio::compile::Config::new(corpora().join("agent-skills")));
    let reported: Vec<_> = checked.diagnostics.iter().filter(|d| d.code == Code::MentionedFile).collect();
    assert!(reported.is_empty(), "{reported:#?}");
}
