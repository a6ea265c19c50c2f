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
    crate::support::repo().join("tests/fixtures")
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
        "folio: agent-skills: left out 1 entry with errors of its own (serving the rest; --strict refuses instead; \
         `folio check` reports each error):\n  description-too-long, 1 entry: skills/claude-api (first: \
         skills/claude-api/SKILL.md:4:3: `description` has 1068 characters, more than 1024)\n"
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
             cross-skill-link  allow  command line `--allow cross-skill-link`\n0 docs, 3 skills, 11 links checked: docs from docs/, \
             skills from skills/\n"
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

/// Every site path a diagnostic's message names in backticks, first one only.
fn target_of(message: &str) -> &str {
    message.split('`').nth(1).unwrap_or("")
}

#[test]
fn astro_docs_check_with_no_locale_or_jsx_errors_and_no_configuration() {
    let out = folio(&corpora(), &["check", "astro-docs", "--format", "github"]);
    assert_eq!(out.code, Some(1));
    expect_file("tests/fixtures/golden/astro-docs.check.github.txt", &out.stdout);
    // The only errors are links into pages the trim left out of every locale (see its SOURCE):
    // no link into an untranslated page, and no JSX expression, is an error.
    let out = folio(&corpora(), &["check", "astro-docs", "--format", "json"]);
    let diags: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    let docs = corpora().join("astro-docs/docs");
    let locales = ["en", "ja", "zh-cn", "ko", "ru"];
    let mut errors = 0;
    for d in diags.iter().filter(|d| d["severity"] == "error") {
        errors += 1;
        assert_eq!(d["code"], "broken-link", "{d}");
        let target = target_of(d["message"].as_str().unwrap());
        assert!(!target.contains('{'), "a JSX expression read as a link: {d}");
        let page = target.split(['#', '?']).next().unwrap().trim_matches('/');
        let page = locales.iter().find_map(|l| page.strip_prefix(&format!("{l}/"))).unwrap_or(page);
        for locale in locales {
            for form in [".mdx", ".md", "/index.mdx"] {
                let file = docs.join(format!("{locale}/{page}{form}"));
                assert!(!file.exists(), "{} exists, yet {d}", file.display());
            }
        }
    }
    assert!(errors > 0);
    // Links into a locale that lacks the page resolve to the default locale's page; the code that
    // records it is `allow` by default.
    assert!(!out.stdout.contains("locale-fallback"));
    let out = folio(&corpora(), &["check", "astro-docs", "--format", "json", "--warn", "locale-fallback"]);
    let diags: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
    let fallback: Vec<&Value> = diags.iter().filter(|d| d["code"] == "locale-fallback").collect();
    // Links between JSX tags (`<ReadMore>`, `<ListCard>`, `<Steps>`) count: MDX reads the text
    // between them as markdown. So does a `<LinkCard>`'s `href` (four of them, in `ja/` and
    // `ru/develop-and-build.mdx`, point into pages those locales lack).
    assert_eq!(fallback.len(), 462);
    assert!(fallback.iter().all(|d| d["severity"] == "warning"));
    let one =
        fallback.iter().find(|d| d["path"] == "astro-docs/docs/ja/basics/astro-components.mdx").unwrap();
    assert_eq!(
        one["message"],
        format!(
            "link `{}` names a page locale `ja` lacks; it resolves to the default locale's `{}`, as the site \
             renders it",
            target_of(one["message"].as_str().unwrap()),
            one["message"].as_str().unwrap().split('`').nth(5).unwrap()
        )
    );
    assert!(one["message"].as_str().unwrap().contains("`docs/en/"), "{one}");
}

#[test]
fn every_doc_has_a_locale_and_listings_filter_on_it() {
    let requests = [
        request(1, "resources/read", json!({ "uri": "resource://catalog/docs_index?lang=ja&limit=100" })),
        request(2, "resources/read", json!({ "uri": "resource://catalog/docs_index?lang=ZH-CN&limit=100" })),
        request(
            3,
            "tools/call",
            json!({ "name": "search_patterns", "arguments": { "query": "getStaticPaths", "lang": "en" } }),
        ),
        request(4, "resources/read", json!({ "uri": "resource://catalog/docs/ko/guides/routing.mdx" })),
        request(
            5,
            "completion/complete",
            json!({
                "ref": { "type": "ref/resource", "uri": "resource://catalog/docs_index{?q,tag,category,lang,prefix,updated_since,cursor,limit}" },
                "argument": { "name": "lang", "value": "z" },
            }),
        ),
    ];
    let (answers, stderr, code) = serve(&corpora(), &["--content", "astro-docs"], &requests);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, "", "link errors leave nothing out");
    let index = |i: usize| -> Value {
        serde_json::from_str(answers[i]["result"]["contents"][0]["text"].as_str().unwrap()).unwrap()
    };
    // The page holds the first 100 of the locale's docs; `total` counts them all.
    for (i, locale, n) in [(0, "ja", 81), (1, "zh-cn", 180)] {
        let page = index(i);
        assert_eq!(page["total"], n, "{locale}");
        let items = page["items"].as_array().unwrap().clone();
        assert_eq!(items.len(), n.min(100), "{locale}");
        assert!(
            items.iter().all(|d| d["locale"] == locale && d["path"].as_str().unwrap().starts_with(locale))
        );
    }
    let hits = answers[2]["result"]["structuredContent"]["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["uri"].as_str().unwrap().starts_with("resource://docs/en/")), "{hits:?}");
    // The page that defines `getStaticPaths()` in a heading, above the error pages that name it
    // in their titles; with `lang`, no other locale, but each hit names its translations.
    assert_eq!(hits[0]["uri"], "resource://docs/en/reference/routing-reference.mdx", "{hits:?}");
    assert_eq!(hits[0]["locale"], "en");
    let others: Vec<&str> =
        hits[0]["translations"].as_array().unwrap().iter().map(|t| t["locale"].as_str().unwrap()).collect();
    assert_eq!(others, ["ko", "zh-cn"], "{hits:?}");
    let detail = index(3);
    assert_eq!((&detail["path"], &detail["locale"]), (&json!("ko/guides/routing.mdx"), &json!("ko")));
    let values = &answers[4]["result"]["completion"]["values"];
    assert_eq!(values, &json!(["zh-cn"]));
}

