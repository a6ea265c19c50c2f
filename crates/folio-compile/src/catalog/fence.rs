//! The frontmatter fence: where a markdown file's leading `---` block starts and ends. One rule
//! for the compiler (which reads the YAML, with positions) and for search (which indexes and
//! snippets only the body, at build time and at run time), so a block is metadata to both or
//! body text to both.
//!
//! The rule: a UTF-8 byte-order mark is skipped; the first line is `---` (trailing spaces, tabs
//! and `\r` ignored); the block ends at the first later line that is `---` or `...` (the same
//! trimming). Hugo's TOML block is the same with `+++` for both fences. A file whose opening
//! fence is never closed has no frontmatter here. (One exception lives in the compiler: on a
//! VitePress or Docusaurus site, whose gray-matter takes a never-closed block to the end of
//! the file, the compiler reads it as front matter, while search still indexes it as body
//! text; such files are home pages of front matter alone.) Pure; must not read the YAML or
//! TOML.

/// Where a file's frontmatter block and body are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fence<'a> {
    /// No frontmatter: the whole file (without its BOM) is body.
    None(&'a str),
    /// A closed block.
    Closed {
        /// The YAML between the fences (starting on line 2).
        yaml: &'a str,
        /// The text after the closing fence.
        body: &'a str,
        /// 1-based line of the body's first line.
        body_line: u32,
        /// A `+++` block: TOML (Hugo's), not YAML.
        toml: bool,
    },
    /// An opening `---` never closed: the whole file (without its BOM) is body.
    Unclosed(&'a str),
}

/// Finds the frontmatter block of `text`.
pub(crate) fn fence(text: &str) -> Fence<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Hugo skips blank lines before the front matter (its page lexer's intro); a `+++` block
    // is Hugo's alone, so only it may follow them (a `---` block opens the file, as
    // gray-matter and the Agent Skills validator read it).
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i + 1);
    let blank = text.len() - text.trim_start_matches(['\n', '\r', ' ', '\t']).len();
    let toml_after_blanks =
        blank > 0 && text[..blank].ends_with('\n') && trim_line(&text[blank..line_end(blank)]) == "+++";
    // Where the opening fence's line starts.
    let start = if toml_after_blanks { blank } else { 0 };
    let first_end = line_end(start);
    let toml = match trim_line(&text[start..first_end]) {
        "---" if start == 0 => false,
        "+++" => true,
        _ => return Fence::None(text),
    };
    let mut at = first_end;
    let mut line = 2 + text[..start].matches('\n').count() as u32;
    while at < text.len() {
        let end = line_end(at);
        let fence = trim_line(&text[at..end]);
        let closes = if toml { fence == "+++" } else { fence == "---" || fence == "..." };
        if closes {
            return Fence::Closed {
                yaml: &text[first_end..at],
                body: &text[end..],
                body_line: line + 1,
                toml,
            };
        }
        at = end;
        line += 1;
    }
    Fence::Unclosed(text)
}

/// The body of `text`: after its frontmatter block, if it has a closed one.
pub fn body(text: &str) -> &str {
    match fence(text) {
        Fence::None(body) | Fence::Unclosed(body) | Fence::Closed { body, .. } => body,
    }
}

