//! Hugo's shortcodes as far as the markdown pass must know them: block shortcodes whose inner text
//! is template input, not markdown (blanked, keeping every offset), and include shortcodes that
//! pull another file's headings into a page.
//!
//! Only what changes what `analyze` sees; expanding shortcodes is Hugo's job. Pure; no IO.

/// Blanks the inner text of Hugo block shortcodes written with angle brackets
/// (`{{< name … >}}` ending its line, up to the matching `{{< /name >}}`), keeping newlines so
/// every offset still points at the same line and column. Hugo passes that text to a template
/// unrendered, so it holds TOML or HTML (`[[module.mounts]]`), not links. Returns `None` when
/// the body has no such shortcode, which is the common case.
pub(super) fn mask_hugo_block_shortcodes(body: &str) -> Option<String> {
    // The common case: no angle-bracket shortcode at all.
    find_ascii(body, "{{<")?;
    let mut out: Option<Vec<u8>> = None;
    let mut search = 0;
    while let Some(rel) = find_ascii(&body[search..], "{{<") {
        let open = search + rel;
        search = open + 3;
        let Some(close_rel) = find_ascii(&body[open..], ">}}") else { break };
        let tag_end = open + close_rel + 3;
        let inner = body[open + 3..open + close_rel].trim();
        // `{{</* x */>}}` is Hugo's escape for showing a shortcode literally; `{{< /x >}}` closes;
        // `{{< x />}}` is self-closing.
        if inner.starts_with('/') || inner.ends_with('/') {
            continue;
        }
        let name: String = inner.chars().take_while(|c| !c.is_whitespace()).collect();
        if name.is_empty() {
            continue;
        }
        // Only block shortcodes: the opening tag ends its line.
        let rest_of_line = body[tag_end..].split('\n').next().unwrap_or("");
        if !rest_of_line.trim().is_empty() {
            continue;
        }
        let Some(end) = find_closing_shortcode(body, tag_end, &name) else { continue };
        let bytes = out.get_or_insert_with(|| body.as_bytes().to_vec());
        for b in &mut bytes[tag_end..end] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
        search = end;
    }
    // Multi-byte characters are blanked byte by byte, which is still valid UTF-8.
    out.map(|bytes| String::from_utf8(bytes).unwrap_or_else(|_| body.to_owned()))
}

/// Hugo include shortcodes: `{{% include "path" %}}`, `{{< include "path" >}}`,
/// `{{% readfile file="path" %}}`, as (offset of the path, path). The shortcode names are the
/// ones Hugo sites use for this (hugoDocs and Docsy); Hugo itself has no built-in include.
pub(super) fn hugo_includes(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(rel) = find_ascii(&text[search..], "{{") {
        let open = search + rel;
        search = open + 2;
        let Some(delim) = text[open + 2..].chars().next().filter(|c| matches!(c, '%' | '<')) else {
            continue;
        };
        let close = if delim == '%' { "%}}" } else { ">}}" };
        let Some(end) = find_ascii(&text[open + 3..], close) else { break };
        let inner_start = open + 3;
        let inner = &text[inner_start..inner_start + end];
        let trimmed = inner.trim_start();
        let name: String = trimmed.chars().take_while(|c| !c.is_whitespace()).collect();
        if name != "include" && name != "readfile" {
            continue;
        }
        let args_start = inner_start + (inner.len() - trimmed.len()) + name.len();
        let args = &text[args_start..inner_start + end];
        let args_trimmed = args.trim_start();
        let args_trimmed = args_trimmed.strip_prefix("file=").unwrap_or(args_trimmed);
        let Some(quote) = args_trimmed.chars().next().filter(|c| matches!(c, '"' | '\'' | '`')) else {
            continue;
        };
        let value_start = args_start + (args.len() - args_trimmed.len()) + 1;
        if let Some(len) = text[value_start..inner_start + end].find(quote) {
            out.push((value_start, text[value_start..value_start + len].to_owned()));
        }
    }
    out
}

/// `haystack.find(needle)` for a non-empty ASCII needle, with memchr's SIMD substring search:
/// `str::find` runs the two-way algorithm over every byte, and these scans cover every doc of
/// the tree. (An ASCII needle only matches at char boundaries.)
pub(super) fn find_ascii(haystack: &str, needle: &str) -> Option<usize> {
    debug_assert!(!needle.is_empty() && needle.is_ascii());
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes())
}

/// Offset of the `{{<` of the `{{< /name >}}` that closes a shortcode opened before `from`.
pub(super) fn find_closing_shortcode(body: &str, from: usize, name: &str) -> Option<usize> {
    let mut search = from;
    while let Some(rel) = find_ascii(&body[search..], "{{<") {
        let at = search + rel;
        let close = find_ascii(&body[at..], ">}}")?;
        let inner = body[at + 3..at + close].trim();
        if inner.strip_prefix('/').map(str::trim) == Some(name) {
            return Some(at);
        }
        search = at + 3;
    }
    None
}
