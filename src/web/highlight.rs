//! Scripts and code blocks as highlighted text: comments, strings, numbers and keywords marked
//! with classes the stylesheet colours, for the languages skills ship scripts in (shell, Python,
//! JavaScript/TypeScript, Rust, Go, Ruby, SQL, YAML/TOML and the C family).
//!
//! A lexer of one pass over the text, not a parser: it is for reading, and a construct it does
//! not know stays plain text. Everything it writes is escaped; it must not drop or reorder a byte
//! of the code.

use super::html::escape;

/// How a language writes comments and which words are its keywords.
struct Language {
    /// Line comment starts (`#`, `//`, `--`).
    line_comments: &'static [&'static str],
    /// Block comments (`/*` … `*/`).
    block_comment: Option<(&'static str, &'static str)>,
    keywords: &'static [&'static str],
}

const SHELL: Language = Language {
    line_comments: &["#"],
    block_comment: None,
    keywords: &[
        "if", "then", "else", "elif", "fi", "for", "while", "do", "done", "case", "esac", "function", "in",
        "return", "local", "export", "set", "exit", "echo", "until", "readonly",
    ],
};
const PYTHON: Language = Language {
    line_comments: &["#"],
    block_comment: None,
    keywords: &[
        "def", "class", "import", "from", "as", "if", "elif", "else", "for", "while", "return", "with",
        "try", "except", "finally", "raise", "pass", "break", "continue", "lambda", "yield", "async",
        "await", "None", "True", "False", "and", "or", "not", "in", "is", "global", "nonlocal", "assert",
        "del",
    ],
};
const C_FAMILY: Language = Language {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    keywords: &[
        "function",
        "const",
        "let",
        "var",
        "if",
        "else",
        "for",
        "while",
        "do",
        "return",
        "import",
        "export",
        "from",
        "class",
        "new",
        "this",
        "async",
        "await",
        "try",
        "catch",
        "finally",
        "throw",
        "typeof",
        "interface",
        "type",
        "enum",
        "extends",
        "implements",
        "null",
        "undefined",
        "true",
        "false",
        "fn",
        "pub",
        "struct",
        "impl",
        "use",
        "mod",
        "match",
        "mut",
        "self",
        "Self",
        "trait",
        "where",
        "loop",
        "func",
        "package",
        "go",
        "defer",
        "chan",
        "map",
        "range",
        "switch",
        "case",
        "break",
        "continue",
        "default",
        "static",
        "void",
        "int",
        "char",
        "double",
        "float",
        "long",
        "unsigned",
        "include",
        "public",
        "private",
        "protected",
        "package",
        "nil",
        "struct",
    ],
};
const RUBY: Language = Language {
    line_comments: &["#"],
    block_comment: None,
    keywords: &[
        "def", "end", "class", "module", "if", "elsif", "else", "unless", "while", "until", "for", "do",
        "return", "require", "yield", "begin", "rescue", "ensure", "nil", "true", "false", "self", "then",
    ],
};
const SQL: Language = Language {
    line_comments: &["--"],
    block_comment: Some(("/*", "*/")),
    keywords: &[
        "select", "from", "where", "insert", "into", "values", "update", "set", "delete", "create", "table",
        "join", "left", "right", "inner", "outer", "on", "group", "by", "order", "limit", "and", "or", "not",
        "null", "as", "SELECT", "FROM", "WHERE", "INSERT", "INTO", "VALUES", "UPDATE", "SET", "DELETE",
        "CREATE", "TABLE", "JOIN", "ON", "GROUP", "BY", "ORDER", "LIMIT", "AND", "OR", "NOT", "NULL", "AS",
    ],
};
const DATA: Language =
    Language { line_comments: &["#"], block_comment: None, keywords: &["true", "false", "null"] };

/// The language a code block's info string (`bash`, `py`) or a file's extension names.
fn language(name: &str) -> Option<&'static Language> {
    Some(match name.to_ascii_lowercase().as_str() {
        "sh" | "bash" | "zsh" | "shell" | "console" | "fish" | "ps1" | "powershell" => &SHELL,
        "py" | "python" | "python3" => &PYTHON,
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "tsx" | "javascript" | "typescript" | "rs" | "rust"
        | "go" | "c" | "h" | "cc" | "cpp" | "hpp" | "java" | "kt" | "cs" | "swift" | "scala" | "php"
        | "css" | "json" | "jsonc" => &C_FAMILY,
        "rb" | "ruby" => &RUBY,
        "sql" => &SQL,
        "yaml" | "yml" | "toml" | "ini" | "cfg" | "conf" | "env" | "dockerfile" | "makefile" | "r" | "pl" => {
            &DATA
        }
        _ => return None,
    })
}

