//! Unit tests of the query layer over a small hand-built catalog: one `check` helper per query
//! function, many one-line cases.

use std::collections::BTreeMap;

use super::*;
use crate::catalog::{Entry, EntryKind, Link, LinkKind, Section, SkillFile, uri};

fn section(id: &str, title: &str, level: u8, line_start: u32, line_end: u32) -> Section {
    Section { id: id.to_owned(), title: title.to_owned(), level, line_start, line_end }
}

fn entry(kind: EntryKind, path: &str, mime: &str, bytes: &[u8]) -> Entry {
    let uri = match kind {
        EntryKind::Doc => uri::doc(path.strip_prefix("docs/").unwrap()),
        _ => {
            let rest = path.strip_prefix("skills/").unwrap();
            format!("{}{}", uri::SKILL_PREFIX, uri::encode_path(rest))
        }
    };
    let is_text = std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0);
    let total_lines =
        if is_text { read::line_starts(std::str::from_utf8(bytes).unwrap()).len() as u32 } else { 0 };
    Entry {
        uri,
        kind,
        path: path.to_owned(),
        mime: mime.to_owned(),
        size: bytes.len() as u64,
        blake3: blake3::hash(bytes).to_hex().to_string(),
        sha256: (kind != EntryKind::Doc).then(|| "sha256:00".to_owned()),
        is_text,
        total_lines,
        bytes: bytes.to_vec().into(),
        verdict: Default::default(),
    }
}

const INSTALL: &str = "---\ntitle: Install Folio\ntags: [setup]\n---\n# Install Folio\n\nDownload the binary.\n\n## Linux\n\nUse the tarball on Linux.\n\n## macOS\n\nUse Homebrew on macOS.\n";
const CONFIG: &str = "# Configuration\n\nSet `ttl_ms` in folio.toml to tune caching of menus.\n";
const SEARCH_JA: &str = "# 検索\n\n日本語の文書を検索できます。\n";
const SKILL_PDF: &str =
    "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\n## Forms\n\nSee [api](references/api.md).\n";
const SKILL_BILLING: &str = "---\nname: billing\ndescription: Bill customers.\n---\n# Billing\n\nInvoices.\n";

fn big_doc() -> String {
    let mut out = String::from("# Big\n\n");
    for i in 1..=30 {
        out.push_str(&format!("## Part {i}\n\nline of part {i} with some words\n\n"));
    }
    out
}

