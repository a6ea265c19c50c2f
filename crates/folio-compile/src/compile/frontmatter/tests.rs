use super::*;
use crate::compile::diagnostic::{Code, Severity};

fn doc(text: &str) -> (DocMeta, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let parsed = parse_doc("docs/a.md", text, false, &mut diags);
    (parsed.meta, diags)
}

fn skill(text: &str) -> (SkillMeta, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let parsed = parse_skill("skills/pdf/SKILL.md", "pdf", text, &mut diags);
    (parsed.meta, diags)
}

/// `code line:column` of every diagnostic, sorted.
#[track_caller]
fn check(diags: &[Diagnostic], expected: &[&str]) {
    let mut got: Vec<String> = diags.iter().map(|d| format!("{} {}:{}", d.code, d.line, d.column)).collect();
    got.sort();
    assert_eq!(got, expected, "{diags:#?}");
}

#[test]
fn split_handles_bom_crlf_and_empty_blocks() {
    let s = split("\u{feff}---\r\ntitle: x\r\n---\r\nbody\r\n");
    assert_eq!((s.yaml, s.body, s.body_line), (Some("title: x\r\n"), "body\r\n", 4));
    let s = split("---\n---\n# T\n");
    assert_eq!((s.yaml, s.body, s.body_line), (Some(""), "# T\n", 3));
    let s = split("----\n# not frontmatter\n");
    assert_eq!((s.yaml, s.body_line), (None, 1));
    assert!(split("---\ntitle: x\n").unclosed);
}

#[test]
fn unclosed_and_syntax_errors_are_located() {
    check(&doc("---\ntitle: x\n# body\n").1, &["frontmatter-unclosed 1:1"]);
    check(&doc("---\ntitle: x\nbad: [1, 2\n---\n").1, &["frontmatter-syntax 4:1"]);
    check(&doc("---\ntitle: x\n  - y: : z\n---\n").1, &["frontmatter-syntax 3:6"]);
    check(&doc("---\n- a\n- b\n---\n").1, &["frontmatter-type 2:1"]);
}

#[test]
fn doc_fields_are_typed() {
    let (meta, diags) =
        doc("---\ntitle: Install\ntags: [a, b]\nupdated: 2026-01-31\nweight: 3\naliases:\n  - /old/\n---\n");
    check(&diags, &[]);
    assert_eq!(meta.title.as_deref(), Some("Install"));
    assert_eq!(meta.tags, ["a", "b"]);
    assert_eq!(meta.updated.as_deref(), Some("2026-01-31"));
    assert_eq!(meta.aliases, ["/old/"]);
    assert_eq!(meta.extra["weight"], serde_json::json!(3));
    check(&doc("---\ntags: x\ntitle: [a]\n---\n").1, &["frontmatter-type 2:7", "frontmatter-type 3:8"]);
    check(&doc("---\nlast_updated: 2026-02-30\n---\n").1, &["invalid-date 2:15"]);
}

#[test]
fn dates_normalise_to_rfc3339() {
    assert_eq!(parse_date("2026-01-31").as_deref(), Some("2026-01-31"));
    assert_eq!(parse_date("2026-01-31 09:30:00").as_deref(), Some("2026-01-31T09:30:00Z"));
    assert_eq!(parse_date("2024-02-29T23:59:59.5+0130").as_deref(), Some("2024-02-29T23:59:59.5+01:30"));
    for bad in ["2025-02-29", "2026-1-31", "yesterday", "2026-01-31T25:00:00", "2026-01-31T10:00"] {
        assert_eq!(parse_date(bad), None, "{bad}");
    }
}

