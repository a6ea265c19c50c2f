//! `folio build` and `folio check`: run the compiler on a content tree, print its diagnostics in
//! the chosen format, and (for `build`) write `catalog.msgpack`, `manifest.json`, `llms.txt`
//! and `llms-full.txt` (`folio::llms`).
//!
//! Exit codes: 0 clean, 1 content errors (or warnings with `--deny-warnings` / `[check]
//! deny_warnings`), 2 usage or IO failure (returned as `Err` and printed by `main`).

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};

use super::{BuildArgs, CheckArgs, Format};
use folio::catalog::codec;
use folio::compile::lints::Level;
use folio::compile::{self, Compilation, Config, Diagnostic};
use folio::error;

/// `folio build [CONTENT] [--out DIR]`, and with `--versions` one catalog per version.
pub(crate) fn build(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    check_root(&args.content)?;
    if args.versions.requested() {
        return build_versions(args);
    }
    let config = super::config(&args.content, &args.lints, &args.layout)?;
    let job = Target { config: &config, out: &args.out, shown: &args.content, last: true };
    Ok(if write(args, &job)? { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// `folio build --versions`: each version into `OUT/<name>@<version>/`, one after the other;
/// a version with errors is reported and left unwritten, and the others are still built.
fn build_versions(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    let jobs = super::versions::plan(&args.content, &args.lints, &args.layout, &args.versions)?;
    let mut written = Vec::new();
    let mut failed = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let name = job.name()?;
        let out = args.out.join(format!("{name}@{}", job.version));
        eprintln!("version `{}` of `{name}`, from {}:", job.version, job.from);
        let target = Target { config: &job.config, out: &out, shown: &job.shown, last: i + 1 == jobs.len() };
        if write(args, &target)? {
            written.push(format!("{name}@{}", job.version));
        } else {
            failed.push(format!("`{}`", job.version));
        }
    }
    eprintln!(
        "wrote {} into {}: {}",
        super::count(written.len(), "version", "versions"),
        args.out.display(),
        if written.is_empty() { "none".to_owned() } else { written.join(", ") }
    );
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "error: {} with errors, not written: {}; fix them, or name the versions to build with `--version NAME`",
            super::count(failed.len(), "version", "versions"),
            failed.join(", ")
        );
        Ok(ExitCode::from(1))
    }
}

/// One catalog to write: its compile, where to, and how its diagnostics name files.
struct Target<'a> {
    config: &'a Config,
    /// The folder of `catalog.msgpack`, `manifest.json`, `llms.txt` and `llms-full.txt`.
    out: &'a Path,
    /// The content root as diagnostics show it.
    shown: &'a Path,
    /// The last catalog the process writes (its memory is left to the exit to reclaim).
    last: bool,
}