/// A catalog with three docs (one large), a Japanese doc, and two skills with files.
pub(super) fn fixture() -> Catalog {
    let big = big_doc();
    let mut entries = vec![
        entry(EntryKind::Doc, "docs/guides/install.md", "text/markdown", INSTALL.as_bytes()),
        entry(EntryKind::Doc, "docs/guides/big.md", "text/markdown", big.as_bytes()),
        entry(EntryKind::Doc, "docs/reference/config.md", "text/markdown", CONFIG.as_bytes()),
        entry(EntryKind::Doc, "docs/ja/検索.md", "text/markdown", SEARCH_JA.as_bytes()),
        entry(EntryKind::SkillDocument, "skills/pdf/SKILL.md", "text/markdown", SKILL_PDF.as_bytes()),
        entry(
            EntryKind::SkillFile,
            "skills/pdf/references/api.md",
            "text/markdown",
            b"# API\n\nfill_form(x)\n",
        ),
        entry(EntryKind::SkillFile, "skills/pdf/scripts/fill.py", "text/x-python", b"print('fill')\n"),
        entry(EntryKind::SkillFile, "skills/pdf/assets/logo.png", "image/png", b"\x89PNG\0\x01"),
        entry(
            EntryKind::SkillDocument,
            "skills/acme/billing/SKILL.md",
            "text/markdown",
            SKILL_BILLING.as_bytes(),
        ),
    ];
    entries.sort_by(|a, b| a.uri.cmp(&b.uri));
    let idx = |path: &str| entries.iter().position(|e| e.path == path).unwrap() as u32;
    let big_outline: Vec<Section> = std::iter::once(section("big", "Big", 1, 1, 2 + 4 * 30))
        .chain((1..=30).map(|i| {
            section(&format!("part-{i}"), &format!("Part {i}"), 2, 3 + 4 * (i - 1), 6 + 4 * (i - 1))
        }))
        .collect();
    let doc = |path: &str, title: &str, outline: Vec<Section>| Doc {
        path: path.to_owned(),
        entry: idx(&format!("docs/{path}")),
        title: title.to_owned(),
        description: format!("About {title}. Second sentence. Third one. Fourth one."),
        tags: Vec::new(),
        category: None,
        updated: None,
        aliases: Vec::new(),
        locale: "en".to_owned(),
        translation_key: path.rsplit_once('.').map_or(path, |(stem, _)| stem).to_owned(),
        extra: BTreeMap::new().into(),
        outline: outline.into(),
        links: Vec::new().into(),
        backlinks: Vec::new().into(),
    };
    let mut install = doc(
        "guides/install.md",
        "Install Folio",
        vec![
            section("install-folio", "Install Folio", 1, 5, 15),
            section("linux", "Linux", 2, 9, 12),
            section("macos", "macOS", 2, 13, 15),
        ],
    );
    install.tags = vec!["setup".to_owned()];
    install.category = Some("guides".to_owned());
    install.updated = Some("2025-03-01".to_owned());
    let mut config =
        doc("reference/config.md", "Configuration", vec![section("configuration", "Configuration", 1, 1, 3)]);
    config.updated = Some("2024-12-31".to_owned());
    config.links = vec![Link {
        target: "../guides/install.md#linux".to_owned(),
        kind: LinkKind::Relative,
        resolved: Some(uri::doc("guides/install.md")),
        anchor: Some("linux".to_owned()),
        line: 3,
    }]
    .into();
    install.backlinks = vec![uri::doc("reference/config.md")].into();
    let mut docs = vec![
        doc("guides/big.md", "Big", big_outline),
        install,
        doc("ja/検索.md", "検索", vec![section("検索", "検索", 1, 1, 3)]),
        config,
    ];
    docs.sort_by(|a, b| a.path.cmp(&b.path));
    let skill = |name: &str, path: &str, files: Vec<SkillFile>, outline: Vec<Section>| Skill {
        name: name.to_owned(),
        path: path.to_owned(),
        description: format!("The {name} skill."),
        title: name.to_uppercase(),
        license: None,
        compatibility: None,
        metadata: BTreeMap::new(),
        allowed_tools: None,
        tags: vec![format!("{name}-tag")],
        capabilities: vec!["documents".to_owned()],
        version: Some("1.0.0".to_owned()),
        updated: None,
        frontmatter: serde_json::json!({"name": name}).into(),
        document: idx(&format!("skills/{path}/SKILL.md")),
        files,
        outline: outline.into(),
        links: Vec::new().into(),
        backlinks: Vec::new().into(),
    };
    let file = |rel: &str| SkillFile {
        ref_id: rel.to_owned(),
        rel_path: rel.to_owned(),
        entry: idx(&format!("skills/pdf/{rel}")),
        title: None,
        description: None,
    };
    let skills = vec![
        skill("billing", "acme/billing", Vec::new(), vec![section("billing", "Billing", 1, 5, 7)]),
        skill(
            "pdf",
            "pdf",
            vec![file("assets/logo.png"), file("references/api.md"), file("scripts/fill.py")],
            vec![section("pdf", "PDF", 1, 5, 9), section("forms", "Forms", 2, 7, 9)],
        ),
    ];
    let search = crate::compile::search_index(&entries, &docs, &skills);
    let settings = Settings { max_read_bytes: 200, ..Settings::default() };
    Catalog { settings, source_fingerprint: "00".repeat(32), entries, docs, skills, search, vectors: None }
}

fn query() -> Query {
    Query::from_catalog(fixture())
}

fn err(e: QueryError) -> String {
    format!("error: {e}")
}

#[track_caller]
fn check(got: String, expected: &str) {
    assert_eq!(got.trim_end(), expected.trim_end());
}

fn list_lines(q: &Query, params: &ListParams) -> String {
    match q.list(params) {
        Ok(page) => {
            let mut out: Vec<String> =
                page.items.iter().map(|r| format!("{} {} {}", r.kind, r.name, r.uri)).collect();
            out.push(format!("total={} next={}", page.total, page.next_cursor.is_some()));
            out.join("\n")
        }
        Err(e) => err(e),
    }
}

