//! `folio build` and `folio check`: run the compiler on a content tree, print its diagnostics in
//! the chosen format, and (for `build`) write `catalog.msgpack` and `manifest.json`.
//!
//! Exit codes: 0 clean, 1 content errors (or warnings with `--deny-warnings` / `[check]
//! deny_warnings`), 2 usage or IO failure (returned as `Err` and printed by `main`).

use std::borrow::Cow;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};

use super::{BuildArgs, CheckArgs, Format};
use crate::catalog::codec;
use crate::compile::{self, Compilation, Config, Diagnostic, diagnostic};
use crate::error;

/// `folio build [CONTENT] [--out DIR]`.
pub(crate) fn build(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    check_root(&args.content)?;
    // The bodies are not kept: they are read again from the files while the catalog is written,
    // so a large tree is never held in memory whole.
    let compilation = compile::compile_without_bodies(&Config { root: args.content.clone() });
    // Diagnostics of a build go to stderr, like a compiler's; stdout stays free for scripts.
    let stderr = std::io::stderr();
    let color = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if !compilation.diagnostics.is_empty() {
        let text = render(args.format, &compilation.diagnostics, &args.content, color);
        stderr.lock().write_all(text.as_bytes()).context("cannot write to stderr")?;
    }
    let Some(catalog) = compilation.catalog else {
        eprintln!("error: `{}` has errors; no catalog written", args.content.display());
        return Ok(ExitCode::from(1));
    };
    let msgpack = args.out.join("catalog.msgpack");
    let manifest = args.out.join("manifest.json");
    // Streamed: each entry's bytes go from its file to the catalog, checked against the hash
    // the compiler recorded.
    let mut catalog_hash = String::new();
    let written = write_atomically(&msgpack, |out| {
        catalog_hash = codec::write_with(&catalog, out, |i| {
            compile::source::read_unchanged(&args.content, &catalog.entries[i]).map(Cow::Owned)
        })?;
        Ok(())
    })?;
    let manifest_text = codec::manifest(&catalog, &catalog_hash);
    write_atomically(&manifest, |out| out.write_all(manifest_text.as_bytes()))?;
    eprintln!(
        "wrote {} ({} docs, {} skills, {} entries, {} bytes, catalog hash {})",
        msgpack.display(),
        catalog.docs.len(),
        catalog.skills.len(),
        catalog.entries.len(),
        written,
        &catalog_hash[..16],
    );
    // The process exits next: freeing a large catalog record by record (0.1 s on 20,000 docs)
    // only delays the exit the OS would reclaim the memory at.
    std::mem::forget(catalog);
    Ok(ExitCode::SUCCESS)
}

/// `folio check [CONTENT] [--format …] [--deny-warnings]`.
pub(crate) fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let compilation = run_checker(&args.content)?;
    // The report is the command's output, so it goes to stdout (GitHub reads workflow commands
    // there, and `--format json` is meant to be piped).
    let stdout = std::io::stdout();
    let color = stdout.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = render(args.format, &compilation.diagnostics, &args.content, color);
    stdout.lock().write_all(text.as_bytes()).context("cannot write to stdout")?;
    let (errors, warnings) = diagnostic::counts(&compilation.diagnostics);
    let deny = args.deny_warnings || compilation.deny_warnings;
    Ok(if errors > 0 || (deny && warnings > 0) { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Compiles `content`, after checking it is a directory (a missing root is a usage error, exit 2,
/// not a content problem).
pub(super) fn run_compiler(content: &Path) -> anyhow::Result<Compilation> {
    check_root(content)?;
    Ok(compile::compile(&Config { root: content.to_path_buf() }))
}

/// Checks `content` like [`run_compiler`] compiles it, without assembling a catalog.
fn run_checker(content: &Path) -> anyhow::Result<Compilation> {
    check_root(content)?;
    Ok(compile::check(&Config { root: content.to_path_buf() }))
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
    let prefix = display_prefix(content);
    match format {
        Format::Human => {
            let source = |path: &str| -> Option<String> {
                let bytes = std::fs::read(content.join(path)).ok()?;
                Some(String::from_utf8_lossy(&bytes).into_owned())
            };
            diagnostic::render_human(diagnostics, &prefix, &source, color)
        }
        Format::Json => diagnostic::render_json(diagnostics, &prefix),
        Format::Github => diagnostic::render_github(diagnostics, &prefix),
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

/// Writes a file through a temporary sibling and a rename, so a reader (a running server, an
/// interrupted build) never sees half a catalog. `fill` writes the contents; returns their size.
fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> anyhow::Result<u64> {
    let mut tmp = PathBuf::from(path);
    tmp.as_mut_os_string().push(".tmp");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| error::Error::io(parent, e))?;
    }
    let result = std::fs::File::create(&tmp).and_then(|file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut out)?;
        let file = out.into_inner().map_err(std::io::IntoInnerError::into_error)?;
        file.metadata().map(|m| m.len())
    });
    let len = match result {
        Ok(len) => len,
        Err(e) => {
            // Do not leave a partial temporary file behind.
            let _ = std::fs::remove_file(&tmp);
            return Err(error::Error::io(&tmp, e).into());
        }
    };
    std::fs::rename(&tmp, path).map_err(|e| error::Error::io(path, e))?;
    Ok(len)
}
