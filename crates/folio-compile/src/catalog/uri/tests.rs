//! Tests of the URI builders and parsers (`super`): canonical forms, round trips, traversal refused.

use super::*;

#[test]
fn builds_canonical_uris() {
    assert_eq!(doc("guides/install.md"), "resource://docs/guides/install.md");
    assert_eq!(doc("a b/ü.md"), "resource://docs/a%20b/%C3%BC.md");
    assert_eq!(skill_file("acme/billing", "SKILL.md"), "skill://acme/billing/SKILL.md");
    assert_eq!(skill_dir("acme/billing"), "skill://acme/billing");
    assert_eq!(skill_detail("a/b"), "resource://catalog/skills/a%2Fb");
    // Query values keep their `&`, `=` and `+` through a parse.
    let uri = format!("{DOCS_INDEX}{}", query_string(&[("q", "a&b=c+d"), ("cursor", "x")]));
    assert_eq!(uri, "resource://catalog/docs_index?q=a%26b%3Dc%2Bd&cursor=x");
    assert_eq!(
        parse(&uri),
        Ok(Target::DocsIndex(vec![("q".into(), "a&b=c+d".into()), ("cursor".into(), "x".into())]))
    );
}

#[test]
fn decoding_rejects_traversal_in_every_spelling() {
    for bad in
        ["../x", "a/../b", "%2e%2e/x", "a/%2E%2E", "a//b", "a\\b", "a%5Cb", "a%00b", "./a", "", "%zz", "%ff"]
    {
        assert!(decode_path(bad).is_err(), "{bad:?} must be refused");
    }
    assert_eq!(decode_path("a%20b/c.md").unwrap(), "a b/c.md");
    assert_eq!(decode_path("a%2Fb").unwrap(), "a/b");
    assert!(decode_path("a/%252e%252e/b").is_err(), "double-encoded `..` is refused too");
}

#[track_caller]
fn check(uri: &str, expected: &str) {
    let got = match parse(uri) {
        Ok(target) => format!("{target:?}"),
        Err(err) => format!("error: {err}"),
    };
    assert_eq!(got, expected, "parsing {uri:?}");
}