#[test]
fn list_filters_and_orders() {
    let q = query();
    let all = ListParams::default();
    check(
        list_lines(&q, &all),
        "catalog about resource://catalog/about
catalog docs_index resource://catalog/docs_index
catalog skills_index resource://catalog/skills_index
doc guides/big.md resource://docs/guides/big.md
doc guides/install.md resource://docs/guides/install.md
doc ja/検索.md resource://docs/ja/%E6%A4%9C%E7%B4%A2.md
doc reference/config.md resource://docs/reference/config.md
skill billing skill://acme/billing/SKILL.md
skill pdf skill://pdf/SKILL.md
skill_file pdf/assets/logo.png skill://pdf/assets/logo.png
skill_file pdf/references/api.md skill://pdf/references/api.md
skill_file pdf/scripts/fill.py skill://pdf/scripts/fill.py
total=12 next=false",
    );
    let kind = |k| ListParams { kind: Some(k), ..ListParams::default() };
    check(
        list_lines(&q, &kind(Kind::Skill)),
        "skill billing skill://acme/billing/SKILL.md\nskill pdf skill://pdf/SKILL.md\ntotal=2 next=false",
    );
    let p = ListParams { prefix: Some("guides/".into()), ..ListParams::default() };
    check(
        list_lines(&q, &p),
        "doc guides/big.md resource://docs/guides/big.md\ndoc guides/install.md resource://docs/guides/install.md\ntotal=2 next=false",
    );
    let p = ListParams { prefix: Some("skills/pdf/r".into()), ..ListParams::default() };
    check(
        list_lines(&q, &p),
        "skill_file pdf/references/api.md skill://pdf/references/api.md\ntotal=1 next=false",
    );
    let p = ListParams { tag: Some("SETUP".into()), ..ListParams::default() };
    check(list_lines(&q, &p), "doc guides/install.md resource://docs/guides/install.md\ntotal=1 next=false");
    let p = ListParams { category: Some("guides".into()), ..ListParams::default() };
    check(list_lines(&q, &p), "doc guides/install.md resource://docs/guides/install.md\ntotal=1 next=false");
    let p = ListParams { capability: Some("documents".into()), ..ListParams::default() };
    check(
        list_lines(&q, &p),
        "skill billing skill://acme/billing/SKILL.md\nskill pdf skill://pdf/SKILL.md\ntotal=2 next=false",
    );
    let p = ListParams { updated_since: Some("2025-01-01".into()), ..ListParams::default() };
    check(list_lines(&q, &p), "doc guides/install.md resource://docs/guides/install.md\ntotal=1 next=false");
    let p = ListParams { kind: Some(Kind::Doc), sort: Sort::Updated, ..ListParams::default() };
    check(
        list_lines(&q, &p),
        "doc guides/install.md resource://docs/guides/install.md
doc reference/config.md resource://docs/reference/config.md
doc guides/big.md resource://docs/guides/big.md
doc ja/検索.md resource://docs/ja/%E6%A4%9C%E7%B4%A2.md
total=4 next=false",
    );
    let p = ListParams { updated_since: Some("yesterday".into()), ..ListParams::default() };
    check(
        list_lines(&q, &p),
        "error: invalid `updated_since`: `yesterday` is not a date (expected YYYY-MM-DD, e.g. 2025-01-31)",
    );
    let p = ListParams { limit: Some(0), ..ListParams::default() };
    check(list_lines(&q, &p), "error: invalid `limit`: must be at least 1");
}

#[test]
fn list_pages_with_stable_cursors() {
    let q = query();
    let mut params = ListParams { limit: Some(5), ..ListParams::default() };
    let mut seen = Vec::new();
    loop {
        let page = q.list(&params).unwrap();
        assert_eq!(page.total, 12);
        seen.extend(page.items.into_iter().map(|r| r.uri));
        match page.next_cursor {
            Some(c) => params.cursor = Some(c),
            None => break,
        }
    }
    let all: Vec<String> = q
        .list(&ListParams { limit: Some(100), ..ListParams::default() })
        .unwrap()
        .items
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert_eq!(seen, all, "pages concatenate to the full listing");

    let first = q.list(&ListParams { limit: Some(5), ..ListParams::default() }).unwrap();
    let cursor = first.next_cursor.unwrap();
    let other_filters =
        ListParams { kind: Some(Kind::Doc), cursor: Some(cursor.clone()), ..ListParams::default() };
    check(
        list_lines(&q, &other_filters),
        "error: invalid `cursor`: the cursor belongs to the same call with other filters; repeat the filters of the first page",
    );
    let garbage = ListParams { cursor: Some("%%%".into()), ..ListParams::default() };
    check(
        list_lines(&q, &garbage),
        "error: invalid `cursor`: not a cursor this server issued; pass back `next_cursor` exactly as received",
    );
    let mut other = fixture();
    other.settings.title = "Another catalog".to_owned();
    let other = Query::from_catalog(other);
    let foreign = ListParams { limit: Some(5), cursor: Some(cursor), ..ListParams::default() };
    check(
        list_lines(&other, &foreign),
        "error: invalid `cursor`: the cursor belongs to another version of the catalog (it was rebuilt or reloaded)",
    );
}

fn read_text(q: &Query, uri: &str, selection: &Selection) -> String {
    match q.read(uri, selection) {
        Ok(r) => match &r.content {
            ReadContent::Text(t) => format!(
                "{} {} lines={}/{:?} truncated={} next={:?}\n{t}",
                r.mime, r.kind, r.total_lines, r.range, r.truncated, r.next
            ),
            ReadContent::Blob(b) => format!("{} blob {} bytes", r.mime, b.len()),
        },
        Err(e) => err(e),
    }
}