#[test]
fn skill_fields_are_checked() {
    let (meta, diags) =
        skill("---\nname: pdf\ndescription: Fill PDF forms.\nmetadata:\n  version: \"1.0\"\n---\n# PDF\n");
    check(&diags, &[]);
    assert_eq!(meta.name.unwrap().value, "pdf");
    assert_eq!(meta.version.as_deref(), Some("1.0"));
    assert_eq!(
        meta.frontmatter,
        serde_json::json!({"name": "pdf", "description": "Fill PDF forms.", "metadata": {"version": "1.0"}})
    );
    check(&skill("---\ndescription: d\n---\n").1, &["missing-name 1:1"]);
    check(&skill("---\nname: pdf\n---\n").1, &["missing-description 1:1"]);
    check(&skill("---\nname: pdf\ndescription: \"  \"\n---\n").1, &["missing-description 3:14"]);
    check(&skill("---\nname: PDF_Tool\ndescription: d\n---\n").1, &["invalid-name 2:7"]);
    check(&skill("---\nname: pdf-tools\ndescription: d\n---\n").1, &["name-mismatch 2:7"]);
    let long = format!(
        "---\nname: pdf\ndescription: {}\ncompatibility: {}\n---\n",
        "d".repeat(1025),
        "c".repeat(501)
    );
    check(&skill(&long).1, &["compatibility-too-long 4:16", "description-too-long 3:14"]);
    check(
        &skill("---\nname: pdf\ndescription: d\ncompatibility: \"\"\n---\n").1,
        &["compatibility-too-long 4:16"],
    );
    check(&skill("---\nname: pdf\ndescription: d\ncompatibility:\n---\n").1, &[]);
}

#[test]
fn extra_top_level_fields_are_refused_or_named_after_their_host() {
    let (meta, diags) =
        skill("---\nname: pdf\ndescription: d\nauthor: me\nwhen_to_use: forms\nversion: 2\n---\n");
    check(&diags, &["host-field 5:1", "unknown-field 4:1", "unknown-field 6:1"]);
    let unknown = diags.iter().find(|d| d.code == Code::UnknownField).unwrap();
    assert_eq!(
        unknown.message,
        "`author` is not an Agent Skills field; the specification allows only name, description, license, compatibility, metadata, allowed-tools"
    );
    assert!(unknown.help.as_deref().unwrap().contains("move it under `metadata:`"), "{unknown:?}");
    let host = diags.iter().find(|d| d.code == Code::HostField).unwrap();
    assert!(
        host.message.starts_with("`when_to_use` is read by Claude Code; other hosts ignore it"),
        "{host:?}"
    );
    // Extra fields pass through, unchanged, in the served frontmatter.
    assert_eq!(meta.frontmatter["author"], "me");
    assert_eq!(meta.frontmatter["version"], 2);
    // A typo of a spec field is named.
    let diags = skill("---\nname: pdf\ndescription: d\nlicence: MIT\n---\n").1;
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `license`? otherwise move it under `metadata:`"));
}

#[test]
fn folio_fields_come_from_metadata_strings() {
    let text = "---\nname: pdf\ndescription: d\nmetadata:\n  tags: \"forms, pdf ,,\"\n  capabilities: fill-forms\n  version: \"2.1\"\n  updated: \"2026-01-31\"\n---\n";
    let (meta, diags) = skill(text);
    check(&diags, &[]);
    assert_eq!(meta.tags, ["forms", "pdf"]);
    assert_eq!(meta.capabilities, ["fill-forms"]);
    assert_eq!((meta.version.as_deref(), meta.updated.as_deref()), (Some("2.1"), Some("2026-01-31")));
    check(
        &skill("---\nname: pdf\ndescription: d\nmetadata:\n  updated: \"soon\"\n---\n").1,
        &["invalid-date 5:12"],
    );
}

#[test]
fn spec_fields_are_typed_with_the_core_schema() {
    // A plain scalar YAML reads as a number or a boolean is not a string.
    for (value, kind) in
        [("123", "a number"), ("true", "a boolean"), ("1.5", "a number"), ("0x1F", "a number")]
    {
        let diags = skill(&format!("---\nname: {value}\ndescription: d\n---\n")).1;
        check(&diags, &["frontmatter-type 2:7"]);
        assert_eq!(diags[0].message, format!("`name` must be a string, but YAML reads `{value}` as {kind}"));
    }
    check(&skill("---\nname: pdf\ndescription: 42\n---\n").1, &["frontmatter-type 3:14"]);
    check(
        &skill("---\nname: pdf\ndescription: d\nmetadata:\n  version: 1.0\n---\n").1,
        &["frontmatter-type 5:12"],
    );
    check(
        &skill("---\nname: pdf\ndescription: d\nmetadata:\n  a:\n    b: c\n---\n").1,
        &["frontmatter-type 6:5"],
    );
    check(&skill("---\nname: pdf\ndescription: d\nmetadata: x\n---\n").1, &["frontmatter-type 4:11"]);
    check(
        &skill("---\nname: pdf\ndescription: d\nlicense: [MIT]\n---\n").1,
        &["frontmatter-ambiguous 4:10", "frontmatter-type 4:10"],
    );
    // Quoted, or a block scalar: a string.
    check(&skill("---\nname: pdf\ndescription: |\n  42\nlicense: \"2\"\n---\n").1, &[]);
}