/// Compiles `target.config` and writes its catalog and the files beside it; `Ok(false)` when
/// the content has errors (reported, nothing written).
fn write(args: &BuildArgs, target: &Target<'_>) -> anyhow::Result<bool> {
    let config = target.config;
    let msgpack = target.out.join("catalog.msgpack");
    let manifest = target.out.join("manifest.json");
    // Each body goes to the catalog file as the compiler reads it (a large tree is never held
    // in memory whole, nor read twice); the file is renamed into place only once the catalog is
    // complete, and removed if the content has errors.
    let mut staged = Staged::create(&msgpack)?;
    let tmp = staged.tmp.clone();
    let in_tmp = |e| anyhow::Error::from(error::Error::io(&tmp, e));
    // The previous catalog at `--out` seeds the model's cache: unchanged sections keep their vectors.
    let model = super::semantic::requested(args.model.as_deref(), Some(&config.root));
    if let Some(requested) = &model {
        super::semantic::configure(requested, Some(&msgpack))?;
    }
    let mut writer = Some(codec::Writer::new(staged.out()).map_err(in_tmp)?);
    let mut failed = None;
    // With a model, the markdown the encoder reads is kept until the compile ends (the bodies
    // are otherwise streamed out as they are read).
    let mut markdown: BTreeMap<String, bytes::Bytes> = BTreeMap::new();
    // A large tree takes seconds: a counter of the files read, at a terminal.
    let progress = super::progress::Progress::counter("compiling", "files read");
    let compilation = compile::compile_streaming(config, &mut |path, bytes| {
        progress.inc(1);
        if model.is_some() && folio::catalog::is_markdown(path) {
            markdown.insert(path.to_owned(), bytes::Bytes::copy_from_slice(bytes));
        }
        // After a failed write the rest of the compile still runs (its diagnostics are worth
        // reporting), but nothing more is written.
        if let Some(w) = &mut writer
            && let Err(e) = w.body(path, bytes)
        {
            failed = Some(e);
            writer = None;
        }
    });
    progress.finish();
    // Diagnostics of a build go to stderr, like a compiler's; stdout stays free for scripts.
    let stderr = std::io::stderr();
    let color = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if !compilation.diagnostics.is_empty() {
        let text = render_from(args.format, &compilation.diagnostics, target.shown, &config.root, color);
        stderr.lock().write_all(text.as_bytes()).context("cannot write to stderr")?;
    }
    if !compilation.layout.is_folios_own() {
        eprint!("{}", found_line(&compilation));
    }
    let Some(mut catalog) = compilation.catalog else {
        match &config.version {
            Some(version) => eprintln!("error: version `{version}` has errors; no catalog written for it"),
            None => eprintln!("error: `{}` has errors; no catalog written", target.shown.display()),
        }
        return Ok(false);
    };
    if model.is_some() {
        let vectors = {
            let entries = &catalog.entries;
            let text_of = |e: u32| {
                let entry = entries.get(e as usize)?;
                std::str::from_utf8(markdown.get(&entry.path)?).ok()
            };
            super::semantic::embed(&catalog, &text_of)?
        };
        catalog.vectors = vectors;
        drop(markdown);
    }
    let writer = writer.ok_or_else(|| failed.expect("the writer is gone only after a failed write"));
    let (_, catalog_hash) = writer.and_then(|w| w.finish(&catalog)).map_err(in_tmp)?;
    // The catalog is renamed into place first and the manifest after it, so a manifest never
    // names a catalog not yet in place.
    let text = codec::manifest(&catalog, &catalog_hash);
    let staged_manifest = stage(&manifest, |out| out.write_all(text.as_bytes()))?;
    let llms = folio::llms::llms_txt(&catalog);
    let staged_llms = stage(&target.out.join("llms.txt"), |out| out.write_all(llms.as_bytes()))?;
    let written = staged.commit()?;
    staged_manifest.commit()?;
    staged_llms.commit()?;
    // The bodies went to the catalog file as they were read: llms-full.txt reads them back from it.
    let query = folio::query::Query::open_file(&msgpack)?;
    let llms_full = folio::llms::llms_full_txt(query.catalog());
    stage(&target.out.join("llms-full.txt"), |out| out.write_all(llms_full.as_bytes()))?.commit()?;
    eprintln!(
        "wrote {} ({}, {}, {}, {}, catalog hash {})",
        msgpack.display(),
        super::count(catalog.docs.len(), "doc", "docs"),
        super::count(catalog.skills.len(), "skill", "skills"),
        super::count(catalog.entries.len(), "entry", "entries"),
        super::count(usize::try_from(written).unwrap_or(usize::MAX), "byte", "bytes"),
        &catalog_hash[..16],
    );
    // The process exits next: freeing a large catalog record by record (0.1 s on 20,000 docs)
    // only delays the exit the OS would reclaim the memory at.
    if target.last {
        std::mem::forget(catalog);
    }
    Ok(true)
}