#[test]
fn read_serves_exact_bytes_of_every_family() {
    let q = query();
    let none = Selection::default();
    assert_eq!(q.read("resource://docs/guides/install.md", &none).unwrap().text(), Some(INSTALL));
    assert_eq!(q.read("skill://pdf/SKILL.md", &none).unwrap().text(), Some(SKILL_PDF));
    assert_eq!(q.read("resource://skills/pdf/document", &none).unwrap().text(), Some(SKILL_PDF));
    let alias = q.read("resource://skills/pdf/references/references%2Fapi.md", &none).unwrap();
    assert_eq!(alias.text(), Some("# API\n\nfill_form(x)\n"));
    assert_eq!(alias.canonical_uri.as_deref(), Some("skill://pdf/references/api.md"));
    assert_eq!(alias.uri, "resource://skills/pdf/references/references%2Fapi.md");
    check(read_text(&q, "skill://pdf/assets/logo.png", &none), "image/png blob 6 bytes");
    check(
        read_text(&q, "resource://docs/ja/%E6%A4%9C%E7%B4%A2.md", &none),
        &format!("text/markdown doc lines=3/Some((1, 3)) truncated=false next=None\n{SEARCH_JA}"),
    );
    let detail = q.read("resource://catalog/docs/guides/install.md", &none).unwrap();
    assert_eq!(detail.text().unwrap(), q.detail("guides/install.md").unwrap().to_json());
    let detail = q.read("resource://catalog/skills/pdf", &none).unwrap();
    assert_eq!(detail.text().unwrap(), q.detail("pdf").unwrap().to_json());
    assert!(
        q.read("resource://catalog/about", &none).unwrap().text().unwrap().contains("4 docs and 2 skills")
    );
    let index: serde_json::Value = serde_json::from_str(
        q.read("resource://catalog/skills_index?tag=pdf-tag", &none).unwrap().text().unwrap(),
    )
    .unwrap();
    assert_eq!(index["items"][0]["id"], "pdf");
    assert_eq!(index["total"], 1);
    let index: serde_json::Value = serde_json::from_str(
        q.read("resource://catalog/docs_index?prefix=guides/&limit=1", &none).unwrap().text().unwrap(),
    )
    .unwrap();
    assert_eq!(index["items"][0]["path"], "guides/big.md");
    assert!(index["next_cursor"].is_string());
    // `next_uri` reads the next page with the same filters.
    let next = q.read(index["next_uri"].as_str().unwrap(), &none).unwrap();
    let next: serde_json::Value = serde_json::from_str(next.text().unwrap()).unwrap();
    assert_eq!(next["items"][0]["path"], "guides/install.md");
    assert!(next.get("next_uri").is_none(), "the last page has no next_uri");
}

#[test]
fn read_selects_sections_and_lines() {
    let q = query();
    let sel = |section: Option<&str>, start: Option<u32>, end: Option<u32>| Selection {
        section: section.map(str::to_owned),
        start_line: start,
        end_line: end,
    };
    let install = "resource://docs/guides/install.md";
    check(
        read_text(&q, install, &sel(Some("linux"), None, None)),
        "text/markdown doc lines=15/Some((9, 12)) truncated=false next=None\n## Linux\n\nUse the tarball on Linux.\n",
    );
    check(
        read_text(&q, "resource://docs/guides/install.md?section=macos", &Selection::default()),
        "text/markdown doc lines=15/Some((13, 15)) truncated=false next=None\n## macOS\n\nUse Homebrew on macOS.",
    );
    check(
        read_text(&q, "resource://docs/guides/install.md?lines=5-7", &Selection::default()),
        "text/markdown doc lines=15/Some((5, 7)) truncated=false next=None\n# Install Folio\n\nDownload the binary.",
    );
    check(
        read_text(&q, install, &sel(None, Some(14), Some(999))),
        "text/markdown doc lines=15/Some((14, 15)) truncated=false next=None\n\nUse Homebrew on macOS.",
    );
    check(
        read_text(&q, "skill://pdf/SKILL.md?section=forms", &Selection::default()),
        "text/markdown skill lines=9/Some((7, 9)) truncated=false next=None\n## Forms\n\nSee [api](references/api.md).",
    );
    check(
        read_text(&q, install, &sel(Some("linx"), None, None)),
        "error: invalid `section`: no section `linx` in `resource://docs/guides/install.md` (sections: install-folio, linux, macos)",
    );
    check(
        read_text(&q, install, &sel(None, Some(9), Some(3))),
        "error: invalid `lines`: range 9-3 is reversed (start > end)",
    );
    check(
        read_text(&q, install, &sel(None, Some(0), None)),
        "error: invalid `lines`: line numbers start at 1",
    );
    check(
        read_text(&q, install, &sel(None, Some(16), None)),
        "error: invalid `lines`: line 16 is past the end of `resource://docs/guides/install.md`, which has 15 lines",
    );
    check(
        read_text(&q, "resource://docs/guides/install.md?lines=abc", &Selection::default()),
        "error: invalid `lines`: `abc` is not a line range (expected A-B with 1 <= A <= B, e.g. 40-80)",
    );
    check(
        read_text(&q, "resource://docs/guides/install.md?lines=1-2", &sel(Some("linux"), None, None)),
        "error: invalid `section`: the selection is given twice (in the URI and as arguments); give it once",
    );
    check(
        read_text(&q, "skill://pdf/assets/logo.png", &sel(None, Some(1), None)),
        "error: invalid `lines`: `skill://pdf/assets/logo.png` is binary (image/png); it can only be read whole",
    );
    check(
        read_text(&q, "resource://catalog/about?section=x", &Selection::default()),
        "error: invalid `uri`: this URI takes no query parameters",
    );
    check(
        read_text(&q, "resource://catalog/about", &sel(Some("x"), None, None)),
        "error: invalid `section`: `resource://catalog/about` is generated JSON or markdown; `section` and lines apply to docs and skill files",
    );
}