#[test]
fn served_frontmatter_is_the_core_schema_value() {
    let text = "---\nname: pdf\ndescription: d\nn: 123\ns: !!str 123\ni: !!int \"7\"\nb: !!bool \"true\"\nf: 1.5e3\nq: '0x10'\nz: ~\nh: 0x10\no: 0o17\nl:\n  - yes\n---\n";
    let (meta, _) = skill(text);
    assert_eq!(
        meta.frontmatter,
        serde_json::json!({
            "name": "pdf", "description": "d", "n": 123, "s": "123", "i": 7, "b": true, "f": 1500.0,
            "q": "0x10", "z": null, "h": 16, "o": 15, "l": ["yes"],
        })
    );
    // The non-specific tag makes a string.
    assert_eq!(skill("---\nn: ! 123\n---\n").0.frontmatter["n"], "123");
}

#[test]
fn ambiguous_yaml_in_skills() {
    // YAML 1.1 readings of plain strings: warnings.
    let text = "---\nname: pdf\ndescription: d\nlicense: no\nmetadata:\n  a: off\n---\n";
    check(&skill(text).1, &["frontmatter-ambiguous 4:10", "frontmatter-ambiguous 6:6"]);
    // Anchors, aliases, tags and flow collections, which the official validator refuses: errors.
    let text = "---\nname: pdf\ndescription: d\nmetadata:\n  a: &x yes\n  b: *x\n  c: !!str 1\n---\n";
    let diags = skill(text).1;
    check(
        &diags,
        &[
            "frontmatter-ambiguous 5:9",
            "frontmatter-ambiguous 5:9",
            "frontmatter-ambiguous 6:6",
            "frontmatter-ambiguous 6:6",
            "frontmatter-ambiguous 7:12",
        ],
    );
    assert!(diags.iter().filter(|d| d.message.contains("uses")).all(|d| d.severity == Severity::Error));
    check(
        &skill("---\nname: pdf\ndescription: d\nmetadata: {a: b}\n---\n").1,
        &["frontmatter-ambiguous 4:11"],
    );
}

#[test]
fn duplicate_keys_are_errors_in_skills() {
    check(&skill("---\nname: pdf\ndescription: d\nname: pdf\n---\n").1, &["duplicate-key 4:1"]);
    check(
        &skill("---\nname: pdf\ndescription: d\nmetadata:\n  a: \"1\"\n  a: \"2\"\n---\n").1,
        &["duplicate-key 6:3"],
    );
}

#[test]
fn names_follow_the_spec_after_nfkc() {
    let named = |name: &str, dir: &str| {
        let mut diags = Vec::new();
        parse_skill(
            "skills/x/SKILL.md",
            dir,
            &format!("---\nname: {name}\ndescription: d\n---\n"),
            &mut diags,
        );
        diags.iter().map(|d| format!("{} {:?}", d.code, d.severity)).collect::<Vec<_>>()
    };
    assert!(named("données", "données").is_empty(), "lowercase non-ASCII letters are allowed");
    assert!(named("技能", "技能").is_empty(), "caseless letters are lowercase");
    assert_eq!(named("ｐｄｆ", "ｐｄｆ"), ["invalid-name Warning"]);
    assert_eq!(named("ｐｄｆ", "pdf"), ["invalid-name Warning"]);
    assert_eq!(named("Données", "Données"), ["invalid-name Error"]);
    assert_eq!(named("-pdf", "-pdf"), ["invalid-name Error"]);
    assert_eq!(named("pdf--x", "pdf--x"), ["invalid-name Error"]);
    assert_eq!(named("pdf_x", "pdf_x"), ["invalid-name Error"]);
    assert_eq!(named(&"é".repeat(65), &"é".repeat(65)), ["invalid-name Error"]);
    assert!(named(&"é".repeat(64), &"é".repeat(64)).is_empty());
    // Combining vowel signs are marks, not letters (Python's isalnum agrees).
    assert_eq!(named("नमस्ते", "नमस्ते"), ["invalid-name Error"]);
    assert_eq!(named("ⅻ", "ⅻ"), ["invalid-name Warning"], "NFKC makes it `xii`");
}

