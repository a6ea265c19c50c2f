use std::borrow::Cow;

use folio::compile::{Code, sort_diagnostics as sort};

use super::*;

fn sample() -> Vec<Diagnostic> {
    let mut v = vec![
        Diagnostic::warning(Code::OrphanDoc, "docs/b.md", 1, 1, "no doc links to `b.md`"),
        Diagnostic::error(Code::BrokenLink, "docs/a.md", 2, 7, "link to `x.md` does not resolve")
            .with_help("did you mean `X.md`?"),
    ];
    sort(&mut v);
    v
}

#[test]
fn human_shows_location_source_line_caret_and_help() {
    let source = |p: &str| (p == "docs/a.md").then(|| "# A\nsee [x](x.md)\n".to_owned());
    let out = render_human(&sample(), "content", &source, false);
    let expected = "\
content/docs/a.md:2:7: error[broken-link]: link to `x.md` does not resolve
  |
2 | see [x](x.md)
  |       ^
  = help: did you mean `X.md`?

content/docs/b.md:1:1: warning[orphan-doc]: no doc links to `b.md`

by code: 1 broken-link (error), 1 orphan-doc (warning)
1 error, 1 warning
";
    assert_eq!(out, expected);
}

#[test]
fn github_escapes_properties_and_data() {
    let out = render_github(&sample(), "site/content");
    assert_eq!(
        out.lines().next().unwrap(),
        "::error file=site/content/docs/a.md,line=2,col=7,title=error[broken-link]::link to `x.md` does \
         not resolve%0A%0Ahelp: did you mean `X.md`?"
    );
}

#[test]
fn json_is_one_array_with_prefixed_paths() {
    let out = render_json(&sample(), ".");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["path"], "docs/a.md");
    assert_eq!(v[0]["code"], "broken-link");
    assert_eq!(v[0]["severity"], "error");
    assert_eq!(v[1]["line"], 1);
    assert!(v[1].get("help").is_none());
}

#[test]
fn short_lines_are_shown_whole() {
    assert_eq!(source_window("see [x](x.md)", 5), ("see [x](x.md)".to_owned(), "    ".to_owned()));
    // Past the end: the caret right after the last character.
    assert_eq!(source_window("ab", 9), ("ab".to_owned(), "  ".to_owned()));
    assert_eq!(source_window("\u{feff}\tab", 2), ("\tab".to_owned(), "\t".to_owned()));
}

#[test]
fn long_lines_are_clipped_around_the_column() {
    // 300 characters: `0123456789` thirty times.
    let line: String = "0123456789".repeat(30);
    // Near the start: no leading cut.
    let (shown, indent) = source_window(&line, 3);
    assert_eq!(shown, format!("{}...", &line[..100]));
    assert_eq!(indent, "  ");
    // In the middle: the column 50 characters into the window, cut on both sides.
    let (shown, indent) = source_window(&line, 151);
    assert_eq!(shown, format!("...{}...", &line[100..200]));
    assert_eq!(indent.len(), 3 + 50);
    // Near the end: the window stays full.
    let (shown, indent) = source_window(&line, 290);
    assert_eq!(shown, format!("...{}", &line[200..]));
    assert_eq!(indent.len(), 3 + 89);
    assert_eq!(shown.as_bytes()[indent.len()], line.as_bytes()[289]);
}

#[test]
fn clipping_keeps_multibyte_characters_whole() {
    let line: String = "é日🎉".repeat(100);
    let (shown, indent) = source_window(&line, 151);
    let chars: Vec<char> = line.chars().collect();
    let expected: String = chars[100..200].iter().collect();
    assert_eq!(shown, format!("...{expected}..."));
    assert_eq!(indent.chars().count(), 53);
    // The caret's character is the 151st of the line.
    assert_eq!(shown.chars().nth(53), Some(chars[150]));
}

#[test]
fn control_characters_are_escaped_and_the_caret_follows() {
    let (shown, indent) = source_window("a\u{1b}[31mb", 7);
    assert_eq!(shown, "a\\u{1b}[31mb");
    // `a`, the 6-character escape, `[31m`: the caret under `b`.
    assert_eq!(indent.len(), 1 + 6 + 4);
    assert_eq!(&shown[indent.len()..], "b");
    assert_eq!(printable("e\u{1b}[2J\r\u{202e}x"), "e\\u{1b}[2J\\r\\u{202e}x");
    assert!(matches!(printable("plain `name`"), Cow::Borrowed(_)));
}