#[test]
fn large_docs_are_read_in_bounded_parts() {
    let q = query();
    let big = q.read("resource://docs/guides/big.md", &Selection::default()).unwrap();
    let text = big.text().unwrap();
    assert!(big.truncated);
    let (body, marker) = text.rsplit_once("<!-- folio:").unwrap();
    assert!(body.len() <= 200, "the part before the marker respects max_read_bytes");
    assert!(body.ends_with('\n'), "cut on a line boundary");
    let (_, last) = big.range.unwrap();
    let next = format!("resource://docs/guides/big.md?lines={}-{}", last + 1, big.total_lines);
    assert_eq!(big.next.as_deref(), Some(next.as_str()));
    assert!(marker.contains(&format!("next: {next}")), "{marker}");
    assert!(marker.contains("resource://docs/guides/big.md?section=part-30"), "{marker}");
    // Following `next` until the end reassembles the exact bytes.
    let mut whole = body.to_owned();
    let mut next = big.next;
    while let Some(uri) = next {
        let part = q.read(&uri, &Selection::default()).unwrap();
        let text = part.text().unwrap();
        whole.push_str(text.rsplit_once("<!-- folio:").map_or(text, |(body, _)| body));
        next = part.next;
    }
    assert_eq!(whole, big_doc());
    // Skill files are exempt: SEP-2640 hosts verify the whole file.
    let mut catalog = fixture();
    catalog.settings.max_read_bytes = 10;
    let q = Query::from_catalog(catalog);
    assert_eq!(q.read("skill://pdf/SKILL.md", &Selection::default()).unwrap().text(), Some(SKILL_PDF));
}

#[track_caller]
fn check_read_error(q: &Query, uri: &str, expected: &str) {
    check(read_text(q, uri, &Selection::default()), expected);
}

#[test]
fn bad_uris_are_refused_without_content() {
    let q = query();
    let traversal = "error: invalid `uri`: path has a `.` or `..` segment, an empty segment or a backslash";
    for bad in [
        "resource://docs/../Cargo.toml",
        "resource://docs/guides/%2e%2e/%2e%2e/secret",
        "resource://docs/guides%5Cinstall.md",
        "resource://docs/guides\\install.md",
        "skill://pdf/../../etc/passwd",
        "resource://skills/pdf/references/..%2F..%2Fx",
        "resource://skills/..%2Fpdf/document",
    ] {
        check_read_error(&q, bad, traversal);
    }
    let control =
        "error: invalid `uri`: contains a control character (such as CR, LF or NUL), raw or percent-encoded";
    for bad in [
        "resource://docs/guides/install.md%00",
        "resource://docs/guides/a\r\nb.md",
        "skill://pdf/%0A/SKILL.md",
    ] {
        check_read_error(&q, bad, control);
    }
    check_read_error(
        &q,
        "resource://docs/guides/instal.md",
        "error: no doc `guides/instal.md`; did you mean `guides/install.md`?",
    );
    check_read_error(&q, "resource://skills/pdff/document", "error: no skill `pdff`; did you mean `pdf`?");
    check_read_error(
        &q,
        "resource://skills/pdf/references/api",
        "error: no reference `api` in skill `pdf`; did you mean `resource://skills/pdf/references/references%2Fapi.md`?",
    );
    check_read_error(
        &q,
        "skill://pdf/references/apii.md",
        "error: no skill file `skill://pdf/references/apii.md`; did you mean `skill://pdf/references/api.md`?",
    );
    check_read_error(
        &q,
        "skill://pdf",
        "error: invalid `uri`: `skill://pdf` is a skill directory, not a file",
    );
    let e = q.read("resource://docs/nope.md", &Selection::default()).unwrap_err();
    assert!(e.is_not_found());
    let e = q.read("resource://docs/../x", &Selection::default()).unwrap_err();
    assert!(matches!(e, QueryError::InvalidParams { param: "uri", .. }));
}

fn resolve_line(q: &Query, id: &str) -> String {
    match q.resolve(id) {
        Ok(r) => format!("{} {}", r.kind(), r.uri()),
        Err(e) => err(e),
    }
}

