use super::*;
use crate::compile::diagnostic::{Code, Severity};
use crate::compile::markdown::{Markdown, analyze};

/// Builds a tree from a fixture (`//- path` lines start files; markdown files are analysed, any
/// other file only exists), resolves it and renders the outcome one item a line.
fn run(fixture: &str) -> (Resolution, Vec<String>) {
    run_ignoring(fixture, &[])
}

fn run_ignoring(fixture: &str, ignore: &[&str]) -> (Resolution, Vec<String>) {
    let mut files: Vec<(String, String)> = Vec::new();
    for line in fixture.lines() {
        if let Some(path) = line.strip_prefix("//- ") {
            files.push((path.trim().to_owned(), String::new()));
        } else if let Some((_, body)) = files.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    // Targets borrow their paths, URIs and anchors: these outlive them.
    let uris: Vec<String> = files.iter().map(|(path, _)| format!("uri:{path}")).collect();
    let analysed: Vec<(String, Markdown)> = files
        .iter()
        .filter(|(path, _)| !path.starts_with("static/") && is_page(path))
        .map(|(path, body)| (path.clone(), analyze(body, 1)))
        .collect();
    let mut targets =
        Targets { ignore: ignore.iter().map(|s| (*s).to_owned()).collect(), ..Targets::default() };
    for ((path, _), uri) in files.iter().zip(&uris) {
        if path.starts_with("static/") {
            targets.other_files.insert(path);
        } else {
            targets.uri_by_path.insert(path, uri);
        }
    }
    for (path, md) in &analysed {
        targets.anchors_by_path.insert(path, md.anchors().collect());
    }
    for (path, _) in &files {
        if let Some(dir) = path.strip_suffix("/SKILL.md") {
            targets.skill_dirs.push(dir);
            targets.skill_names.insert(dir.rsplit('/').next().unwrap_or(dir));
        }
    }
    let sources: Vec<LinkSource<'_>> = analysed
        .iter()
        .map(|(path, md)| {
            let skill_dir = path.strip_prefix("skills/").map(|_| {
                let mut dir = path.as_str();
                while let Some(parent) = parent(dir) {
                    dir = parent;
                    if files.iter().any(|(p, _)| *p == format!("{dir}/SKILL.md")) {
                        break;
                    }
                }
                dir.to_owned()
            });
            let origin = match skill_dir {
                Some(skill_dir) if path.ends_with("/SKILL.md") => Origin::SkillDocument { skill_dir },
                Some(skill_dir) => Origin::SkillFile { skill_dir },
                None => Origin::Doc,
            };
            LinkSource { path, origin, links: &md.links }
        })
        .collect();
    let res = resolve(&sources, &targets);
    // `folio check` reports exactly what `folio build` does, without the link records.
    let diagnosed = diagnose(&sources, &targets);
    assert_eq!(diagnosed.diagnostics, res.diagnostics);
    assert!(diagnosed.links.len() == sources.len() && diagnosed.links.iter().all(Vec::is_empty));
    let order = analysed.iter().map(|(p, _)| p.clone()).collect();
    (res, order)
}

fn render_diagnostic(d: &Diagnostic) -> String {
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let help = d.help.as_deref().map(|h| format!(" (help: {h})")).unwrap_or_default();
    format!("{}:{}:{}: {severity}[{}]: {}{help}", d.path, d.line, d.column, d.code, d.message)
}

/// Every diagnostic except `orphan-doc`.
#[track_caller]
fn check(fixture: &str, expected: &str) {
    let (res, _) = run(fixture);
    let actual: Vec<String> =
        res.diagnostics.iter().filter(|d| d.code != Code::OrphanDoc).map(render_diagnostic).collect();
    assert_eq!(actual.join("\n"), expected.trim(), "\nfixture:\n{fixture}");
}

/// Only `orphan-doc` diagnostics, by path.
#[track_caller]
fn check_orphans(fixture: &str, expected: &str) {
    let (res, _) = run(fixture);
    let actual: Vec<&str> =
        res.diagnostics.iter().filter(|d| d.code == Code::OrphanDoc).map(|d| d.path.as_str()).collect();
    assert_eq!(actual.join(" "), expected.trim(), "\nfixture:\n{fixture}");
}

/// The resolved URI of every link of the first file, `-` when unresolved.
#[track_caller]
fn check_resolved(fixture: &str, expected: &str) {
    let (res, _) = run(fixture);
    let actual: Vec<String> = res.links[0]
        .iter()
        .map(|l| format!("{} -> {}", l.target, l.resolved.as_deref().unwrap_or("-")))
        .collect();
    assert_eq!(actual.join("\n"), expected.trim(), "\nfixture:\n{fixture}");
}

#[test]
fn relative_links_resolve_against_the_linking_file() {
    check_resolved(
        "
//- docs/guides/a.md
[1](b.md) [2](./b.md#x) [3](../top.md) [4](sub/) [5](sub) [6](../guides/b) [7](b.md?plain=1)
//- docs/guides/b.md
# X
//- docs/guides/sub/index.md
//- docs/top.md
",
        "
b.md -> uri:docs/guides/b.md
./b.md#x -> uri:docs/guides/b.md
../top.md -> uri:docs/top.md
sub/ -> uri:docs/guides/sub/index.md
sub -> uri:docs/guides/sub/index.md
../guides/b -> uri:docs/guides/b.md
b.md?plain=1 -> uri:docs/guides/b.md
",
    );
}

#[test]
fn site_absolute_links_resolve_like_hugo_pages() {
    check_resolved(
        "
//- docs/a.md
[1](/guides/install/) [2](/guides/) [3](/functions/strings/contains/#x) [4](/) [5](/guides/install.md) [6](/guides/install/?q=1) [7](/docs/guides/install.md) [8](/guides/install.html)
//- docs/_index.md
//- docs/guides/install.md
//- docs/guides/_index.md
//- docs/functions/strings/contains/index.md
# X
",
        "
/guides/install/ -> uri:docs/guides/install.md
/guides/ -> uri:docs/guides/_index.md
/functions/strings/contains/#x -> uri:docs/functions/strings/contains/index.md
/ -> uri:docs/_index.md
/guides/install.md -> uri:docs/guides/install.md
/guides/install/?q=1 -> uri:docs/guides/install.md
/docs/guides/install.md -> uri:docs/guides/install.md
/guides/install.html -> uri:docs/guides/install.md
",
    );
}

#[test]
fn site_absolute_links_to_aliases_resolve_to_the_doc() {
    let (mut targets, links) =
        (Targets::default(), analyze("[a](/old/Path/) [b](/old/path#x) [c](/older/)", 1).links);
    targets.uri_by_path.insert("docs/a.md", "uri:a");
    targets.uri_by_path.insert("docs/new.md", "uri:new");
    targets.add_alias("/old/path/", "docs/new.md");
    targets.add_alias("old/path", "docs/a.md");
    let res = resolve(&[LinkSource { path: "docs/a.md", origin: Origin::Doc, links: &links }], &targets);
    let resolved: Vec<_> = res.links[0].iter().map(|l| l.resolved.as_deref()).collect();
    assert_eq!(resolved, [Some("uri:new"), Some("uri:new"), None]);
    let codes: Vec<_> = res.diagnostics.iter().map(|d| (d.code, d.path.as_str(), d.column)).collect();
    assert_eq!(codes, [(Code::BrokenLink, "docs/a.md", 38), (Code::OrphanDoc, "docs/a.md", 1)]);
}

#[test]
fn percent_encoded_targets_are_decoded_once() {
    check_resolved(
        "
//- docs/a.md
[1](my%20notes.md) [2](caf%C3%A9.md#%C3%A9t%C3%A9) [3](100%25.md) [4](bad%zz.md)
//- docs/my notes.md
//- docs/café.md
## Été
//- docs/100%.md
//- docs/bad%zz.md
",
        "
my%20notes.md -> uri:docs/my notes.md
caf%C3%A9.md#%C3%A9t%C3%A9 -> uri:docs/café.md
100%25.md -> uri:docs/100%.md
bad%zz.md -> uri:docs/bad%zz.md
",
    );
    check("//- docs/a.md\n[x](caf%C3%A9.md#%C3%A9t%C3%A9)\n//- docs/café.md\n## Été", "");
}

#[test]
fn external_links_and_hugo_shortcodes_are_recorded_unresolved() {
    check_resolved(
        "
//- docs/a.md
[1](https://e.com/x.md) [2](mailto:a@b.c) [3]({{<ref\"x\">}}) [4](//cdn/x)
",
        "
https://e.com/x.md -> -
mailto:a@b.c -> -
{{<ref\"x\">}} -> -
//cdn/x -> -
",
    );
}

#[test]
fn anchor_links_resolve_to_the_file_itself() {
    check_resolved(
        "//- docs/a.md\n# Top\n[1](#top) [2](#) [3]()",
        "#top -> uri:docs/a.md\n# -> uri:docs/a.md\n -> uri:docs/a.md",
    );
}

#[test]
fn broken_links_name_what_was_tried() {
    check(
        "//- docs/a.md\n[x](missing.md)",
        "docs/a.md:1:5: error[broken-link]: link `missing.md` matches no file: no `docs/missing.md`",
    );
    check(
        "//- docs/a.md\n\n  see [x](/tools/search/)",
        "docs/a.md:2:11: error[broken-link]: link `/tools/search/` matches no file: no `docs/tools/search.md`, `docs/tools/search/index.md` or `docs/tools/search/_index.md`",
    );
}

#[test]
fn broken_links_suggest_close_names() {
    check(
        "//- docs/a.md\n[x](refrence.md)\n//- docs/reference.md",
        "docs/a.md:1:5: error[broken-link]: link `refrence.md` matches no file: no `docs/refrence.md` (help: did you mean `reference.md`?)",
    );
    check(
        "//- docs/a.md\n[x](/guides/instal/#y)\n//- docs/guides/install.md",
        "docs/a.md:1:5: error[broken-link]: link `/guides/instal/#y` matches no file: no `docs/guides/instal.md`, `docs/guides/instal/index.md` or `docs/guides/instal/_index.md` (help: did you mean `/guides/install/#y`?)",
    );
    check(
        "//- docs/a.md\n[x](/guide/install/)\n//- docs/guides/install/_index.md",
        "docs/a.md:1:5: error[broken-link]: link `/guide/install/` matches no file: no `docs/guide/install.md`, `docs/guide/install/index.md` or `docs/guide/install/_index.md` (help: did you mean `/guides/install/`?)",
    );
    // Nothing close: no help.
    check(
        "//- docs/a.md\n[x](zzz.md)\n//- docs/reference.md",
        "docs/a.md:1:5: error[broken-link]: link `zzz.md` matches no file: no `docs/zzz.md`",
    );
}

#[test]
fn links_escaping_the_content_root_are_broken() {
    check(
        "//- docs/a.md\n[x](../../etc/passwd)",
        "docs/a.md:1:5: error[broken-link]: link `../../etc/passwd` escapes the content root",
    );
    check(
        "//- docs/a.md\n[x](/../../x.md)",
        "docs/a.md:1:5: error[broken-link]: link `/../../x.md` escapes the content root",
    );
}

#[test]
fn case_only_differences_are_case_mismatch_in_docs_and_skills() {
    check(
        "//- docs/a.md\n[x](Guides/Install.md)\n//- docs/guides/install.md",
        "docs/a.md:1:5: error[case-mismatch]: link `Guides/Install.md` matches `docs/guides/install.md` only when case is ignored; servers and unpacked skills compare case (help: did you mean `guides/install.md`?)",
    );
    check(
        "//- skills/pdf/SKILL.md\nsee [ref](REFERENCE.md#api)\n//- skills/pdf/reference.md\n## API",
        "skills/pdf/SKILL.md:1:11: error[case-mismatch]: link `REFERENCE.md#api` matches `skills/pdf/reference.md` only when case is ignored; servers and unpacked skills compare case (help: did you mean `reference.md#api`?)",
    );
    check(
        "//- docs/x/a.md\n[x](../Guides/)\n//- docs/guides/index.md",
        "docs/x/a.md:1:5: error[case-mismatch]: link `../Guides/` matches `docs/guides/index.md` only when case is ignored; servers and unpacked skills compare case (help: did you mean `../guides/`?)",
    );
}

#[test]
fn hugo_trees_look_pages_up_like_get_page() {
    let hugo = "
//- docs/templates/intro.md
[1](/methods/site/language/) [2](methods/site/language/) [3](../methods/site/Language.md) [4](img/Logo.png)
//- docs/_index.md
//- docs/methods/site/Language.md
//- docs/templates/img/logo.png
";
    check_resolved(
        hugo,
        "
/methods/site/language/ -> uri:docs/methods/site/Language.md
methods/site/language/ -> uri:docs/methods/site/Language.md
../methods/site/Language.md -> uri:docs/methods/site/Language.md
img/Logo.png -> -
",
    );
    // Files other than pages keep their case.
    check(
        hugo,
        "docs/templates/intro.md:1:95: error[case-mismatch]: link `img/Logo.png` matches `docs/templates/img/logo.png` only when case is ignored; servers and unpacked skills compare case (help: did you mean `img/logo.png`?)",
    );
    // Without an `_index.md` the tree is not Hugo's: no fallback, case counts.
    check(
        "//- docs/templates/intro.md\n[2](methods/site/language/)\n//- docs/methods/site/language.md",
        "docs/templates/intro.md:1:5: error[broken-link]: link `methods/site/language/` matches no file: no `docs/templates/methods/site/language.md`, `docs/templates/methods/site/language/index.md` or `docs/templates/methods/site/language/_index.md`",
    );
}

#[test]
fn links_into_another_skill_resolve_with_a_warning() {
    let tree = "//- skills/pdf/SKILL.md\n[a](../xlsx/references/api.md#limits) [b](../xlsx/references/gone.md) [c](../xlsx/)\n\
                //- skills/xlsx/SKILL.md\n//- skills/xlsx/references/api.md\n# Limits\n";
    check_resolved(
        tree,
        "../xlsx/references/api.md#limits -> uri:skills/xlsx/references/api.md\n../xlsx/references/gone.md -> -\n../xlsx/ -> -",
    );
    let (res, _) = run(tree);
    let codes: Vec<_> = res.diagnostics.iter().map(|d| (d.column, d.code, d.severity)).collect();
    assert_eq!(
        codes,
        [
            (5, Code::CrossSkillLink, Severity::Warning),
            (43, Code::BrokenLink, Severity::Error),
            (75, Code::CrossSkillLink, Severity::Warning)
        ]
    );
}

#[test]
fn host_command_references_are_not_file_links() {
    let tree = "//- skills/pdf/SKILL.md\n[a](/superpowers:writing-plans) [b](/xlsx) [c](/commit) [d](/docs:x/y)\n//- skills/xlsx/SKILL.md\n";
    check_resolved(tree, "/superpowers:writing-plans -> -\n/xlsx -> -\n/commit -> -\n/docs:x/y -> -");
    let (res, _) = run(tree);
    let broken: Vec<_> = res.diagnostics.iter().map(|d| (d.column, d.code)).collect();
    // `/commit` names no skill and `/docs:x/y` is a path: both stay file links, and miss.
    assert_eq!(broken, [(48, Code::BrokenLink), (61, Code::BrokenLink)]);
}

#[test]
fn skill_links_must_stay_in_the_skill() {
    check_resolved(
        "//- skills/pdf/SKILL.md\n[1](reference.md) [2](./scripts/fill.py) [3](references/)\n//- skills/pdf/reference.md\n//- skills/pdf/scripts/fill.py\n//- skills/pdf/references/index.md",
        "reference.md -> uri:skills/pdf/reference.md\n./scripts/fill.py -> uri:skills/pdf/scripts/fill.py\nreferences/ -> uri:skills/pdf/references/index.md",
    );
    check(
        "//- skills/pdf/SKILL.md\n[x](../xlsx/SKILL.md)\n//- skills/xlsx/SKILL.md\n//- skills/notes.md",
        "skills/pdf/SKILL.md:1:5: warning[cross-skill-link]: link `../xlsx/SKILL.md` reaches into another skill, `skills/xlsx`: it resolves here, but a host that installs `skills/pdf` alone loses the target (help: copy the file into `skills/pdf` to make the skill self-contained, or set `cross-skill-link = \"allow\"` under [lints] in folio.toml if the skills are always installed together)",
    );
    check(
        "//- skills/pdf/SKILL.md\n[x](../notes.md)\n//- skills/xlsx/SKILL.md\n//- skills/notes.md",
        "skills/pdf/SKILL.md:1:5: error[broken-link]: link `../notes.md` leaves the skill directory `skills/pdf` (help: a skill is installed on its own: copy the file into `skills/pdf` or link to it by URL)",
    );
    check(
        "//- skills/pdf/SKILL.md\n[x](/guides/install/)\n//- docs/guides/install.md",
        "skills/pdf/SKILL.md:1:5: error[broken-link]: link `/guides/install/` leaves the skill directory `skills/pdf` (help: a skill is installed on its own: copy the file into `skills/pdf` or link to it by URL)",
    );
    // Other markdown files of a skill follow the same rule.
    check(
        "//- skills/api/SKILL.md\n//- skills/api/python/README.md\n[x](../../common/errors.md)\n[y](../common/errors.md)\n//- skills/api/common/errors.md",
        "skills/api/python/README.md:1:5: error[broken-link]: link `../../common/errors.md` leaves the skill directory `skills/api` (help: a skill is installed on its own: copy the file into `skills/api` or link to it by URL)",
    );
}

#[test]
fn links_to_directories_without_an_index_are_valid() {
    check_resolved(
        "//- skills/pdf/SKILL.md\n[1](scripts/) [2](./scripts) [3](examples/)\n//- skills/pdf/scripts/fill.py\n//- skills/pdf/examples/README.md",
        "scripts/ -> -\n./scripts -> -\nexamples/ -> uri:skills/pdf/examples/README.md",
    );
    check("//- skills/pdf/SKILL.md\n[1](scripts/)\n//- skills/pdf/scripts/fill.py", "");
}

#[test]
fn skill_links_suggest_files_of_the_skill() {
    check(
        "//- skills/pdf/SKILL.md\n[x](forms.mdd)\n//- skills/pdf/forms.md",
        "skills/pdf/SKILL.md:1:5: error[broken-link]: link `forms.mdd` matches no file: no `skills/pdf/forms.mdd` (help: did you mean `forms.md`?)",
    );
}

#[test]
fn wiki_links_match_paths_ignoring_case_and_separators() {
    check_resolved(
        "
//- docs/a.md
[[getting started]] [[Guides/Install_Guide]] [[install-guide#setup]] [[getting-started.md]] [[GETTING_STARTED|label]]
//- docs/getting-started.md
//- docs/guides/install guide.md
## Setup
",
        "
getting started -> uri:docs/getting-started.md
Guides/Install_Guide -> uri:docs/guides/install guide.md
install-guide#setup -> uri:docs/guides/install guide.md
getting-started.md -> uri:docs/getting-started.md
GETTING_STARTED -> uri:docs/getting-started.md
",
    );
}

#[test]
fn wiki_links_that_match_nothing_or_several_docs() {
    check(
        "//- docs/a.md\n[[instal]]\n//- docs/install.md",
        "docs/a.md:1:3: error[broken-link]: wiki link `[[instal]]` matches no doc (help: did you mean `[[install]]`?)",
    );
    check(
        "//- docs/a.md\n[[setup]]\n//- docs/linux/setup.md\n//- docs/mac/setup.md",
        "docs/a.md:1:3: error[broken-link]: wiki link `[[setup]]` is ambiguous: it matches `docs/linux/setup.md`, `docs/mac/setup.md` (help: write more of the path, for example `[[linux/setup]]`)",
    );
    check_resolved(
        "//- docs/a.md\n[[mac/setup]]\n//- docs/linux/setup.md\n//- docs/mac/setup.md",
        "mac/setup -> uri:docs/mac/setup.md",
    );
}

#[test]
fn wiki_links_in_skills_name_files_of_the_skill() {
    check_resolved(
        "//- skills/pdf/SKILL.md\n[[Forms]]\n//- skills/pdf/forms.md",
        "Forms -> uri:skills/pdf/forms.md",
    );
    check(
        "//- skills/pdf/SKILL.md\n[[install]]\n//- docs/install.md",
        "skills/pdf/SKILL.md:1:3: error[broken-link]: wiki link `[[install]]` matches no file in the skill directory `skills/pdf`",
    );
}

#[test]
fn anchors_are_checked_against_headings() {
    check(
        "//- docs/a.md\n# Title\n[x](b.md#instal) [y](#titel) [z](b.md#Install) [ok](b.md#install)\n//- docs/b.md\n## Install\n## Usage",
        "
docs/a.md:2:5: warning[broken-anchor]: `docs/b.md` has no heading with id `instal` (help: did you mean `#install`?)
docs/a.md:2:22: warning[broken-anchor]: this file has no heading with id `titel` (help: did you mean `#title`?)
docs/a.md:2:34: warning[broken-anchor]: `docs/b.md` has no heading with id `Install` (help: did you mean `#install`?)
",
    );
    check(
        "//- docs/a.md\n[x](#nothing-like-it)\n## Other",
        "docs/a.md:1:5: warning[broken-anchor]: this file has no heading with id `nothing-like-it`",
    );
}

#[test]
fn anchors_include_explicit_ids_duplicates_and_html_ids() {
    check(
        "//- docs/a.md\n[1](#custom) [2](#faq-1) [3](#legacy)\n## Setup {#custom}\n## FAQ\n## FAQ\n<a id=\"legacy\"></a>",
        "",
    );
}

#[test]
fn included_files_lend_their_anchors_and_are_not_orphans() {
    let fixture = "
//- docs/_index.md
[x](/a/#from-b) [y](/a/#from-c) [z](/a/#nowhere)
//- docs/a.md
{{% include \"/_common/b.md\" %}}
//- docs/_common/b.md
## From B
{{% include \"c.md\" %}}
//- docs/_common/c.md
## From C
";
    check(
        fixture,
        "docs/_index.md:1:37: warning[broken-anchor]: `docs/a.md` has no heading with id `nowhere`",
    );
    check_orphans(fixture, "");
    check(
        "//- docs/a.md\n{{% include \"/_common/gone.md\" %}}",
        "docs/a.md:1:14: error[broken-link]: link `/_common/gone.md` matches no file: no `docs/_common/gone.md`",
    );
}

#[test]
fn anchors_of_non_markdown_targets_are_not_checked() {
    check("//- skills/x/SKILL.md\n[x](data.csv#row=4)\n//- skills/x/data.csv", "");
}

#[test]
fn unserved_files_in_the_tree_are_valid_targets_without_a_uri() {
    check_resolved("//- docs/a.md\n![x](/static/logo.png)\n//- static/logo.png", "/static/logo.png -> -");
    check("//- docs/a.md\n![x](/static/logo.png)\n//- static/logo.png", "");
    check(
        "//- docs/a.md\n![x](/images/logo.png)",
        "docs/a.md:1:6: error[broken-link]: link `/images/logo.png` matches no file: no `docs/images/logo.png`",
    );
}

#[test]
fn reference_links_sharing_a_definition_report_once() {
    check(
        "//- docs/a.md\n[a][r] [b][r]\n\n[r]: missing.md",
        "docs/a.md:3:6: error[broken-link]: link `missing.md` matches no file: no `docs/missing.md`",
    );
}

#[test]
fn orphan_docs() {
    check_orphans(
        "//- docs/index.md\n[a](a.md)\n//- docs/a.md\n//- docs/b.md\n[self](b.md) [a](a.md)",
        "docs/b.md",
    );
    // Links from skills count.
    check_orphans("//- skills/x/SKILL.md\n//- docs/README.md\n//- docs/b.md", "docs/b.md");
    // Root index pages, READMEs and Hugo section pages and their pages are reached without links.
    check_orphans(
        "//- docs/README.md\n//- docs/sub/README.md\n//- docs/hugo/_index.md\n//- docs/hugo/page.md\n//- docs/hugo/bundle/index.md\n//- docs/plain/index.md\n//- docs/plain/page.md",
        "docs/plain/index.md docs/plain/page.md",
    );
    // Skill files are never orphans; a broken link does not count as a link.
    check_orphans("//- docs/README.md\n[x](gone.md)\n//- skills/x/SKILL.md\n//- skills/x/ref.md", "");
}

#[test]
fn ignored_targets_are_recorded_unresolved_and_unchecked() {
    let (res, _) =
        run_ignoring("//- docs/a.md\n[term](g) [x](/api/*) [y](/api/v1/) [z](gone.md)", &["g", "/api/*"]);
    let targets: Vec<_> = res.links[0].iter().map(|l| (l.target.as_str(), l.resolved.is_some())).collect();
    assert_eq!(targets, [("g", false), ("/api/*", false), ("/api/v1/", false), ("gone.md", false)]);
    let codes: Vec<_> = res.diagnostics.iter().map(|d| (d.code, d.column)).collect();
    assert_eq!(codes, [(Code::BrokenLink, 41), (Code::OrphanDoc, 1)]);
}

/// Path pieces that exercise every branch of target resolution.
const PARTS: &[&str] = &[
    "..",
    ".",
    "",
    "a",
    "A",
    "b.md",
    "%2e%2e",
    "%",
    "%zz",
    "#",
    "?",
    "日本",
    " ",
    "/",
    "_index.md",
    "x.html",
    "g",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Any target built from those pieces, as a relative, site-absolute, wiki or anchor link,
    /// resolves (or is reported at a real position) without a panic, from a doc and a skill.
    #[test]
    fn random_targets_never_panic(
        written in proptest::collection::vec(
            (
                proptest::sample::select(&["", "/", "[[", "#"][..]),
                proptest::collection::vec(proptest::sample::select(PARTS), 0..8),
            ),
            1..20,
        )
    ) {
        let paths = ["docs/_index.md", "docs/a/b.md", "docs/A/index.md", "skills/s/SKILL.md", "skills/s/a/x.md"];
        let uris: Vec<String> = paths.iter().map(|path| format!("uri:{path}")).collect();
        let mut targets = Targets::default();
        for (path, uri) in paths.into_iter().zip(&uris) {
            targets.uri_by_path.insert(path, uri);
            targets.anchors_by_path.insert(path, ["b"].into());
        }
        let mut links = Vec::new();
        for (prefix, pieces) in &written {
            let target: String = pieces.iter().map(|p| format!("{p}/")).collect();
            links.extend(analyze(&format!("[x]({prefix}{target}) [[{target}]]\n"), 1).links);
        }
        let sources = [
            LinkSource { path: "docs/a/b.md", origin: Origin::Doc, links: &links },
            LinkSource {
                path: "skills/s/SKILL.md",
                origin: Origin::SkillDocument { skill_dir: "skills/s".into() },
                links: &links,
            },
        ];
        let res = resolve(&sources, &targets);
        proptest::prop_assert_eq!(res.links.iter().map(Vec::len).collect::<Vec<_>>(), [links.len(), links.len()]);
        proptest::prop_assert!(res.diagnostics.iter().all(|d| d.line >= 1 && d.column >= 1 && !d.message.is_empty()));
    }
}

#[test]
fn many_sources_resolve_in_order_across_threads() {
    let mut fixture = String::from("//- docs/README.md\n[first](p000.md)\n");
    for i in 0..300 {
        fixture.push_str(&format!("//- docs/p{i:03}.md\n[next](p{:03}.md) [gone](gone{i}.md)\n", i + 1));
    }
    let (res, order) = run(&fixture);
    assert_eq!(res.links.len(), order.len());
    for (links, path) in res.links.iter().zip(&order) {
        let Some(i) = path.strip_prefix("docs/p").and_then(|p| p.strip_suffix(".md")) else { continue };
        let next = format!("uri:docs/p{:03}.md", i.parse::<u32>().unwrap() + 1);
        let expected = if i == "299" { None } else { Some(next.as_str()) };
        assert_eq!(links[0].resolved.as_deref(), expected, "{path}");
    }
    let broken: Vec<_> =
        res.diagnostics.iter().filter(|d| d.code == Code::BrokenLink).map(|d| d.path.as_str()).collect();
    assert_eq!(broken.len(), 301);
    assert!(broken.windows(2).all(|w| w[0] <= w[1]), "diagnostics come in source order");
    assert!(res.diagnostics.iter().all(|d| d.code != Code::OrphanDoc));
}

#[test]
fn percent_escapes_decode_once_and_malformed_ones_stay_as_written() {
    use super::forms::percent_decode;
    assert_eq!(percent_decode("a%20b.md"), "a b.md");
    assert_eq!(percent_decode("%2541"), "%41", "decoded once");
    // `%+2` is not an escape (a sign is not a hex digit), nor is a trailing `%` or `%4`.
    assert_eq!(percent_decode("a%+2b"), "a%+2b");
    assert_eq!(percent_decode("a%"), "a%");
    assert_eq!(percent_decode("a%4"), "a%4");
    // Bytes that are not UTF-8 leave the whole target as written.
    assert_eq!(percent_decode("caf%C3%A9%FF"), "caf%C3%A9%FF");
    assert_eq!(percent_decode("caf%C3%A9"), "café");
}