#[test]
fn a_byte_order_mark_before_the_fence_is_a_warning() {
    let (meta, diags) = skill("\u{feff}---\nname: pdf\ndescription: d\n---\n");
    check(&diags, &["byte-order-mark 1:1"]);
    assert_eq!(meta.name.unwrap().value, "pdf");
}

#[test]
fn repeated_keys_are_reported_in_narrow_and_wide_blocks() {
    // A few keys are checked by a scan, many by a map: both report each repeat at the later
    // key, naming the first one's line, and keep the last value.
    for width in [3, 100] {
        let mut text = String::from("---\ntitle: first\n");
        for i in 0..width {
            text.push_str(&format!("k{i}: v\n"));
        }
        text.push_str("title: second\nk1: again\n---\n");
        let (meta, diags) = doc(&text);
        let line = width + 3;
        let expected =
            [format!("frontmatter-ambiguous {line}:1"), format!("frontmatter-ambiguous {}:1", line + 1)];
        check(&diags, &expected.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(meta.title.as_deref(), Some("second"), "{width} keys");
        assert_eq!(
            diags.iter().map(|d| d.message.as_str()).collect::<Vec<_>>(),
            [
                "key `title` appears twice (first on line 2); YAML parsers disagree on which wins",
                "key `k1` appears twice (first on line 4); YAML parsers disagree on which wins",
            ],
            "{width} keys"
        );
    }
}

#[test]
fn alias_bombs_are_refused_quickly() {
    let mut text = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 9].join(", ")));
    }
    text.push_str("---\n");
    let (_, diags) = doc(&text);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].code, Code::FrontmatterSyntax);
    assert!(diags[0].message.contains("alias bomb"), "{}", diags[0].message);
}

#[test]
fn deep_nesting_is_refused() {
    let text = format!("---\nx: {}{}\n---\n", "[".repeat(200), "]".repeat(200));
    check(&doc(&text).1, &["frontmatter-syntax 2:67"]);
}

