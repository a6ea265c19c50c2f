//! Route patterns as hosts and frameworks write them: path-to-regexp's (`/docs/:slug`,
//! `/docs/:path*`, `/docs/:path*.mdx`, `/api/(.*)`: Next.js `redirects()`, `vercel.json`) and
//! Netlify's (`/blog/*`, `/:lang/docs/:splat`). A parameter's own regular expression
//! (`:name((?!a|b)[^/]+)`) is not read: it matches any segment, so a pattern here may match
//! routes the host would not (a link is then left unchecked, never reported wrongly).
//!
//! Pure.

/// True when the route `path` (`/docs/guide/x`) matches `pattern`.
pub(super) fn matches(pattern: &str, path: &str) -> bool {
    let pattern = without_regexes(pattern);
    let pattern: Vec<&str> = pattern.trim_matches('/').split('/').collect();
    let path: Vec<&str> = path.trim_end_matches('/').trim_start_matches('/').split('/').collect();
    match_from(&pattern, &path)
}

fn match_from(pattern: &[&str], path: &[&str]) -> bool {
    let Some((&first, rest)) = pattern.split_first() else { return path.is_empty() || path == [""] };
    // A parameter that takes the rest (`:p*`, `:p+`, `*`, `(.*)`), with what must end it.
    if let Some(suffix) = rest_parameter(first) {
        if !rest.is_empty() {
            // `/:p*/edit`: the rest of the pattern after any number of segments.
            return (0..=path.len()).any(|i| match_from(rest, &path[i..]));
        }
        return path.last().is_none_or(|last| last.ends_with(suffix))
            && (!first.ends_with('+') || !path.is_empty());
    }
    let Some((&segment, path_rest)) = path.split_first() else { return false };
    one_segment(first, segment) && match_from(rest, path_rest)
}

/// `pattern` with each parameter's regular expression left out (`:name((?!a)[^/]+)` →
/// `:name`), and a group standing for a segment or the rest (`(.*)`) written `*`.
fn without_regexes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut depth = 0usize;
    let mut after_name = false;
    for c in pattern.chars() {
        if depth > 0 {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            continue;
        }
        if c == '(' {
            depth = 1;
            if !after_name {
                out.push('*');
            }
            continue;
        }
        after_name = match c {
            ':' => true,
            c if c.is_alphanumeric() || c == '_' => after_name,
            _ => false,
        };
        out.push(c);
    }
    out
}

/// The suffix a rest parameter requires of the last segment (`.mdx` of `:path*.mdx`), when
/// `segment` is one.
fn rest_parameter(segment: &str) -> Option<&str> {
    if segment == "*" || segment == ":splat" {
        return Some("");
    }
    let name = segment.strip_prefix(':')?;
    let end = name.find(['*', '+'])?;
    let before = &name[..end];
    (!before.is_empty() && before.chars().all(|c| c.is_alphanumeric() || c == '_')).then(|| &name[end + 1..])
}

/// True when one pattern segment (`docs`, `:slug`, `:name(regex)`, `v:version`) matches `segment`.
fn one_segment(pattern: &str, segment: &str) -> bool {
    match pattern.find(':') {
        None => pattern == segment,
        Some(at) => segment.starts_with(&pattern[..at]) && segment.len() > at,
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn path_to_regexp_and_netlify_patterns() {
        assert!(matches("/docs/:path*.mdx", "/docs/a/b.mdx"));
        assert!(!matches("/docs/:path*.mdx", "/docs/cache"));
        assert!(matches("/:locale/docs", "/fr/docs"));
        assert!(!matches("/:locale/docs", "/fr/docs/x"));
        assert!(matches("/fr-FR/:path*", "/fr-FR"));
        assert!(matches("/fr-FR/:path*", "/fr-FR/a/b/"));
        assert!(matches("/blog/*", "/blog/2020/x"));
        assert!(matches("/docs/components/:name((?!radix|base)[^/]+)", "/docs/components/button"));
        assert!(!matches("/docs/components/:name((?!radix|base)[^/]+)", "/docs/components/base/button"));
        assert!(matches("/api/(.*)", "/api/x/y"));
        assert!(matches("/:p*/edit", "/a/b/edit"));
        assert!(!matches("/docs", "/docs/x"));
        // An Astro endpoint of every entry's markdown, at the root.
        assert!(matches("/:entry*.md", "/guides/intro.md"));
        assert!(!matches("/:entry*.md", "/guides/intro"));
    }
}
