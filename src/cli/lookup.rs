//! `folio list`, `folio show` and `folio search`: offline browsing of a catalog, answered by the
//! same query layer as the MCP server, printed as terminal-width tables or `--json`.
//!
//! Exit codes: 0 found, 1 content errors with `--content`, 2 unknown id or bad arguments (with
//! suggestions on stderr) or an operational failure.

use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};
use std::process::ExitCode;

use anyhow::{Context as _, anyhow};

use super::terminal::{Style, fit, printable, text_width, wrap};
use super::{Format, KindArg, ListArgs, SearchArgs, ShowArgs, SourceArgs};
use folio::query::{
    Detail, Kind, ListParams, Query, QueryError, ReadContent, ReadResult, Record, SearchParams, Selection,
    Shown,
};

/// Opens the catalog a command names: `--catalog FILE`, `--content DIR` (compiled in memory), or
/// the embedded one. `Ok(Err(code))` when `--content` has errors (already printed, exit 1).
/// `[search] model` of a `--content` tree is loaded only by a `search` (`by_meaning`): listing or
/// showing needs no vectors, and the tree would be embedded for nothing; `--model` always is.
fn open(source: &SourceArgs, by_meaning: bool) -> anyhow::Result<Result<Query, ExitCode>> {
    if by_meaning || source.model.is_some() {
        source.load_model()?;
    }
    if let Some(bundled) = super::bundle::query() {
        super::bundle::refuse_other_sources(source)?;
        return bundled.map(Ok);
    }
    if let Some(path) = source.catalog()? {
        return Ok(Ok(super::semantic::searchable(Query::open_file(path)?)?));
    }
    if let Some(config) = source.config()? {
        let root = &config.root;
        // What `serve --content` would serve: entries with errors of their own are left out
        // (and named), link errors do not stop the listing.
        let lenient = super::build::run_lenient(&config)?;
        let compilation = lenient.compilation;
        let stderr = std::io::stderr();
        let color = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let Some(catalog) = compilation.catalog else {
            let gate = folio::compile::lints::Gate::Lenient;
            let errors: Vec<_> = compilation.diagnostics.iter().filter(|d| gate.blocks(d)).cloned().collect();
            let text = super::build::render(Format::Human, &errors, root, color);
            stderr.lock().write_all(text.as_bytes()).context("cannot write to stderr")?;
            eprintln!("error: `{}` has errors; fix them or browse a built catalog", root.display());
            return Ok(Err(ExitCode::from(1)));
        };
        // One line per reason, not one per entry (`folio check` reports each error).
        for line in super::reload::left_out_summary(&lenient.left_out) {
            eprintln!("note: left out {line}");
        }
        return Ok(Ok(super::semantic::query_of_compiled(catalog)?));
    }
    let query = Query::embedded().map_err(|e| anyhow!("the embedded catalog: {e}"))?;
    // Said every time: a person who meant their own tree must not read Folio's manual unawares.
    let settings = query.settings();
    eprintln!(
        "note: reading the embedded catalog `{}`{}; pass --content DIR or --catalog FILE to read another",
        settings.name,
        settings.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default()
    );
    Ok(Ok(query))
}

/// Prints a query error on stderr (with suggestions and the repair hint) and returns exit 2.
fn fail(err: &QueryError) -> ExitCode {
    eprintln!("error: {err}");
    if let QueryError::NotFound { suggestions, .. } = err
        && suggestions.len() > 1
    {
        eprintln!("  candidates: {}", suggestions.join(", "));
    }
    eprintln!("  hint: {}", hint(err));
    ExitCode::from(2)
}

/// The next step after a refused command, in the command line's terms: the query layer's
/// `repair` names MCP calls and URIs to read, which a person at a terminal does not make.
fn hint(err: &QueryError) -> String {
    match err {
        QueryError::Corrupt { .. } => err.repair(),
        QueryError::InvalidParams { param: "section", .. } => {
            "pass one of the entry's section ids, or leave out --section to show all of it".to_owned()
        }
        QueryError::InvalidParams { param: "lines", .. } => {
            "pass --lines A-B with 1 <= A <= B <= the entry's lines (`folio show <id>` shows how many)"
                .to_owned()
        }
        QueryError::InvalidParams { param: "mode", .. } => {
            "leave out --mode (or pass --mode keyword) to search by words; meaning needs the model the \
             catalog was built with: --model DIR"
                .to_owned()
        }
        QueryError::InvalidParams { param: "query", .. } => {
            "search for words: letters or digits, such as `folio search install`".to_owned()
        }
        _ => "run `folio search <words>` or `folio list` to see what exists".to_owned(),
    }
}

fn kind_filter(kind: Option<KindArg>) -> Option<Kind> {
    match kind? {
        KindArg::Skill => Some(Kind::Skill),
        KindArg::Doc => Some(Kind::Doc),
        KindArg::SkillFile => Some(Kind::SkillFile),
        KindArg::All => None,
    }
}

fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        // A closed pipe (`folio list | head`) is not an error worth reporting.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        res => res.context("cannot write to stdout"),
    }
}

fn json<T: serde::Serialize>(value: &T) -> String {
    let mut out = serde_json::to_string_pretty(value).expect("query records always serialize");
    out.push('\n');
    out
}

/// `folio list [--kind] [--tag] [--prefix] [--json]`.
pub(crate) fn list(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let query = match open(&args.source, false)? {
        Ok(query) => query,
        Err(code) => return Ok(code),
    };
    let mut params = ListParams {
        kind: kind_filter(args.kind),
        prefix: args.prefix.clone(),
        tag: args.tag.clone(),
        lang: args.lang.clone(),
        limit: Some(folio::query::MAX_LIMIT),
        ..ListParams::default()
    };
    let mut records: Vec<Record> = Vec::new();
    loop {
        let page = match query.list(&params) {
            Ok(page) => page,
            Err(e) => return Ok(fail(&e)),
        };
        records.extend(page.items);
        match page.next_cursor {
            Some(cursor) => params.cursor = Some(cursor),
            None => break,
        }
    }
    if args.json {
        print(&json(&serde_json::json!({ "items": records, "total": records.len() })))?;
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::for_stdout();
    if records.is_empty() {
        eprintln!("no entries match; run `folio list` without filters to see everything");
        return Ok(ExitCode::SUCCESS);
    }
    // KIND | URI | TITLE, with the two text columns sharing the width left after KIND.
    let kind_w = 10;
    let rest = style.width.saturating_sub(kind_w + 2);
    // The URI is what a user copies into `folio show`, so it gets the room; the title takes the rest.
    let uri_w =
        records.iter().map(|r| text_width(&r.uri)).max().unwrap_or(0).min(rest.saturating_sub(12)).max(20);
    let title_w = rest.saturating_sub(uri_w + 2).max(10);
    let mut out = String::new();
    let header = format!("{}  {}  {}", fit("KIND", kind_w), fit("URI", uri_w), "TITLE");
    let _ = writeln!(out, "{}", style.paint("1", header.trim_end()));
    for r in &records {
        let line = format!(
            "{}  {}  {}",
            style.paint("36", &fit(r.kind.as_str(), kind_w)),
            fit(&r.uri, uri_w),
            fit(&r.title, title_w).trim_end()
        );
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{}", style.paint("2", &super::count(records.len(), "entry", "entries")));
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// `folio show ID|URI [--section ID] [--lines A-B] [--json]`.
pub(crate) fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let query = match open(&args.source, false)? {
        Ok(query) => query,
        Err(code) => return Ok(code),
    };
    match show_inner(&query, args) {
        Ok(text) => {
            print(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Ok(fail(&e)),
    }
}

fn show_inner(query: &Query, args: &ShowArgs) -> Result<String, QueryError> {
    let mut selection = Selection { section: args.section.clone(), ..Selection::default() };
    if let Some(lines) = &args.lines {
        let range = Selection::from_lines(lines)?;
        selection.start_line = range.start_line;
        selection.end_line = range.end_line;
    }
    // A URI is read as given (aliases, generated resources, `?section=`); anything else is
    // resolved first, so `folio show pdf` reads the skill's SKILL.md. Only docs and skills have
    // a detail record.
    let Shown { read, detail, .. } = query.show(&args.id, &selection)?;
    if args.json {
        return Ok(json(&show_json(&read, detail.as_ref())));
    }
    let style = Style::for_stdout();
    let mut out = String::new();
    let rule = "─".repeat(style.width.min(100));
    let mut field = |name: &str, value: &str| {
        let _ = writeln!(out, "{} {}", style.paint("1", &format!("{name:>9}:")), printable(value));
    };
    field("uri", &read.uri);
    if let Some(canonical) = read.canonical_uri.as_deref().filter(|c| *c != read.uri) {
        field("canonical", canonical);
    }
    match &detail {
        Some(Detail::Doc(doc)) => {
            field("title", &doc.title);
            if !doc.tags.is_empty() {
                field("tags", &doc.tags.join(", "));
            }
            if let Some(updated) = &doc.updated {
                field("updated", updated);
            }
        }
        Some(Detail::Skill(skill)) => {
            field("skill", &format!("{} — {}", skill.id, skill.title));
            field("about", &skill.description);
            let files: Vec<&str> = skill.files.iter().map(|f| f.path.as_str()).collect();
            field("files", &files.join(", "));
        }
        None => {}
    }
    let mut shape = format!("{} · {} · {} bytes", read.kind, read.mime, read.size);
    if read.total_lines > 0 {
        let _ = write!(shape, " · {} lines", read.total_lines);
    }
    if let Some((a, b)) = read.range
        && (a, b) != (1, read.total_lines)
    {
        let _ = write!(shape, " · showing {a}-{b}");
    }
    field("entry", &shape);
    field("blake3", &read.blake3);
    if let Some(section) = &read.section {
        field("section", section);
    } else if let Some(Detail::Doc(doc)) = &detail
        && !doc.outline.is_empty()
    {
        let ids: Vec<&str> = doc.outline.iter().map(|s| s.id.as_str()).take(12).collect();
        let more = doc.outline.len().saturating_sub(ids.len());
        let tail = if more > 0 { format!(" (+{more} more)") } else { String::new() };
        field("sections", &format!("{}{tail}", ids.join(", ")));
    }
    if let Some(next) = &read.next {
        field("truncated", &format!("yes; continue with `folio show '{next}'`"));
    }
    let _ = writeln!(out, "{}", style.paint("2", &rule));
    match &read.content {
        ReadContent::Text(text) => out.push_str(text),
        ReadContent::Blob(bytes) => {
            let _ = writeln!(out, "(binary, {} bytes, not printed; use --json for its digests)", bytes.len());
        }
    }
    Ok(out)
}

fn show_json(read: &ReadResult, detail: Option<&Detail>) -> serde_json::Value {
    let mut value = serde_json::json!({
        "uri": read.uri,
        "canonical_uri": read.canonical_uri,
        "kind": read.kind,
        "mime": read.mime,
        "size": read.size,
        "blake3": read.blake3,
        "sha256": read.sha256,
        "total_lines": read.total_lines,
        "range": read.range.map(|(a, b)| [a, b]),
        "section": read.section,
        "truncated": read.truncated,
        "next": read.next,
        "detail": detail,
    });
    match &read.content {
        ReadContent::Text(text) => value["text"] = serde_json::Value::String(text.clone()),
        ReadContent::Blob(bytes) => value["blob_bytes"] = serde_json::Value::from(bytes.len()),
    }
    value
}

/// `folio search QUERY [--kind] [--limit] [--json]`.
pub(crate) fn search(args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let query = match open(&args.source, true)? {
        Ok(query) => query,
        Err(code) => return Ok(code),
    };
    let params = SearchParams {
        query: args.query.clone(),
        kind: kind_filter(args.kind),
        lang: args.lang.clone(),
        limit: Some(args.limit),
        mode: folio::query::Mode::parse(&args.mode).map_err(|e| anyhow!("{e}"))?,
        ..SearchParams::default()
    };
    let page = match query.search(&params) {
        Ok(page) => page,
        Err(e) => return Ok(fail(&e)),
    };
    if args.json {
        print(&json(&page))?;
        return Ok(ExitCode::SUCCESS);
    }
    if page.items.is_empty() {
        eprintln!("no matches for `{}`; try fewer or other words", args.query);
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::for_stdout();
    let mut out = String::new();
    for (rank, hit) in page.items.iter().enumerate() {
        let head = format!("{:>2}. {}  ", rank + 1, hit.title);
        let tail = match hit.distance {
            Some(distance) => format!("{} · distance {distance:.3}", hit.kind),
            None => format!("{} · {:.2}", hit.kind, hit.score),
        };
        let room = style.width.saturating_sub(text_width(&tail) + 1);
        let _ = writeln!(out, "{} {}", style.paint("1", fit(&head, room).as_str()), style.paint("36", &tail));
        let _ = writeln!(
            out,
            "    {}",
            style.paint("2", fit(&hit.uri, style.width.saturating_sub(4)).trim_end())
        );
        if !hit.translations.is_empty() {
            let others: Vec<&str> = hit.translations.iter().map(|t| t.locale.as_str()).collect();
            let _ = writeln!(out, "    {}", style.paint("2", &format!("also in: {}", others.join(", "))));
        }
        // The snippet wraps over at most two lines of the terminal width.
        for line in wrap(&printable(&hit.snippet), style.width.saturating_sub(4), 2) {
            let _ = writeln!(out, "    {}", style.marks(&line));
        }
    }
    let more = if page.total > page.items.len() { " (use --limit to see more)" } else { "" };
    let _ = writeln!(
        out,
        "{}",
        style.paint("2", &format!("{} of {} matches{more}", page.items.len(), page.total))
    );
    print(&out)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn snippets_wrap_at_spaces_inside_wide_words_and_keep_marks_paired() {
        assert_eq!(wrap("one two three", 8, 2), ["one two", "three"]);
        // CJK text has no spaces: it breaks between characters (two columns each).
        assert_eq!(wrap("日本語の文書です", 6, 3), ["日本語", "の文書", "です"]);
        assert_eq!(wrap("日本語の文書です", 6, 2), ["日本語", "の文書"], "at most two lines");
        // A mark split by a break closes on its line and opens on the next.
        assert_eq!(wrap("see **configure menus** now", 16, 2), ["see **configure**", "**menus** now"]);
        assert_eq!(wrap("", 10, 2), Vec::<String>::new());
    }
}