#[test]
fn parses_every_family() {
    check("resource://catalog/about", "About");
    check("resource://catalog/skills_index", "SkillsIndex([])");
    check(
        "resource://catalog/skills_index?q=pdf+forms&limit=5",
        r#"SkillsIndex([("q", "pdf forms"), ("limit", "5")])"#,
    );
    check("resource://catalog/docs_index?prefix=guides%2F", r#"DocsIndex([("prefix", "guides/")])"#);
    check("resource://catalog/skills/pdf", r#"SkillDetail { skill_id: "pdf" }"#);
    check("resource://catalog/docs/guides/a%20b.md", r#"DocDetail { path: "guides/a b.md" }"#);
    check(
        "resource://docs/guides/install.md?section=linux&lines=1-2",
        r#"Doc { path: "guides/install.md", params: [("section", "linux"), ("lines", "1-2")] }"#,
    );
    check("skill://acme/billing/SKILL.md", r#"Skill { path: "acme/billing/SKILL.md", params: [] }"#);
    check("skill://acme/billing", r#"Skill { path: "acme/billing", params: [] }"#);
    check("resource://skills/pdf/document", r#"SkillDocument { skill_id: "pdf", params: [] }"#);
    check(
        "resource://skills/pdf/references/references%2Fapi.md",
        r#"SkillReference { skill_id: "pdf", ref_id: "references/api.md", params: [] }"#,
    );
}

#[test]
fn refuses_bad_uris_before_lookup() {
    let traversal = "error: path has a `.` or `..` segment, an empty segment or a backslash";
    check("resource://docs/../secret.md", traversal);
    check("resource://docs/a/%2e%2e/b.md", traversal);
    check("resource://docs/a/%252E%252E/b.md", traversal);
    check("resource://docs/a%5Cb.md", traversal);
    check("resource://docs/a\\b.md", traversal);
    check("resource://docs/a//b.md", traversal);
    check("resource://docs/./b.md", traversal);
    check("skill://../etc/passwd", traversal);
    check("resource://catalog/skills/a%2Fb", traversal);
    check("resource://skills/pdf/references/..", traversal);
    check("resource://skills/pdf/references/a%2F..%2Fb", traversal);
    let control = "error: contains a control character (such as CR, LF or NUL), raw or percent-encoded";
    check("resource://docs/a%00b.md", control);
    check("resource://docs/a\0b.md", control);
    check("resource://docs/a\r\nb.md", control);
    check("resource://docs/a%0D%0Ab.md", control);
    check("resource://docs/a%2500b.md", control);
    check("resource://docs/a\u{85}b.md", control);
    check("skill://acme/%0A/SKILL.md", control);
    check("resource://skills/pdf%00/document", control);
    check("resource://docs/a.md?section=x%00", control);
    check("resource://docs/a.md?x%00=1", control);
    let long = format!("resource://docs/{}.md", "y".repeat(MAX_URI_BYTES));
    check(&long, &format!("error: is {} bytes long; catalog URIs are at most 32768 bytes", long.len()));
    check("resource://docs/%zz.md", "error: malformed percent-escape");
    // `u8::from_str_radix` reads a sign: `%+2` once decoded to 0x02.
    check("resource://docs/%+2.md", "error: malformed percent-escape");
    check("resource://docs/a.md%", "error: malformed percent-escape");
    check("resource://docs/a.md%4", "error: malformed percent-escape");
    check("resource://docs/%ff.md", "error: percent-escapes decode to bytes that are not UTF-8");
    check(
        "file:///etc/passwd",
        "error: not a catalog URI (expected `resource://catalog/…`, `resource://docs/…`, `resource://skills/…` or `skill://…`)",
    );
    check("resource://docs/a.md?section=x&section=y", "error: query parameter `section` is given twice");
    check(
        "resource://docs/a.md?foo=1",
        "error: unknown query parameter `foo` (this URI accepts `section`, `lines`)",
    );
    check("resource://catalog/about?x=1", "error: this URI takes no query parameters");
    check("resource://docs/a.md#intro", "error: catalog URIs have no `#fragment`; use `?section=<id>`");
    let key = "k".repeat(1000);
    check(
        &format!("resource://docs/a.md?{key}=1"),
        &format!(
            "error: unknown query parameter `{}…(1000 bytes)` (this URI accepts `section`, `lines`)",
            &key[..256]
        ),
    );
}

#[test]
fn echoed_input_is_capped_on_a_character_boundary() {
    assert_eq!(echo("short"), "short");
    assert_eq!(echo(&"a".repeat(256)), "a".repeat(256));
    assert_eq!(echo(&"a".repeat(300)), format!("{}…(300 bytes)", "a".repeat(256)));
    // 255 ASCII bytes then a 3-byte character that would straddle the cut: it is left out whole.
    let straddling = format!("{}€tail", "a".repeat(255));
    assert_eq!(echo(&straddling), format!("{}…({} bytes)", "a".repeat(255), straddling.len()));
    let once = echo(&"b".repeat(20_000_000)).into_owned();
    assert_eq!(echo(&once), once, "capping twice changes nothing");
}

mod properties {
    use proptest::prelude::*;

    use super::super::*;

    /// One path segment a content tree can hold: no control characters, no `/`, `\\` or
    /// `%` (a file literally named `%2e%2e` is refused on purpose), not `.` or `..`.
    fn segment() -> impl Strategy<Value = String> {
        "[^/\\\\%\\p{Cc}]{1,12}".prop_filter("not a dot segment", |s| s != "." && s != "..")
    }

    fn path() -> impl Strategy<Value = String> {
        proptest::collection::vec(segment(), 1..5).prop_map(|segments| segments.join("/"))
    }

    /// Ways to spell a refused piece of a path.
    fn poison() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("..".to_owned()),
            Just(".".to_owned()),
            Just("%2e%2E".to_owned()),
            Just("%252e%252e".to_owned()),
            Just("".to_owned()),
            Just("a\\b".to_owned()),
            Just("a%5Cb".to_owned()),
            "\\PC*\\p{Cc}\\PC*",
            (0u8..0x20).prop_map(|b| format!("a%{b:02X}b")),
            Just("%7F".to_owned()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn any_string_parses_or_is_refused_without_panicking(raw in "\\PC*", tail in ".*") {
            let _ = parse(&raw);
            let _ = parse(&format!("{DOCS_PREFIX}{raw}"));
            let _ = parse(&format!("{SKILL_ALIAS_PREFIX}{raw}/references/{tail}"));
            let _ = parse(&format!("{DOCS_INDEX}?{tail}"));
            let _ = percent_decode(&raw);
        }

        #[test]
        fn built_uris_parse_back_to_what_built_them(doc_path in path(), skill in path(), file in path(), id in segment()) {
            prop_assert_eq!(parse(&doc(&doc_path)), Ok(Target::Doc { path: doc_path.clone(), params: vec![] }));
            prop_assert_eq!(parse(&doc_detail(&doc_path)), Ok(Target::DocDetail { path: doc_path.clone() }));
            prop_assert_eq!(
                parse(&skill_file(&skill, &file)),
                Ok(Target::Skill { path: format!("{skill}/{file}"), params: vec![] })
            );
            prop_assert_eq!(parse(&skill_detail(&id)), Ok(Target::SkillDetail { skill_id: id.clone() }));
            prop_assert_eq!(
                parse(&skill_reference_alias(&id, &file)),
                Ok(Target::SkillReference { skill_id: id.clone(), ref_id: file.clone(), params: vec![] })
            );
            prop_assert_eq!(
                parse(&with_section(&doc(&doc_path), &file)),
                Ok(Target::Doc { path: doc_path, params: vec![("section".to_owned(), file)] })
            );
        }

        #[test]
        fn a_poisoned_path_is_refused_in_every_family(
            before in path(), bad in poison(), after in path(), at_end in any::<bool>(),
        ) {
            let raw = if at_end { format!("{before}/{bad}") } else { format!("{before}/{bad}/{after}") };
            for uri in [
                format!("{DOCS_PREFIX}{raw}"),
                format!("{DOC_DETAIL_PREFIX}{raw}"),
                format!("{SKILL_PREFIX}{raw}"),
                format!("{SKILL_ALIAS_PREFIX}x/references/{}", raw.replace('/', "%2F")),
            ] {
                prop_assert!(parse(&uri).is_err(), "{uri:?} parsed");
            }
        }
    }
}