/// `folio check [CONTENT] [--format …] [--deny-warnings]`, and with `--versions` each version.
pub(crate) fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    check_root(&args.content)?;
    if args.versions.requested() {
        let jobs = super::versions::plan(&args.content, &args.lints, &args.layout, &args.versions)?;
        let mut failed = Vec::new();
        // With `--format json`, one array of every version's diagnostics, each with its version.
        let mut merged: Vec<serde_json::Value> = Vec::new();
        for job in &jobs {
            // A header to stderr: stdout stays the report in the chosen format.
            eprintln!("version `{}`, from {}:", job.version, job.from);
            let (passed, text) = check_one(args, &job.config, &job.shown)?;
            if args.format == Format::Json {
                let report: Vec<serde_json::Value> =
                    serde_json::from_str(&text).context("the JSON report parses")?;
                merged.extend(report.into_iter().map(|mut d| {
                    if let Some(fields) = d.as_object_mut() {
                        fields.insert("version".to_owned(), job.version.clone().into());
                    }
                    d
                }));
            } else {
                std::io::stdout().lock().write_all(text.as_bytes()).context("cannot write to stdout")?;
            }
            if !passed {
                failed.push(format!("`{}`", job.version));
            }
        }
        if args.format == Format::Json {
            let mut text = serde_json::to_string_pretty(&merged).context("the JSON report serializes")?;
            text.push('\n');
            std::io::stdout().lock().write_all(text.as_bytes()).context("cannot write to stdout")?;
        }
        let all: Vec<String> = jobs.iter().map(|j| format!("`{}`", j.version)).collect();
        eprintln!("checked {}: {}", super::count(jobs.len(), "version", "versions"), all.join(", "));
        if failed.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "error: {} failed: {}",
            super::count(failed.len(), "version", "versions"),
            failed.join(", ")
        );
        return Ok(ExitCode::from(1));
    }
    let config = super::config(&args.content, &args.lints, &args.layout)?;
    let (passed, text) = check_one(args, &config, &args.content)?;
    std::io::stdout().lock().write_all(text.as_bytes()).context("cannot write to stdout")?;
    Ok(if passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Checks one compile: whether it passed (no errors, nor warnings when they are denied), and its
/// report for stdout.
fn check_one(args: &CheckArgs, config: &Config, shown: &Path) -> anyhow::Result<(bool, String)> {
    let compilation = compile::check(config);
    // The report is the command's output, so it goes to stdout (GitHub reads workflow commands
    // there, and `--format json` is meant to be piped).
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut text = render_from(args.format, &compilation.diagnostics, shown, &config.root, color);
    let versions = compilation.layout.versions();
    // A tree that keeps versions is checked as its current docs unless asked otherwise: said,
    // so no one takes it for a check of every version.
    let only_current = if versions.len() > 1 && config.version.is_none() {
        let names: Vec<&str> = versions.iter().map(|v| v.name.as_str()).collect();
        format!(
            "checked the current docs only; the site keeps versions {}: `--versions` checks each\n",
            names.join(", ")
        )
    } else {
        String::new()
    };
    if args.format == Format::Human {
        text.push_str(&levels_report(&compilation));
        text.push_str(&found_line(&compilation));
        text.push_str(&only_current);
    } else {
        // stdout is the machine-readable report; what was read goes to stderr.
        eprint!("{}{only_current}", found_line(&compilation));
    }
    let (errors, warnings) = compile::count_diagnostics(&compilation.diagnostics);
    let deny = args.deny_warnings || compilation.deny_warnings;
    Ok((!(errors > 0 || (deny && warnings > 0)), text))
}

/// Compiles `config.root` leniently, as `serve --content` does ([`compile::lenient`]), after
/// checking it is a directory (a missing root is a usage error, exit 2, not a content problem).
pub(super) fn run_lenient(config: &Config) -> anyhow::Result<compile::Lenient> {
    check_root(&config.root)?;
    Ok(compile::lenient(config))
}

/// What was compiled, and from where: `42 docs, 7 skills: docs from guide/src/, skills from
/// skills/ (mdBook, detected from guide/book.toml)`.
fn found_line(compilation: &Compilation) -> String {
    let (docs, skills) = compilation.found;
    let (checked, unverified) = compilation.links;
    let unverified = if unverified > 0 { format!(" ({unverified} not verified)") } else { String::new() };
    format!(
        "{}, {}, {}{unverified}: {}{}\n",
        super::count(docs, "doc", "docs"),
        super::count(skills, "skill", "skills"),
        super::count(checked, "link checked", "links checked"),
        compilation.layout.describe(),
        compilation.left_out.describe()
    )
}

/// When the project set any level (`folio.toml` `[lints]` or a flag), the level of every code
/// reported, and of every code set to `allow`, and where each was set: one line each after the
/// summary. Empty otherwise (every severity shown is then the code's default).
fn levels_report(compilation: &Compilation) -> String {
    let levels = &compilation.levels;
    if levels.is_empty() {
        return String::new();
    }
    let mut rows: Vec<(compile::Code, Level, String)> = Vec::new();
    for d in &compilation.diagnostics {
        if !rows.iter().any(|(code, ..)| *code == d.code) {
            let (level, set_by) = levels.level_of(d);
            rows.push((d.code, level, set_by.to_string()));
        }
    }
    for (code, (level, set_by)) in levels.iter() {
        if *level == Level::Allow {
            rows.push((code, *level, set_by.to_string()));
        }
    }
    rows.sort();
    let width = rows.iter().map(|(c, ..)| c.name().len()).max().unwrap_or(0);
    let mut out = String::from("lint levels:\n");
    for (code, level, set_by) in rows {
        out.push_str(&format!("  {code:width$}  {:5}  {set_by}\n", level.as_str()));
    }
    out
}

fn check_root(content: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(content) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => bail!(
            "`{}` is not a directory; pass the content root holding docs/ and skills/",
            content.display()
        ),
        Err(e) => return Err(error::Error::io(content, e)).context("cannot read the content root"),
    }
    Ok(())
}

