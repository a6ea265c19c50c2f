//! Issue 30, finding 2, and the escaping link of finding 1 under lenient serving: an unsound error
//! that leaving one entry out removes (a duplicate skill name explained by a copy whose `name` is
//! not its folder's; a symlink out of the root) leaves that entry out and serves the rest; a
//! duplicate name no left-out entry explains leaves out the later skill (issue 45).

use crate::support::Tree;

fn skill(tree: &Tree, dir: &str, name: &str) {
    tree.file(
        format!("content/skills/{dir}/SKILL.md"),
        format!("---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n"),
    );
}

/// Left-out entries: (path, the codes of the errors that left each out).
type LeftOut = Vec<(String, Vec<String>)>;

/// The served skill names and the left-out entries of a lenient compile; `None` when the tree is
/// refused.
fn served(tree: &Tree) -> Option<(Vec<String>, LeftOut)> {
    let lenient = folio::compile::lenient(&folio::compile::Config::new(tree.join("content")));
    let catalog = lenient.compilation.catalog?;
    let names = catalog.skills.iter().map(|s| s.name.clone()).collect();
    let left_out = lenient
        .left_out
        .iter()
        .map(|l| {
            let codes = l.reasons.iter().map(|r| r.split(": ").nth(1).unwrap().to_owned()).collect();
            (l.path.clone(), codes)
        })
        .collect();
    Some((names, left_out))
}

#[test]
fn a_copied_skill_is_left_out_and_the_original_served_whichever_sorts_first() {
    // The copy after the original: the duplicate is reported on the copy itself.
    let tree = Tree::new();
    skill(&tree, "pdf", "pdf");
    skill(&tree, "pdf-copy", "pdf");
    skill(&tree, "review", "review");
    assert_eq!(
        served(&tree),
        Some((
            vec!["pdf".to_owned(), "review".to_owned()],
            vec![(
                "skills/pdf-copy".to_owned(),
                vec!["duplicate-skill-name".to_owned(), "name-mismatch".to_owned()]
            )]
        ))
    );

    // The copy before the original: the duplicate is reported on the original, naming the copy.
    let tree = Tree::new();
    skill(&tree, "a-copy", "zeta");
    skill(&tree, "zeta", "zeta");
    assert_eq!(
        served(&tree),
        Some((
            vec!["zeta".to_owned()],
            vec![(
                "skills/a-copy".to_owned(),
                vec!["name-mismatch".to_owned(), "duplicate-skill-name".to_owned()]
            )]
        ))
    );
}

#[test]
fn two_skills_that_both_match_their_folders_serve_the_first_and_leave_out_the_other() {
    // Nothing of either skill's own explains the clash: the first by path is served, and the
    // one the duplicate is reported on is left out (one entry never refuses the whole tree).
    let tree = Tree::new();
    skill(&tree, "pdf", "pdf");
    skill(&tree, "tools/pdf", "pdf");
    skill(&tree, "review", "review");
    assert_eq!(
        served(&tree),
        Some((
            vec!["pdf".to_owned(), "review".to_owned()],
            vec![("skills/tools/pdf".to_owned(), vec!["duplicate-skill-name".to_owned()])]
        ))
    );
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_root_leaves_out_its_skill_or_doc_and_serves_the_rest() {
    let tree = Tree::new();
    skill(&tree, "keys", "keys");
    skill(&tree, "notes", "notes");
    tree.file("outside/secret/a.md", "secret\n")
        .file("content/docs/index.md", "# Index\n")
        .symlink("../../../outside/secret", "content/skills/keys/refs")
        .symlink("../../outside/secret/a.md", "content/docs/leak.md");
    assert_eq!(
        served(&tree),
        Some((
            vec!["notes".to_owned()],
            vec![
                ("docs/leak.md".to_owned(), vec!["path-escape".to_owned()]),
                ("skills/keys".to_owned(), vec!["path-escape".to_owned()]),
            ]
        ))
    );
}

#[test]
fn asking_for_a_left_out_skill_says_it_was_left_out_and_why() {
    let tree = Tree::new();
    skill(&tree, "pdf", "pdf");
    skill(&tree, "review", "reviewer");
    let lenient = folio::compile::lenient(&folio::compile::Config::new(tree.join("content")));
    let query = folio::query::Query::from_catalog(lenient.compilation.catalog.expect("the rest is served"));
    let read = |uri: &str| query.read(uri, &folio::query::Selection::default()).map(|_| ());
    let detail = |id: &str| query.detail(id).map(|_| ());
    for (asked, err) in [
        ("skill://review/SKILL.md", read("skill://review/SKILL.md").unwrap_err()),
        ("skill://review/references/x.md", read("skill://review/references/x.md").unwrap_err()),
        ("review", detail("review").unwrap_err()),
    ] {
        let folio::query::QueryError::NotFound { what, suggestions, .. } = &err else { panic!("{err:?}") };
        assert!(suggestions.is_empty(), "{asked}: suggests {suggestions:?} for a left-out skill");
        assert!(
            what.contains("`skills/review` was left out of this catalog for errors of its own"),
            "{what}"
        );
        assert!(what.contains("skills/review/SKILL.md:2:7: name-mismatch"), "{what}");
    }
}
