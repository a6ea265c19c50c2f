//! Folio's verdict on every Agent Skills fixture under `tests/fixtures/skills-spec/`, against
//! the fixture's `expect` file: `folio:` (valid or invalid) and `codes:` (every diagnostic code
//! reported, sorted). The same fixtures go through the official validator in CI
//! (`scripts/skills-ref-differential`), which must agree with `folio:` unless the fixture records
//! a justified difference (`validator:` and `why:`).

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::{Tree, copy_dir};

fn fixtures() -> Vec<std::path::PathBuf> {
    let root = crate::support::repo().join("tests/fixtures/skills-spec");
    let mut cases: Vec<_> =
        std::fs::read_dir(root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    cases
}

/// (verdict, codes) of one fixture as Folio sees it.
fn folio_verdict(case: &Path) -> (String, String) {
    let tree = Tree::new();
    for skill in std::fs::read_dir(case).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()) {
        copy_dir(&skill, &tree.join("content/skills").join(skill.file_name().unwrap()));
    }
    let checked = folio::compile::check(&folio::compile::Config::new(tree.join("content")));
    let codes: BTreeSet<&str> = checked.diagnostics.iter().map(|d| d.code.name()).collect();
    let verdict = if checked.has_errors() { "invalid" } else { "valid" };
    (verdict.to_owned(), codes.into_iter().collect::<Vec<_>>().join(" "))
}

#[test]
fn folio_agrees_with_every_skills_spec_fixture() {
    let cases = fixtures();
    assert!(cases.len() >= 40, "the differential test wants at least 40 fixtures, found {}", cases.len());
    let mut wrong = Vec::new();
    let mut differences = 0;
    for case in &cases {
        let expect = std::fs::read_to_string(case.join("expect")).unwrap();
        let field = |name: &str| {
            expect.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(": ")).unwrap_or("").to_owned()
        };
        if !field("validator").is_empty() {
            differences += 1;
            assert!(!field("why").is_empty(), "{}: a recorded difference needs a `why:`", case.display());
            assert_ne!(
                field("validator"),
                field("folio"),
                "{}: `validator:` repeats `folio:`",
                case.display()
            );
        }
        let got = folio_verdict(case);
        if got != (field("folio"), field("codes")) {
            wrong.push(format!(
                "{}: folio says {} [{}], expected {} [{}]",
                case.file_name().unwrap().to_string_lossy(),
                got.0,
                got.1,
                field("folio"),
                field("codes")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every difference from the official validator is listed in the manual.
    let manual =
        std::fs::read_to_string(crate::support::repo().join("content/docs/reference/skill-frontmatter.md"))
            .unwrap();
    for case in &cases {
        let expect = std::fs::read_to_string(case.join("expect")).unwrap();
        if expect.contains("\nvalidator: ") {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                manual.contains(&format!("`{name}`")),
                "skill-frontmatter.md does not list the difference `{name}`"
            );
        }
    }
    assert!(differences <= 12, "{differences} recorded differences: each one needs a reason");
}