#[test]
fn resolve_accepts_what_people_type() {
    let q = query();
    let cases = [
        ("pdf", "skill skill://pdf/SKILL.md"),
        ("PDF", "skill skill://pdf/SKILL.md"),
        ("acme/billing", "skill skill://acme/billing/SKILL.md"),
        ("skills/acme/billing/SKILL.md", "skill skill://acme/billing/SKILL.md"),
        ("guides/install.md", "doc resource://docs/guides/install.md"),
        ("docs/guides/install.md", "doc resource://docs/guides/install.md"),
        ("guides/install", "doc resource://docs/guides/install.md"),
        ("Guides/Install", "doc resource://docs/guides/install.md"),
        ("pdf/references/api.md", "skill_file skill://pdf/references/api.md"),
        ("resource://catalog/docs/guides/install.md", "doc resource://docs/guides/install.md"),
        ("resource://docs/guides/install.md?section=linux", "doc resource://docs/guides/install.md"),
        ("resource://skills/pdf/references/scripts%2Ffill.py", "skill_file skill://pdf/scripts/fill.py"),
        ("skill://pdf", "skill skill://pdf/SKILL.md"),
        ("resource://catalog/about", "catalog resource://catalog/about"),
        ("pdff", "error: no skill or doc `pdff`; did you mean `pdf`?"),
        ("guides/instal", "error: no skill or doc `guides/instal`; did you mean `guides/install.md`?"),
        ("homebrew", "error: no skill or doc `homebrew`; did you mean `guides/install.md`?"),
        (
            "../etc/passwd",
            "error: invalid `id`: path has a `.` or `..` segment, an empty segment or a backslash",
        ),
        ("a\\b", "error: invalid `id`: path has a `.` or `..` segment, an empty segment or a backslash"),
        (
            "a\0b",
            "error: invalid `id`: contains a control character (such as CR, LF or NUL), raw or percent-encoded",
        ),
        (
            "%2e%2e/secret",
            "error: invalid `id`: path has a `.` or `..` segment, an empty segment or a backslash",
        ),
        (
            "guides/%2E%2E/x",
            "error: invalid `id`: path has a `.` or `..` segment, an empty segment or a backslash",
        ),
        ("", "error: invalid `id`: is empty; give a skill id, a doc path or a catalog URI"),
        (
            "ftp://x",
            "error: invalid `uri`: not a catalog URI (expected `resource://catalog/…`, `resource://docs/…`, `resource://skills/…` or `skill://…`)",
        ),
    ];
    for (id, expected) in cases {
        assert_eq!(resolve_line(&q, id), expected, "resolving {id:?}");
    }
    let e = q.resolve("pdff").unwrap_err();
    assert_eq!(e.repair(), "did you mean `pdf`? Call search_patterns or list_resources to see what exists");
}

#[test]
fn details_list_files_outline_and_links() {
    let q = query();
    let pdf = q.skill_detail("pdf").unwrap();
    let files: Vec<String> =
        pdf.files.iter().map(|f| format!("{} {} {}", f.ref_id, f.uri, f.alias_uri)).collect();
    assert_eq!(
        files,
        [
            "SKILL.md skill://pdf/SKILL.md resource://skills/pdf/document",
            "assets/logo.png skill://pdf/assets/logo.png resource://skills/pdf/references/assets%2Flogo.png",
            "references/api.md skill://pdf/references/api.md resource://skills/pdf/references/references%2Fapi.md",
            "scripts/fill.py skill://pdf/scripts/fill.py resource://skills/pdf/references/scripts%2Ffill.py",
        ]
    );
    assert_eq!(pdf.outline[1].uri, "skill://pdf/SKILL.md?section=forms");
    assert_eq!(pdf.directory_uri, "skill://pdf");
    let install = q.doc_detail("guides/install.md").unwrap();
    assert_eq!(install.backlinks, ["resource://docs/reference/config.md"]);
    assert_eq!(install.outline[1].uri, "resource://docs/guides/install.md?section=linux");
    assert_eq!((install.outline[1].line_start, install.outline[1].line_end), (9, 12));
    let config = q.detail("resource://docs/reference/config.md").unwrap();
    let json: serde_json::Value = serde_json::from_str(&config.to_json()).unwrap();
    assert_eq!(json["links"][0]["uri"], "resource://docs/guides/install.md");
    assert_eq!(json["kind"], "doc");
    // A skill file's id gives its skill's detail.
    assert_eq!(
        q.detail("skill://pdf/scripts/fill.py").unwrap().detail_uri(),
        "resource://catalog/skills/pdf"
    );
    check(err(q.skill_detail("pd").unwrap_err()), "error: no skill `pd`; did you mean `pdf`?");
    check(
        err(q.doc_detail("../x").unwrap_err()),
        "error: invalid `path`: path has a `.` or `..` segment, an empty segment or a backslash",
    );
}

fn search_lines(q: &Query, params: &SearchParams) -> String {
    match q.search(params) {
        Ok(page) => page
            .items
            .iter()
            .map(|h| format!("{} | {} | {}", h.uri, h.snippet, h.section_uri.as_deref().unwrap_or("-")))
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => err(e),
    }
}