#[test]
fn flow_closer_at_column_one_is_accepted() {
    let (meta, diags) = doc("---\naliases: [\n  '/a/',\n  '/b/',\n]\ntitle: T\n---\n");
    check(&diags, &[]);
    assert_eq!(meta.aliases, ["/a/", "/b/"]);
    assert_eq!(meta.title.as_deref(), Some("T"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]

    /// Over YAML's metacharacters, every input gives a tree or a located error, never a panic.
    #[test]
    fn random_yaml_never_panics(yaml in "[-:\\[\\]{}&*!|>'\"#?,\n\t a1%@`.~]{0,64}") {
        if let Err(e) = parse_yaml(&yaml, 2) {
            proptest::prop_assert!(e.line >= 2 && e.column >= 1, "{:?}: {:?}", yaml, e);
        }
    }
}

/// The flat fast path returns exactly the tree yaml-rust2's events give, positions included,
/// whenever it returns one.
fn assert_flat_agrees(yaml: &str, first_line: u32) -> bool {
    let Some(flat) = flat::parse(yaml, first_line) else { return false };
    assert_eq!(Ok(flat), parse_events(yaml, first_line), "{yaml:?}");
    true
}

#[test]
fn flat_frontmatter_is_read_as_yaml_rust2_reads_it() {
    let read = |yaml: &str| flat::parse(yaml, 2).expect(yaml);
    for yaml in [
        "title: \"Release Payload\"\ndescription: 'it is'\ntags: [\"a\", b-c ,d.e]\nupdated: 2025-07-08\n",
        "\n  \nk: v w  \nk: []\nl: [ ]\nm:    \"q\"   \n_x-y: a (b), c/d+e",
        "title: \"C# and a: b\"\nnote: 'back\\slash'",
        // SKILL.md's nested blocks.
        "name: x\nmetadata:\n  owner: \"team\"\n  k: v\nlicense: MIT\n",
        "references:\n  - id: guide\n    path: references/guide.md\n  - id: api\n    title: \"API\"\nname: y",
        "a:   \n\n    - k: v\n\n      l: [x, \"y\"]\n    - m: n\nb:\n   c: d\n",
    ] {
        assert!(assert_flat_agrees(yaml, 2), "{yaml:?}");
        assert!(assert_flat_agrees(yaml, 40));
    }
    let node = read("a: b\n\nc: [\"d\", e]\n");
    assert_eq!((node.line, node.column, node.size), (2, 1, 7));
    // Anything else is left to yaml-rust2.
    for yaml in [
        "",
        "# comment\na: b",
        "a: b # comment",
        "a: |\n  text",
        "a:",
        "a:\nb: c",
        "a:\n- b: c",
        "a:\n  b: c\n   d: e",
        "a:\n  b: c\n d: e",
        "a:\n  b:\n    c: d",
        "a:\n  - b",
        "a:\n  -  b: c",
        "a:\n  - b: c\n    - d: e",
        "a:\n  - b: c\n     d: e",
        "a:\n  - b: c\n  d: e",
        "a:\n  -\n    b: c",
        "a:\n  # note\n  b: c",
        "a: \"esc\\\"aped\"",
        "a: 'it''s'",
        "a: \"two\n  lines\"",
        "a: [b,\n  c]",
        "a:b",
        "a : b",
        "a: &x b",
        "a: !!str b",
        "a: *x",
        "- a",
        "a: b\r\n",
        "a:\tb",
        "a: \"café\"",
        "a: b:c",
        "a: -b",
        "a: [b c]",
        "a: [b,]",
        "a: [\"b\"] c",
        "? a\n: b",
        "---\na: b",
        "a: ~",
        "\"a\": b",
    ] {
        assert!(flat::parse(yaml, 2).is_none(), "{yaml:?}");
    }
}

#[test]
fn flat_fast_path_agrees_with_yaml_rust2_on_generated_text() {
    // Lines the fast path reads, with one byte in three blocks replaced by a piece that may make
    // it give up (or may not): both sides of each of its rules are exercised.
    let lines = [
        "title: \"Q r: s\"",
        "k: 's t'",
        "tags: [\"a\", b-c, 1.5]",
        "x_y: []",
        "d-e:   word and (more)/x+y",
        "n: 12",
        "e: [ ]",
        "w: ['a b' ,c]",
        "metadata:\n  owner: \"t p\"\n  k: v",
        "references:\n  - id: a\n    path: x/y.md\n  - id: b\n    title: 'T'",
    ];
    let pieces = [
        ":", ": ", " ", "  ", "\n", "\n ", "\"", "'", "''", "[", "]", ",", "#", " #", "\\", "-", "- ", "~",
        "&", "*", "!", "|", ">", "{", "}", "?", "\u{e9}", "\t", "\r", "a", "",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize % n
    };
    let mut agreed = 0;
    for _ in 0..50_000 {
        let mut yaml = String::new();
        for _ in 0..1 + next(4) {
            for b in lines[next(lines.len())].bytes() {
                if next(24) == 0 {
                    yaml.push_str(pieces[next(pieces.len())]);
                } else {
                    yaml.push(char::from(b));
                }
            }
            yaml.push('\n');
        }
        agreed += usize::from(assert_flat_agrees(&yaml, 2));
    }
    // Both outcomes are common enough for the comparison to mean something.
    assert!((5_000..45_000).contains(&agreed), "{agreed} of 50,000 generated blocks took the fast path");
}

#[test]
fn flat_fast_path_agrees_with_yaml_rust2_on_real_frontmatter() {
    // Blocks copied out of real trees (the manual, the fixtures, the Hugo, Starlight and skills
    // corpora) into this package, so the test reads nothing outside it.
    let text = include_str!("real-frontmatter.txt");
    let (mut blocks, mut agreed) = (0, 0);
    for block in text.split("\n=== ").skip(1) {
        let (source, yaml) = block.split_once('\n').unwrap_or((block, ""));
        assert!(!yaml.is_empty(), "the block from {source} is empty");
        let file = format!("---\n{}\n---\n", yaml.trim_end_matches('\n'));
        let split = split(&file);
        let yaml = split.yaml.unwrap_or_else(|| panic!("the block from {source} has no frontmatter"));
        blocks += 1;
        agreed += usize::from(assert_flat_agrees(yaml, split.yaml_line));
    }
    assert!(blocks > 400, "only {blocks} frontmatter blocks");
    assert!(agreed * 4 > blocks, "only {agreed} of {blocks} frontmatter blocks took the fast path");
}

mod split_properties {
    //! Properties of [`split`] on generated files: it never panics, the block and the body are
    //! pieces of the file in order, and the body's first line number plus the body's lines is
    //! the file's line count (so every diagnostic in the body lands on the right line).

    use proptest::prelude::*;

    use super::split;

    /// Lines in the compiler's sense: `\n`s, plus one for a last line without one.
    fn lines(text: &str) -> usize {
        text.matches('\n').count() + usize::from(!text.is_empty() && !text.ends_with('\n'))
    }

    /// Files shaped like markdown with frontmatter: an optional BOM, an opening fence or a near
    /// miss, then lines holding fences, near-fences, YAML and multibyte text, with LF, CRLF, a
    /// lone CR or no line ending; and arbitrary text now and then.
    fn file() -> impl Strategy<Value = String> {
        let bom = prop_oneof![Just(""), Just("\u{feff}")];
        let open = prop_oneof![
            4 => Just("---\n"),
            2 => Just("---\r\n"),
            1 => Just("--- \t\n"),
            1 => Just("---"),
            1 => Just("----\n"),
            1 => Just("\n---\n"),
            1 => Just(""),
        ];
        let content = prop_oneof![
            Just("title: x"),
            Just("---"),
            Just("..."),
            Just("--- "),
            Just("-- -"),
            Just("\u{a0}---"),
            Just(""),
            Just("# é日"),
            Just("\u{feff}"),
        ];
        let ending = prop_oneof![4 => Just("\n"), 2 => Just("\r\n"), 1 => Just("\r"), 1 => Just("")];
        let lines = prop::collection::vec((content, ending), 0..10)
            .prop_map(|lines| lines.into_iter().map(|(c, e)| format!("{c}{e}")).collect::<String>());
        prop_oneof![
            6 => (bom, open, lines).prop_map(|(b, o, l)| format!("{b}{o}{l}")),
            1 => any::<String>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn the_block_and_body_partition_the_file_and_lines_add_up(text in file()) {
            let s = split(&text);
            let whole = text.strip_prefix('\u{feff}').unwrap_or(&text);
            // The body is the file's tail; what precedes it is the fences and the block.
            prop_assert!(whole.ends_with(s.body));
            let head = &whole[..whole.len() - s.body.len()];
            prop_assert_eq!(s.yaml_line, 2);
            match s.yaml {
                None => {
                    prop_assert_eq!(head, "");
                    prop_assert_eq!(s.body_line, 1);
                }
                Some(yaml) => {
                    prop_assert!(!s.unclosed);
                    // `---` line, the YAML, the closing fence line.
                    let first_end = head.find('\n').map_or(head.len(), |i| i + 1);
                    prop_assert_eq!(head[..first_end].trim_end_matches(['\n', '\r', ' ', '\t']), "---");
                    prop_assert!(head[first_end..].starts_with(yaml));
                    let fence = &head[first_end + yaml.len()..];
                    let fence = fence.trim_end_matches(['\n', '\r', ' ', '\t']);
                    prop_assert!(fence == "---" || fence == "...", "closing fence {:?}", fence);
                    // No fence inside the block: the first closing fence ends it.
                    for line in yaml.split_inclusive('\n') {
                        let line = line.trim_end_matches(['\n', '\r', ' ', '\t']);
                        prop_assert!(line != "---" && line != "...", "fence {:?} inside the block", line);
                    }
                }
            }
            if s.unclosed {
                prop_assert_eq!(s.body, whole);
            }
            // The body starts on line `body_line`: its lines and the ones before add up.
            if !s.body.is_empty() {
                prop_assert_eq!(head.matches('\n').count() + 1, s.body_line as usize);
                prop_assert_eq!(s.body_line as usize - 1 + lines(s.body), lines(whole));
            }
        }
    }
}

mod core_schema {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Integers and floats typed by their form; quoted and `!!str`-tagged, the same text is
        /// a string; `!!int` on a quoted integer is the number again.
        #[test]
        fn numbers_are_typed_and_tags_decide(n in any::<i64>(), f in -1.0e6f64..1.0e6) {
            let text = format!("---\nn: {n}\nq: \"{n}\"\ns: !!str {n}\ni: !!int \"{n}\"\nf: {f:?}\n---\n");
            let (meta, _) = skill(&text);
            let fm = &meta.frontmatter;
            prop_assert_eq!(&fm["n"], &serde_json::json!(n));
            prop_assert_eq!(&fm["q"], &serde_json::json!(n.to_string()));
            prop_assert_eq!(&fm["s"], &serde_json::json!(n.to_string()));
            prop_assert_eq!(&fm["i"], &serde_json::json!(n));
            prop_assert_eq!(fm["f"].as_f64(), Some(f));
        }

        /// A name of the wrong core-schema type is refused, never served as text.
        #[test]
        fn a_numeric_name_is_a_type_error(n in any::<i64>()) {
            let (meta, diags) = skill(&format!("---\nname: {n}\ndescription: d\n---\n"));
            prop_assert!(meta.name.is_none());
            prop_assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), vec![Code::FrontmatterType]);
        }
    }
}