/// The language of a file at `path`, by its extension (or its name: `Dockerfile`).
pub(crate) fn language_of_path(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((_, ext)) => ext,
        None => name,
    }
}

/// `code` as HTML: escaped, with `<span class="c|s|n|k">` around comments, strings, numbers and
/// keywords when `lang` is a language it knows; else only escaped.
pub(crate) fn highlight(code: &str, lang: &str) -> String {
    let Some(language) = language(lang) else { return escape(code) };
    let mut out = String::with_capacity(code.len() * 5 / 4);
    let bytes = code.as_bytes();
    let mut at = 0;
    let mut plain = 0;
    let flush = |out: &mut String, from: usize, to: usize| out.push_str(&escape(&code[from..to]));
    let span = |out: &mut String, class: &str, text: &str| {
        out.push_str("<span class=\"");
        out.push_str(class);
        out.push_str("\">");
        out.push_str(&escape(text));
        out.push_str("</span>");
    };
    while at < bytes.len() {
        let rest = &code[at..];
        let token_end = if let Some(start) = language.line_comments.iter().find(|c| rest.starts_with(**c)) {
            // `#` inside a word (`a#b`, `$#`) is not a comment in shell-like languages.
            let after_word = at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'$');
            if *start == "#" && after_word {
                None
            } else {
                Some(("c", at + rest.find('\n').unwrap_or(rest.len())))
            }
        } else if let Some((open, close)) = language.block_comment.filter(|(open, _)| rest.starts_with(open))
        {
            let end = rest[open.len()..].find(close).map_or(rest.len(), |i| open.len() + i + close.len());
            Some(("c", at + end))
        } else if matches!(bytes[at], b'"' | b'\'' | b'`') {
            let quote = bytes[at];
            let mut i = at + 1;
            while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            Some(("s", (i + 1).min(bytes.len())))
        } else if bytes[at].is_ascii_digit() && (at == 0 || !is_word(bytes[at - 1])) {
            let len =
                rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'.' || *b == b'_').count();
            Some(("n", at + len))
        } else if is_word(bytes[at]) && (at == 0 || !is_word(bytes[at - 1])) {
            let len = rest.bytes().take_while(|b| is_word(*b)).count();
            language.keywords.contains(&&rest[..len]).then_some(("k", at + len))
        } else {
            None
        };
        match token_end {
            Some((class, end)) => {
                flush(&mut out, plain, at);
                // A string or number cut in the middle of a UTF-8 sequence never happens: quotes,
                // digits and the bytes after `\` end on ASCII; a lone `\` at the end stops at len.
                let end = (end..=bytes.len()).find(|&e| code.is_char_boundary(e)).unwrap_or(bytes.len());
                span(&mut out, class, &code[at..end]);
                at = end;
                plain = end;
            }
            None => {
                at += code[at..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    flush(&mut out, plain, bytes.len());
    out
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The highlighted text with its tags removed and entities decoded is the code.
    fn text_of(html: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    #[test]
    fn comments_strings_numbers_and_keywords_are_marked() {
        let html = highlight("# run it\nif [ \"$x\" = 1 ]; then echo 'a#b'; fi\n", "bash");
        assert!(html.starts_with("<span class=\"c\"># run it</span>\n<span class=\"k\">if</span>"), "{html}");
        assert!(html.contains("<span class=\"s\">&quot;$x&quot;</span>"), "{html}");
        assert!(html.contains("<span class=\"n\">1</span>"), "{html}");
        assert!(html.contains("<span class=\"s\">&#39;a#b&#39;</span>"), "{html}");
        let py = highlight("def f(x):  # <b>\n    return \"é\" + x\n", "py");
        assert!(py.contains("<span class=\"c\"># &lt;b&gt;</span>"), "{py}");
        assert_eq!(highlight("<script>", "unknown"), "&lt;script&gt;");
    }

    proptest::proptest! {
        #[test]
        fn highlighting_never_loses_or_adds_a_character(code in "\\PC{0,80}", lang in "(bash|py|js|rs|sql|rb|yaml|x)") {
            let html = highlight(&code, &lang);
            proptest::prop_assert_eq!(text_of(&html), code);
        }
    }
}