#[test]
fn search_ranks_marks_and_filters() {
    let q = query();
    let s = |text: &str| SearchParams { query: text.to_owned(), ..SearchParams::default() };
    check(
        search_lines(&q, &s("homebrew macos")),
        "resource://docs/guides/install.md | …## **macOS** Use **Homebrew** on **macOS**. | resource://docs/guides/install.md?section=macos",
    );
    check(
        search_lines(&q, &s("文書")),
        "resource://docs/ja/%E6%A4%9C%E7%B4%A2.md | # 検索 日本語の**文書**を検索できます。 | resource://docs/ja/%E6%A4%9C%E7%B4%A2.md?section=%E6%A4%9C%E7%B4%A2",
    );
    check(
        search_lines(&q, &s("検索")).lines().next().unwrap().split(" | ").next().unwrap().to_owned(),
        "resource://docs/ja/%E6%A4%9C%E7%B4%A2.md",
    );
    check(
        search_lines(&q, &s("MENUS")),
        "resource://docs/reference/config.md | …Set `ttl_ms` in folio.toml to tune caching of **menus**. | resource://docs/reference/config.md?section=configuration",
    );
    check(
        search_lines(&q, &s("configur")).split(" | ").next().unwrap().to_owned(),
        "resource://docs/reference/config.md",
    );
    let pdf = SearchParams { query: "forms".into(), kind: Some(Kind::Skill), ..SearchParams::default() };
    check(search_lines(&q, &pdf).split(" | ").next().unwrap().to_owned(), "skill://pdf/SKILL.md");
    let files = SearchParams { query: "fill".into(), kind: Some(Kind::SkillFile), ..SearchParams::default() };
    check(
        search_lines(&q, &files)
            .lines()
            .map(|l| l.split(" | ").next().unwrap())
            .collect::<Vec<_>>()
            .join(" "),
        "skill://pdf/scripts/fill.py skill://pdf/references/api.md",
    );
    let tagged = SearchParams { query: "linux".into(), tag: Some("nope".into()), ..SearchParams::default() };
    check(search_lines(&q, &tagged), "");
    check(search_lines(&q, &s("")), "error: invalid `query`: is empty; give one or more words to search for");
    check(
        search_lines(&q, &s("  \t ")),
        "error: invalid `query`: is empty; give one or more words to search for",
    );
    check(
        search_lines(&q, &s("?!*(){}")),
        "error: invalid `query`: `?!*(){}` has no words to search for (only punctuation or symbols)",
    );
    check(
        search_lines(&q, &s(&"x".repeat(1001))),
        "error: invalid `query`: is longer than 1000 characters; search for a few distinctive words",
    );
    check(search_lines(&q, &s("zzzzqqq")), "");
}

#[test]
fn search_is_deterministic_and_paginates() {
    let q = query();
    let params = SearchParams { query: "part words".into(), limit: Some(1), ..SearchParams::default() };
    let first = q.search(&params).unwrap();
    assert_eq!(first.total, 1);
    let all =
        q.search(&SearchParams { query: "the".into(), limit: Some(100), ..SearchParams::default() }).unwrap();
    let mut params = SearchParams { query: "the".into(), limit: Some(2), ..SearchParams::default() };
    let mut seen = Vec::new();
    loop {
        let page = q.search(&params).unwrap();
        seen.extend(page.items.iter().map(|h| h.uri.clone()));
        match page.next_cursor {
            Some(c) => params.cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, all.items.iter().map(|h| h.uri.clone()).collect::<Vec<_>>());
    let scores: Vec<f32> = all.items.iter().map(|h| h.score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");
    let bad = SearchParams {
        query: "the".into(),
        cursor: Some(
            q.list(&ListParams { limit: Some(1), ..ListParams::default() }).unwrap().next_cursor.unwrap(),
        ),
        ..SearchParams::default()
    };
    check(
        search_lines(&q, &bad),
        "error: invalid `cursor`: the cursor belongs to another call (`list`, not `search`)",
    );
    // Meaning alone needs vectors: refused with the way back to words.
    let semantic = SearchParams { query: "the".into(), mode: Mode::Semantic, ..SearchParams::default() };
    let refused = q.search(&semantic).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "invalid `mode`: semantic search is not available: the catalog was built without vectors \
         (`folio build --model DIR`)"
    );
    assert_eq!(
        refused.repair(),
        "leave `mode` out or pass `keyword`: both rank by words where meaning cannot be used \
         (`resource://catalog/about` says which search this catalog has)"
    );
}

fn complete_line(q: &Query, argument: &str, value: &str, context: &[(&str, &str)]) -> String {
    let context: BTreeMap<String, String> =
        context.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    match q.complete(argument, value, &context) {
        Ok(c) => format!("{} total={} more={}", c.values.join(","), c.total, c.has_more),
        Err(e) => err(e),
    }
}

#[test]
fn completion_is_ranked_and_scoped() {
    let q = query();
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case<'_>; 13] = [
        ("skill_id", "", &[], "billing,pdf total=2 more=false"),
        ("skill_id", "p", &[], "pdf total=1 more=false"),
        ("skill_path", "acme", &[], "acme/billing total=1 more=false"),
        (
            "file",
            "",
            &[("skill_path", "pdf")],
            "SKILL.md,assets/logo.png,references/api.md,scripts/fill.py total=4 more=false",
        ),
        ("file", "api", &[("skill_path", "pdf")], "references/api.md total=1 more=false"),
        ("file", "", &[], " total=0 more=false"),
        (
            "ref_id",
            "s",
            &[("skill_id", "pdf")],
            "scripts/fill.py,assets/logo.png,references/api.md total=3 more=false",
        ),
        ("path", "guides/", &[], "guides/big.md,guides/install.md total=2 more=false"),
        ("path", "install", &[], "guides/install.md total=1 more=false"),
        ("section", "", &[("path", "guides/install.md")], "install-folio,linux,macos total=3 more=false"),
        ("tag", "", &[], "billing-tag,pdf-tag,setup total=3 more=false"),
        ("lang", "", &[], "en total=1 more=false"),
        (
            "colour",
            "",
            &[],
            "error: invalid `argument`: no template variable `colour` (known: skill_id, skill_path, file, ref_id, path, section, tag, capability, category, lang)",
        ),
    ];
    for (argument, value, context, expected) in cases {
        assert_eq!(complete_line(&q, argument, value, context), expected, "{argument}={value:?}");
    }
    check(
        complete_line(&q, "section", "part", &[("path", "guides/big.md")])
            .split(" total")
            .nth(1)
            .unwrap()
            .to_owned(),
        "=30 more=false",
    );
    check(complete_line(&q, "capability", "doc", &[]), "documents total=1 more=false");
    check(complete_line(&q, "category", "", &[]), "guides total=1 more=false");
}