fn trim_line(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r', ' ', '\t'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_found_with_one_rule() {
        assert_eq!(body("---\ntitle: x\n---\nbody\n"), "body\n");
        assert_eq!(body("--- \r\ntitle: x\r\n...\r\nbody\r\n"), "body\r\n", "trailing blanks, CRLF, `...`");
        assert_eq!(body("\u{feff}---\ntitle: x\n---\nbody"), "body");
        assert_eq!(body("no frontmatter\n"), "no frontmatter\n");
        assert_eq!(body("---\nunclosed\n"), "---\nunclosed\n");
        assert_eq!(body("----\nx\n---\nbody"), "----\nx\n---\nbody", "four dashes open nothing");
        assert_eq!(
            fence("---\na: 1\n---\n# T\n"),
            Fence::Closed { yaml: "a: 1\n", body: "# T\n", body_line: 4, toml: false }
        );
        assert_eq!(
            fence("+++\ntitle = 'x'\n+++\n# T\n"),
            Fence::Closed { yaml: "title = 'x'\n", body: "# T\n", body_line: 4, toml: true }
        );
        assert_eq!(
            body("+++\na = 1\n---\nbody"),
            "+++\na = 1\n---\nbody",
            "a `+++` block closes at `+++` only"
        );
    }

    /// gray_matter (the frontmatter crate of the Rust ecosystem) as an oracle: where its rules
    /// are defined, it finds the same block and body. Its output is normalised (it joins lines
    /// with `\n`, drops the final newline and leading blank lines, and trims the YAML), so it is
    /// compared after the same normalisation. Where Folio differs by design, the test pins the
    /// difference: gray_matter keeps a byte-order mark in front of the fence (so the block is
    /// body text), does not close a block at YAML's `...` document end, drops the opening `---`
    /// of a block that is never closed, and returns no body at all for a file of three bytes or
    /// fewer. Folio keeps every byte, which is why it does not call gray_matter for the fence: it
    /// also needs the body's line number, which gray_matter does not give.
    mod against_gray_matter {
        use super::*;
        use proptest::prelude::*;

        fn gray(text: &str) -> (String, String) {
            let matter = gray_matter::Matter::<gray_matter::engine::YAML>::new();
            let parsed = matter.parse::<gray_matter::Pod>(text).expect("the generated YAML is valid");
            (parsed.matter, parsed.content)
        }

        /// What gray_matter makes of a body: its lines joined by `\n`, leading blank lines dropped.
        fn normalised(body: &str) -> String {
            body.lines().collect::<Vec<_>>().join("\n").trim_start_matches('\n').to_owned()
        }

        /// Lines a frontmatter file is made of: fences with trailing blanks, YAML (distinct keys,
        /// so it always parses), markdown with thematic breaks and blank lines.
        fn line() -> impl Strategy<Value = String> {
            prop_oneof![
                3 => Just("---".to_owned()),
                1 => Just("--- \t".to_owned()),
                1 => Just("...".to_owned()),
                1 => Just("----".to_owned()),
                1 => Just(String::new()),
                1 => Just("  ".to_owned()),
                1 => Just("# Title".to_owned()),
                1 => Just("# comment in YAML, a heading in markdown".to_owned()),
                3 => (0u32..1000).prop_map(|n| format!("key{n}: value {n}")),
                2 => "[a-z ]{1,12}",
            ]
        }

        fn file() -> impl Strategy<Value = String> {
            (proptest::collection::vec((line(), prop_oneof![Just("\n"), Just("\r\n")]), 0..12), any::<bool>())
                .prop_map(|(lines, final_newline)| {
                    let mut text: String = lines.iter().map(|(line, end)| format!("{line}{end}")).collect();
                    if !final_newline && text.ends_with('\n') {
                        text.pop();
                        if text.ends_with('\r') {
                            text.pop();
                        }
                    }
                    text
                })
        }

        /// YAML gray_matter's engine accepts: blank lines, comments and distinct `key: value`
        /// lines only.
        fn yaml_is_valid(yaml: &str) -> bool {
            let mut keys = std::collections::BTreeSet::new();
            yaml.lines().all(|l| {
                let l = l.trim();
                l.is_empty()
                    || l.starts_with('#')
                    || l.split_once(": ")
                        .is_some_and(|(key, _)| key.starts_with("key") && keys.insert(key.to_owned()))
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            #[test]
            fn block_and_body_agree_with_gray_matter(text in file()) {
                let (opening, rest) = text.split_once('\n').unwrap_or((text.as_str(), ""));
                let opens = trim_line(opening) == "---";
                // Where gray_matter would read YAML, it must be YAML it accepts.
                let gray_yaml_end = rest.lines().position(|l| l.trim_end() == "---");
                let gray_yaml = match gray_yaml_end {
                    Some(end) => rest.lines().take(end).collect::<Vec<_>>().join("\n"),
                    None => String::new(),
                };
                prop_assume!(!opens || yaml_is_valid(&gray_yaml));
                let (matter, content) = gray(&text);
                match fence(&text) {
                    _ if text.len() <= 3 => prop_assert_eq!(content, ""),
                    Fence::None(body) => {
                        prop_assert_eq!(matter, "");
                        prop_assert_eq!(content, normalised(body));
                    }
                    Fence::Closed { yaml, body, .. } => {
                        let closed_by_dots = trim_line(text[..text.len() - body.len()].lines().last().unwrap()) == "...";
                        if closed_by_dots {
                            // YAML's document end closes the block here, not there.
                            prop_assert_ne!(content, normalised(body));
                        } else {
                            let lines = yaml.lines().collect::<Vec<_>>().join("\n");
                            prop_assert_eq!(matter, lines.trim());
                            prop_assert_eq!(content, normalised(body));
                        }
                    }
                    Fence::Unclosed(body) if !body.contains('\n') => {
                        prop_assert_eq!(content, normalised(body));
                    }
                    Fence::Unclosed(body) => {
                        // gray_matter drops the opening fence's line.
                        let after_opening = &body[body.find('\n').map_or(body.len(), |i| i + 1)..];
                        prop_assert_eq!(content, normalised(after_opening));
                    }
                }
            }

            #[test]
            fn a_byte_order_mark_hides_the_block_from_gray_matter_only(text in file()) {
                let marked = format!("\u{feff}{text}");
                prop_assert_eq!(fence(&marked), fence(&text));
                if text.len() > 3 && matches!(fence(&text), Fence::Closed { .. }) {
                    prop_assert_eq!(gray(&marked).0, "");
                }
            }
        }
    }
}