#[test]
fn hugo_toml_frontmatter_is_read_like_yaml_with_its_positions() {
    let (meta, diags) = doc(
        "+++\ntitle = \"GSoC 2024\"\naliases = ['/gsoc', \"/events/gsoc\"]\ndate = 2024-05-01\nweight = 0x10\n\
         [params]\nicon = 'fa'\n+++\n# Body\n",
    );
    check(&diags, &[]);
    assert_eq!(meta.title.as_deref(), Some("GSoC 2024"));
    assert_eq!(meta.aliases, ["/gsoc", "/events/gsoc"]);
    assert_eq!(meta.extra["date"], "2024-05-01");
    assert_eq!(meta.extra["weight"], 16);
    assert_eq!(meta.extra["params"], serde_json::json!({ "icon": "fa" }));
    // A value of the wrong type, and a syntax error, at the place they are written.
    let (_, diags) = doc("+++\ntitle = \"t\"\ntags = 3\n+++\n");
    check(&diags, &["frontmatter-type 3:8"]);
    let (_, diags) = doc("+++\ntitle = \"t\"\ndescription = = 'x'\n+++\n");
    check(&diags, &["frontmatter-syntax 3:15"]);
    let (_, diags) = doc("\n+++\ntitle = \"t\"\ntags = 3\n+++\n");
    check(&diags, &["frontmatter-type 4:8"]);
    let (_, diags) = doc("+++\ntitle = \"t\"\n");
    assert_eq!(diags[0].message, "frontmatter opened with `+++` is never closed");
    // A skill's frontmatter is YAML only, as the Agent Skills specification reads it.
    let (meta, diags) = skill("+++\nname = \"pdf\"\ndescription = \"x\"\n+++\n# PDF\n");
    check(&diags, &["frontmatter-syntax 1:1"]);
    assert_eq!(meta.name, None);
}

#[test]
fn an_open_block_runs_to_the_end_of_the_file_where_the_site_reads_it_so() {
    // A VitePress home page all of front matter, never closed: gray-matter reads it whole.
    let text = "---\nlayout: home\ntitle: Vue Test Utils\nhero:\n  name: x\n";
    let mut diags = Vec::new();
    let parsed = parse_doc("docs/index.md", text, true, &mut diags);
    check(&diags, &[]);
    assert_eq!(parsed.meta.title.as_deref(), Some("Vue Test Utils"));
    assert_eq!((parsed.body, parsed.body_line), ("", 6));
    // Elsewhere it is never closed.
    let (_, diags) = doc(text);
    check(&diags, &["frontmatter-unclosed 1:1"]);
}