#[test]
fn directories_list_direct_children() {
    let q = query();
    let lines = |uri: &str| match q.directory(uri, None, None) {
        Ok(page) => page.items.iter().map(|d| format!("{} {}", d.uri, d.mime)).collect::<Vec<_>>().join("\n"),
        Err(e) => err(e),
    };
    check(
        lines("skill://pdf"),
        "skill://pdf/SKILL.md text/markdown\nskill://pdf/assets inode/directory\nskill://pdf/references inode/directory\nskill://pdf/scripts inode/directory",
    );
    check(lines("skill://pdf/references"), "skill://pdf/references/api.md text/markdown");
    check(lines("skill://acme/billing"), "skill://acme/billing/SKILL.md text/markdown");
    check(
        lines("skill://pdf/SKILL.md"),
        "error: invalid `uri`: `skill://pdf/SKILL.md` is a file, not a directory; read it with resources/read",
    );
    check(lines("skill://acme"), "error: invalid `uri`: `skill://acme` is not inside any skill");
    check(
        lines("skill://pdf/nope"),
        "error: invalid `uri`: `skill://pdf/nope` is not a directory of this skill",
    );
    check(
        lines("resource://docs/guides"),
        "error: invalid `uri`: `resource://docs/guides` is not a skill directory URI (`skill://{skill_path}[/{dir}]`)",
    );
    check(
        lines("skill://pdf/../x"),
        "error: invalid `uri`: path has a `.` or `..` segment, an empty segment or a backslash",
    );
    let page = q.directory("skill://pdf", None, Some(2)).unwrap();
    let rest = q.directory("skill://pdf", page.next_cursor.as_deref(), Some(2)).unwrap();
    assert_eq!((page.items.len(), rest.items.len(), rest.next_cursor), (2, 2, None));
}

#[test]
fn opens_encoded_catalogs_without_copying_and_refuses_tampering() {
    let encoded = crate::catalog::codec::encode(&fixture());
    let q = Query::open(encoded.msgpack.clone()).unwrap();
    assert_eq!(q.catalog_hash(), encoded.catalog_hash);
    assert_eq!(Query::from_catalog(fixture()).catalog_hash(), encoded.catalog_hash);
    assert_eq!(q.read("skill://pdf/SKILL.md", &Selection::default()).unwrap().text(), Some(SKILL_PDF));
    assert_eq!(
        q.search(&SearchParams { query: "homebrew".into(), ..SearchParams::default() }).unwrap().total,
        1
    );
    let mut tampered = encoded.msgpack.clone();
    let at = tampered.windows(8).position(|w| w == b"Homebrew").unwrap();
    tampered[at] = b'h';
    // A body byte is checked when the body is first served: the catalog opens, that doc is
    // refused (`query/tamper_tests.rs` flips a byte in every region).
    let q = Query::open(tampered).unwrap();
    let install = q.read("resource://docs/guides/install.md", &Selection::default()).unwrap_err();
    assert!(install.is_corrupt_catalog(), "{install}");
    let truncated = encoded.msgpack[..encoded.msgpack.len() / 2].to_vec();
    assert!(Query::open(truncated).is_err());
}

#[test]
fn descriptions_are_cut_after_three_sentences() {
    #[track_caller]
    fn check(text: &str, expected: &str) {
        assert_eq!(super::snippet::three_sentences(text), expected, "{text:?}");
    }
    check("One. Two. Three. Four.", "One. Two. Three.");
    check("Version 1.2 is out. Yes! Really? More.", "Version 1.2 is out. Yes! Really?");
    check("Ends here.\nNext line! Third?\tFourth.", "Ends here.\nNext line! Third?");
    check("No end at all", "No end at all");
    check("Two only. Right.", "Two only. Right.");
    check("", "");
    // `。` ends a sentence only before whitespace or the end, like the ASCII marks.
    check("一。 二。 三。 四。", "一。 二。 三。");
    check("一。二。三。四", "一。二。三。四");
    check("Café. Naïve! Über? Rest", "Café. Naïve! Über?");
}