#[test]
fn file_names_with_escapes_are_escaped_in_every_human_format() {
    let d = vec![Diagnostic::error(Code::BrokenLink, "docs/e\u{1b}[31m.md", 1, 1, "in `e\u{1b}[31m.md`")];
    let human = render_human(&d, ".", &|_| Some("x\u{1b}y".to_owned()), false);
    assert_eq!(
        human,
        "docs/e\\u{1b}[31m.md:1:1: error[broken-link]: in `e\\u{1b}[31m.md`\n  |\n1 | x\\u{1b}y\n  | ^\n\nby code: 1 broken-link (error)\n1 error, 0 \
         warnings\n"
    );
    let github = render_github(&d, ".");
    assert!(!github.contains('\u{1b}'), "{github}");
    assert!(github.contains("e\\u{1b}[31m.md"), "{github}");
}

fn many(n: u32) -> Vec<Diagnostic> {
    // `n` broken links in a.md, two orphans in b.md, one more code in a.md.
    let mut v: Vec<Diagnostic> = (0..n)
        .map(|i| {
            Diagnostic::error(Code::BrokenLink, "docs/a.md", 1, 1 + 4 * i, format!("link `{i}` is broken"))
        })
        .collect();
    v.push(Diagnostic::warning(Code::OrphanDoc, "docs/a.md", 1, 1, "orphan a"));
    v.push(Diagnostic::warning(Code::OrphanDoc, "docs/b.md", 1, 1, "orphan b"));
    sort(&mut v);
    v
}

#[test]
fn each_code_is_capped_per_file_with_a_summary_and_true_totals() {
    let out = render_human_capped(&many(5), "content", &|_| None, false, 2);
    assert_eq!(
        out,
        "\
content/docs/a.md:1:1: error[broken-link]: link `0` is broken

content/docs/a.md:1:1: warning[orphan-doc]: orphan a

content/docs/a.md:1:5: error[broken-link]: link `1` is broken

... and 3 more `broken-link` diagnostics in content/docs/a.md (at most 2 per code and file are shown)

content/docs/b.md:1:1: warning[orphan-doc]: orphan b

by code: 5 broken-link (error), 2 orphan-doc (warning)
5 errors, 2 warnings
"
    );
    let json: serde_json::Value = serde_json::from_str(&render_json_capped(&many(5), "content", 2)).unwrap();
    let json = json.as_array().unwrap();
    assert_eq!(json.len(), 5);
    assert_eq!(json[3]["code"], "broken-link");
    assert_eq!(json[3]["omitted"], 3);
    assert_eq!((json[3]["line"].as_u64(), json[3]["column"].as_u64()), (Some(1), Some(9)));
    assert_eq!(json[4]["path"], "content/docs/b.md");
    let github = render_github_capped(&many(5), "content", 2);
    assert_eq!(github.lines().count(), 5);
    assert_eq!(
        github.lines().nth(3).unwrap(),
        "::error file=content/docs/a.md,line=1,col=9,title=error[broken-link]::... and 3 more `broken-link` \
         diagnostics in this file (at most 2 per code and file are shown)"
    );
}

#[test]
fn a_hundred_thousand_diagnostics_on_one_line_render_in_bounded_space() {
    // One 400,000-character line with a diagnostic every 4 characters: unclipped and uncapped,
    // the human report was 40 GB.
    let line = "[](x".repeat(100_000);
    let all = many(100_000);
    let human = render_human(&all, ".", &|_| Some(line.clone()), false);
    assert!(human.len() < 64 * 1024, "{} bytes", human.len());
    assert!(human.ends_with("100000 errors, 2 warnings\n"), "{}", &human[human.len() - 200..]);
    assert!(human.contains("... and 99950 more `broken-link` diagnostics in docs/a.md"));
    assert!(render_json(&all, ".").len() < 64 * 1024);
    assert!(render_github(&all, ".").len() < 64 * 1024);
}