pub(super) fn render(format: Format, diagnostics: &[Diagnostic], content: &Path, color: bool) -> String {
    render_from(format, diagnostics, content, content, color)
}

/// [`render`] with paths shown under `content` and source lines read from `source`, the folder
/// compiled (a git tag's tree is compiled from a temporary folder, and shown as the
/// repository's files).
fn render_from(
    format: Format,
    diagnostics: &[Diagnostic],
    content: &Path,
    source: &Path,
    color: bool,
) -> String {
    let prefix = display_prefix(content);
    match format {
        Format::Human => {
            // Source lines are shown only from files the compile itself would read: never
            // through a link out of the root, from a device or FIFO, or from a huge file.
            let root = source.canonicalize().ok();
            let source = |path: &str| -> Option<String> {
                let bytes = compile::source::read_inside(root.as_deref()?, path)?;
                Some(String::from_utf8_lossy(&bytes).into_owned())
            };
            super::render::render_human(diagnostics, &prefix, &source, color)
        }
        Format::Json => super::render::render_json(diagnostics, &prefix),
        Format::Github => super::render::render_github(diagnostics, &prefix),
    }
}

/// The content directory as the user wrote it, `/`-separated, without `./` or a trailing `/`,
/// so reported paths are relative to where the command ran (repo-relative in CI).
fn display_prefix(content: &Path) -> String {
    let s = content.to_string_lossy().replace('\\', "/");
    let s = s.trim_end_matches('/');
    let s = s.strip_prefix("./").unwrap_or(s);
    if s.is_empty() { ".".to_owned() } else { s.to_owned() }
}

/// Writes a file beside `path`, to be renamed into place by [`Staged::commit`]. `fill` writes
/// the contents.
fn stage(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> anyhow::Result<Staged> {
    let mut staged = Staged::create(path)?;
    if let Err(e) = fill(staged.out()) {
        return Err(staged.error(e));
    }
    Ok(staged)
}

/// A file written through a temporary sibling and renamed into place by [`Staged::commit`], so
/// a reader (a running server, an interrupted build) never sees half a catalog. Dropped
/// uncommitted (content errors, a failed write), it removes the temporary file, and the
/// directory it created for it if that is empty: a failed build leaves nothing behind.
///
/// The temporary name is hidden and holds the process id (`.catalog.msgpack.4242.tmp`): the
/// catalog is written while the tree is walked, so an `--out` inside the content tree must not
/// put a half-written file in the walk (hidden files are skipped), and two builds into one
/// directory must not write the same file.
struct Staged {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<std::io::BufWriter<std::fs::File>>,
    /// The file's directory, when it did not exist before.
    created: Option<PathBuf>,
}

impl Staged {
    fn create(path: &Path) -> anyhow::Result<Staged> {
        let name = path.file_name().map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let mut created = None;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
            std::fs::create_dir_all(parent).map_err(|e| error::Error::io(parent, e))?;
            created = Some(parent.to_owned());
        }
        let file = std::fs::File::create(&tmp).map_err(|e| error::Error::io(&tmp, e))?;
        // No larger than the catalog writer's blocks of bodies, which then go straight through.
        let out = Some(std::io::BufWriter::with_capacity(codec::STAGE_BYTES, file));
        Ok(Staged { path: path.to_owned(), tmp, out, created })
    }

    fn out(&mut self) -> &mut std::io::BufWriter<std::fs::File> {
        self.out.as_mut().expect("only commit takes the file")
    }

    /// A write error, naming the temporary file it happened to.
    fn error(&self, e: std::io::Error) -> anyhow::Error {
        error::Error::io(&self.tmp, e).into()
    }

    /// Flushes the file and renames it into place; returns its size.
    fn commit(mut self) -> anyhow::Result<u64> {
        let out = self.out.take().expect("committed once");
        let len = out.into_inner().map_err(std::io::IntoInnerError::into_error).and_then(|f| f.metadata());
        let len = len.map_err(|e| self.error(e))?.len();
        std::fs::rename(&self.tmp, &self.path).map_err(|e| error::Error::io(&self.path, e))?;
        Ok(len)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // Committed: nothing to remove.
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
            if let Some(dir) = &self.created {
                // Fails, as it should, when something else was put there meanwhile.
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
}