#[test]
fn mdx_module_lines_and_jsx_expressions_are_not_prose_or_links() {
    let tree = Tree::new();
    tree.file("content/docs/index.md", "# Home\n\nSee [the guide](guide.mdx).\n");
    tree.file(
        "content/docs/guide.mdx",
        "---\ntitle: Guide\n---\nimport { Tabs, TabItem } from '@astrojs/starlight/components';\nimport Since from \
         '~/components/Since.astro';\n\nDeploy with one command.\n\n<a href={url}>x</a> <Card link={`/${lang}/x/`} />\n",
    );
    let compilation = folio::compile::compile(&folio::compile::Config::new(tree.join("content")));
    assert_eq!(compilation.diagnostics, []);
    let catalog = compilation.catalog.unwrap();
    let guide = catalog.docs.iter().find(|d| d.path == "guide.mdx").unwrap();
    assert_eq!(guide.description, "Deploy with one command.");
    assert_eq!(guide.locale, "en");
    let out = folio(tree.path(), &["search", "--content", "content", "starlight components"]);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.starts_with("no matches for `starlight components`"), "{}", out.stderr);
}

#[test]
fn a_project_serving_its_docs_is_itself_to_clients() {
    let tree = Tree::new();
    copy_dir(&fixtures().join("claude-skills/content"), &tree.join("content"));
    tree.file(
        "content/folio.toml",
        "[catalog]\nname = \"mydocs\"\nversion = \"2.3.0\"\ntitle = \"My docs\"\n",
    );
    let requests = [request(1, "skills/list", json!({})), request(2, "server/discover", json!({}))];
    let (answers, stderr, code) = serve(tree.path(), &["--content", "content"], &requests);
    assert_eq!(code, Some(0), "{stderr}");
    let folio_itself = json!({ "name": "folio", "version": env!("CARGO_PKG_VERSION") });
    for answer in &answers {
        let meta = &answer["result"]["_meta"];
        assert_eq!(meta["io.modelcontextprotocol/serverInfo"]["name"], "mydocs", "{answer}");
        assert_eq!(meta["io.modelcontextprotocol/serverInfo"]["version"], "2.3.0", "{answer}");
        assert_eq!(meta["dev.folio/server"], folio_itself, "{answer}");
    }
    assert_eq!(answers.len(), 2);
    // A library user names its own crate.
    let lenient = folio::compile::lenient(&folio::compile::Config::new(tree.join("content")));
    let server = folio::server::FolioServer::from_catalog(lenient.compilation.catalog.unwrap())
        .unwrap()
        .with_identity(folio::server::Identity { name: "acme-docs".to_owned(), version: "9.9.9".to_owned() });
    assert_eq!(server.query().catalog().settings.name, "mydocs");
    let info = rmcp::ServerHandler::get_info(&server);
    assert_eq!((info.server_info.name.as_str(), info.server_info.version.as_str()), ("acme-docs", "9.9.9"));
    let meta = info.meta.unwrap();
    assert_eq!(meta.get("dev.folio/server"), Some(&folio_itself));
    let crate_identity = folio::crate_identity!();
    assert_eq!(
        (crate_identity.name.as_str(), crate_identity.version.as_str()),
        ("folio", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn lenient_catalogs_are_deterministic() {
    let config = folio::compile::Config::new(corpora().join("agent-skills"));
    let encode = || {
        let lenient = folio::compile::lenient(&config);
        let catalog = lenient.compilation.catalog.expect("the valid skills are served");
        assert_eq!(catalog.settings.left_out.len(), 1);
        folio::catalog::codec::encode(&catalog).msgpack
    };
    assert!(encode() == encode(), "two lenient compiles of one tree give the same bytes");
}

#[test]
fn a_skill_with_fields_outside_the_spec_is_served_leniently_with_them_unchanged() {
    let tree = Tree::new();
    tree.file(
        "content/skills/release-notes/SKILL.md",
        "---\nname: release-notes\ndescription: Writes release notes.\nowner: docs-team\nwhen_to_use: at a release\n---\n# Release notes\n",
    );
    let config = folio::compile::Config::new(tree.join("content"));
    let codes: Vec<&str> = folio::compile::check(&config).diagnostics.iter().map(|d| d.code.name()).collect();
    assert_eq!(codes, ["unknown-field", "host-field"], "`folio check` still reports both");
    let lenient = folio::compile::lenient(&config);
    assert!(lenient.left_out.is_empty(), "{:?}", lenient.left_out);
    let catalog = lenient.compilation.catalog.expect("the skill is served");
    let skill = catalog.skill("release-notes").expect("the skill is in the catalog");
    let frontmatter = skill.frontmatter.get().expect("built in memory");
    assert_eq!(frontmatter["owner"], "docs-team");
    assert_eq!(frontmatter["when_to_use"], "at a release");
}
