//! `folio bundle`: one self-contained executable that serves one catalog and nothing else, and
//! the other half, a bundled executable recognising itself at start.
//!
//! A bundle is this very executable with a catalog appended:
//!
//! ```text
//! [the folio executable][HEADER (16 bytes)][catalog.msgpack][trailer (64 bytes)]
//! trailer = TRAILER (16) | catalog length (u64 LE) | executable length (u64 LE) | blake3 of the catalog (32)
//! ```
//!
//! Executable formats load what their headers name and ignore bytes appended after them, so the
//! program runs as it is. At start ([`detect`]) the program reads its own file's last 64 bytes:
//! with a trailer, it is a bundle; its catalog is read and checked (lengths, then blake3, then
//! the catalog's own verification) before anything is served, and a bundle that does not check
//! is refused with a message, never served and never taken for plain `folio`.
//!
//! A bundle must know it is one without its file, too: a bundle cut short has lost its trailer,
//! and one whose user may run but not read it (mode 0711) cannot read its file at all. So
//! `folio bundle` also marks the program it copies: [`MARK`], a static of this program, holds
//! zero in plain `folio` and, in a bundle, the length of the bundle's program, which the program
//! reads from its own memory at start. A marked program that cannot read its file, finds no
//! trailer, or is shorter than its program, is refused with exit 2. What cannot be caught: a cut
//! inside what the loader maps (the program fails to start, or is killed by a signal when it
//! touches the missing pages, before any code of ours runs); and on macOS the program is not
//! marked (changing a page of a signed program gets it killed), so there a cut bundle is only
//! recognised by the ELF rule below, which macOS does not use, and an unreadable one runs as
//! plain `folio`. On ELF (Linux), a bundle without the mark (made by an older folio) that lost
//! its trailer is still recognised: the program finds where its own image ends from its section
//! header table and recognises the HEADER there.
//!
//! In a bundle, the commands that serve and read the catalog (`serve`, `browse`, `list`,
//! `show`, `search`) read the bundled catalog where plain `folio` reads its embedded manual;
//! `build`, `check`, `bundle`, `--catalog` and `--content` are refused: a bundle is its
//! project's server, not a compiler. `--help` and `--version` carry the project's name and
//! version (`[catalog] name`, `version`).
//!
//! The program a bundle carries is this executable stripped of what only a debugger reads
//! ([`strip`]): a bundle from `cargo build --release` is as small as one from the `dist` profile.
//!
//! Writing a bundle must not open a path this process did not create: the executable is written
//! to a temporary file created with `O_EXCL` in the output folder and renamed over `--out`.

use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use anyhow::{Context as _, anyhow, bail};

use super::BundleArgs;
use super::terminal::printable;
use folio::query::Query;

mod strip;

/// Marks the start of the appended catalog.
const HEADER: &[u8; 16] = b"\0folio-bundle-1\0";
/// Marks the trailer at the very end of a bundle.
const TRAILER: &[u8; 16] = b"\0folio-trailer1\0";
/// Length of the trailer.
const TRAILER_LEN: usize = 16 + 8 + 8 + 32;

/// The mark `folio bundle` sets in the program it copies: 24 bytes no other data of this program
/// holds, then the bundle's program length (u64 LE), zero in plain `folio`. Read through
/// [`std::hint::black_box`], so the compiler cannot fold the zero it was built with.
static MARK: [u8; 32] = *b"\x7ffolio:bundled-program:\x7f\0\0\0\0\0\0\0\0";
/// Where the program length starts in [`MARK`].
const MARK_LENGTH_AT: usize = 24;

/// The length of this program when `folio bundle` marked it as a bundle's; `None` in plain folio.
fn marked_program_length() -> Option<u64> {
    let mark: &[u8; 32] = std::hint::black_box(&MARK);
    let length = u64::from_le_bytes(mark[MARK_LENGTH_AT..].try_into().unwrap_or_default());
    (length != 0).then_some(length)
}

/// Marks `program` (this program's bytes, copied into a bundle) as a bundle's: the length in
/// every unmarked [`MARK`] it holds (one). Not on macOS, where a changed page of a signed
/// program gets it killed.
fn mark(program: &mut [u8]) -> anyhow::Result<()> {
    if cfg!(target_os = "macos") {
        return Ok(());
    }
    let unmarked = &MARK[..];
    let at: Vec<usize> = memchr::memmem::find_iter(program, unmarked).collect();
    if at.is_empty() {
        bail!("this folio does not hold the mark a bundle's program carries: bundle with an unchanged folio");
    }
    let length = (program.len() as u64).to_le_bytes();
    for start in at {
        program[start + MARK_LENGTH_AT..start + MARK.len()].copy_from_slice(&length);
    }
    Ok(())
}

/// The catalog a bundle carries, checked.
pub(crate) struct Bundle {
    /// The catalog, opened and verified once at start, until a command takes it ([`query`]).
    opened: std::sync::Mutex<Option<Query>>,
    /// The project's name and version (`[catalog] name`, `version`).
    pub(crate) name: String,
    pub(crate) version: Option<String>,
    pub(crate) title: String,
    pub(crate) catalog_hash: String,
}

static BUNDLE: OnceLock<Bundle> = OnceLock::new();

/// The bundle this process runs as, once [`detect`] found one.
pub(crate) fn current() -> Option<&'static Bundle> {
    BUNDLE.get()
}

/// The bundled catalog, where plain `folio` opens its embedded manual: the one [`detect`]
/// verified (a command takes it once; it is not read or verified again).
pub(crate) fn query() -> Option<anyhow::Result<Query>> {
    current().map(|b| {
        let taken = b.opened.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        taken.ok_or_else(|| anyhow!("the bundled catalog was already taken by this command"))
    })
}

/// In a bundle, `--catalog` and `--content` (and the flags that go with `--content`) are refused:
/// it serves its own catalog only.
pub(crate) fn refuse_other_sources(source: &super::SourceArgs) -> anyhow::Result<()> {
    if !source.catalog.is_empty() || source.content.is_some() {
        bail!(
            "this program serves its own bundled catalog only: --catalog and --content are folio's, not a bundle's"
        );
    }
    Ok(())
}

/// The command line a bundle takes: folio's, named and versioned as the project, without the
/// commands a bundle refuses (still parsed, so a refusal can say why).
pub(crate) fn command(bundle: &Bundle, mut command: clap::Command) -> clap::Command {
    // The tree's values reach the terminal escaped, as everything the CLI prints about content.
    let version = format!(
        "{} (catalog {}, bundled by folio {})",
        printable(bundle.version.as_deref().unwrap_or("unversioned")),
        &bundle.catalog_hash[..12.min(bundle.catalog_hash.len())],
        folio::server::SERVER_VERSION
    );
    let name = printable(&bundle.name).into_owned();
    let examples = format!(
        "Examples:\n  {name} serve                        serve the catalog to an MCP client over stdio\n  \
         {name} serve --http 127.0.0.1:8090  serve it over Streamable HTTP at /mcp\n  \
         {name} search \"words\"               search it\n  {name} browse --open                read it in a web browser"
    );
    for hidden in ["build", "check", "bundle"] {
        command = command.mut_subcommand(hidden, |c| c.hide(true));
    }
    // clap keeps a command's name and version as `&'static str` (without its `string` feature):
    // these two small strings live for the process, as the command does.
    let static_name: &'static str = Box::leak(name.clone().into_boxed_str());
    let static_version: &'static str = Box::leak(version.into_boxed_str());
    command
        .name(static_name)
        .bin_name(name)
        .version(static_version)
        .about(format!(
            "{}: an MCP server for this catalog of docs and Agent Skills",
            printable(&bundle.title)
        ))
        .after_help(examples)
}

/// Recognises a bundle: `Ok(true)` when this executable carries a catalog, which it checked and
/// keeps for [`current`]; `Ok(false)` for plain `folio`; an error naming what is wrong with a
/// bundle that does not check (damaged, cut short, changed).
pub(crate) fn detect() -> anyhow::Result<bool> {
    // Known from memory, before the file: this program was copied into a bundle.
    let marked = marked_program_length();
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) if marked.is_some() => bail!(
            "this bundle cannot find its own file ({e}): it reads the catalog it carries from there; \
             run it from its file"
        ),
        Err(_) => return Ok(false),
    };
    let shown = exe.display();
    let mut file = match std::fs::File::open(&exe) {
        Ok(file) => file,
        Err(e) if marked.is_some() => bail!(
            "{shown}: this bundle cannot read its own file ({e}): it reads the catalog it carries from \
             there; make the file readable by whoever runs it (`chmod a+r {shown}`: mode 0755, not 0711)"
        ),
        Err(_) => return Ok(false),
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if let Some(program) = marked
        && len < program
    {
        bail!(
            "{shown}: this bundle is cut short ({len} bytes, less than the {program} bytes of its own program): \
             the file was damaged while being copied or downloaded; get it again or rebuild it with `folio bundle`"
        );
    }
    let mut tail = [0u8; TRAILER_LEN];
    let has_trailer = len >= TRAILER_LEN as u64
        && file.seek(SeekFrom::End(-(TRAILER_LEN as i64))).is_ok()
        && file.read_exact(&mut tail).is_ok()
        && &tail[..16] == TRAILER;
    if !has_trailer {
        if marked.is_some() {
            bail!(
                "{shown}: this bundle is cut short ({len} bytes, its trailer is gone): the file was damaged \
                 while being copied or downloaded; get it again or rebuild it with `folio bundle`"
            );
        }
        if let Some(image_end) = elf_image_end(&mut file)
            && image_end < len
            && starts_with_at(&mut file, image_end, HEADER)
        {
            bail!(
                "{shown}: this bundle is cut short ({len} bytes, its trailer is gone): the file was damaged \
                 while being copied or downloaded; get it again or rebuild it with `folio bundle`"
            );
        }
        return Ok(false);
    }
    let catalog_len = u64::from_le_bytes(tail[16..24].try_into().unwrap_or_default());
    let exe_len = u64::from_le_bytes(tail[24..32].try_into().unwrap_or_default());
    let expected: [u8; 32] = tail[32..64].try_into().unwrap_or_default();
    let whole = exe_len
        .checked_add(16)
        .and_then(|n| n.checked_add(catalog_len))
        .and_then(|n| n.checked_add(TRAILER_LEN as u64));
    if whole != Some(len)
        || marked.is_some_and(|program| program != exe_len)
        || !starts_with_at(&mut file, exe_len, HEADER)
    {
        bail!(
            "{shown}: this bundle's parts do not add up to its size ({len} bytes): the file was changed or \
             damaged; get it again or rebuild it with `folio bundle`"
        );
    }
    let mut catalog = vec![
        0u8;
        usize::try_from(catalog_len)
            .map_err(|_| anyhow!("{shown}: the bundled catalog is too large"))?
    ];
    file.seek(SeekFrom::Start(exe_len + 16))
        .and_then(|_| file.read_exact(&mut catalog))
        .with_context(|| format!("{shown}: cannot read the bundled catalog"))?;
    if blake3::hash(&catalog).as_bytes() != &expected {
        bail!(
            "{shown}: the bundled catalog does not match its checksum: the file was changed or damaged; \
             get it again or rebuild it with `folio bundle`"
        );
    }
    let query = Query::open(catalog).map_err(|e| anyhow!("{shown}: the bundled catalog is refused: {e}"))?;
    let settings = query.settings();
    let bundle = Bundle {
        name: settings.name.clone(),
        version: settings.version.clone(),
        title: settings.title.clone(),
        catalog_hash: query.catalog_hash().to_owned(),
        opened: std::sync::Mutex::new(Some(query)),
    };
    let _ = BUNDLE.set(bundle);
    Ok(true)
}

/// True when `file` holds `expected` at `offset`.
fn starts_with_at(file: &mut std::fs::File, offset: u64, expected: &[u8]) -> bool {
    let mut got = vec![0u8; expected.len()];
    file.seek(SeekFrom::Start(offset)).is_ok() && file.read_exact(&mut got).is_ok() && got == expected
}

/// Where a 64-bit little-endian ELF file's image ends: after its section header table, which
/// linkers write last. `None` for anything else (then a cut bundle is not recognised).
fn elf_image_end(file: &mut std::fs::File) -> Option<u64> {
    let mut head = [0u8; 64];
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_exact(&mut head).ok()?;
    // `\x7fELF`, 64-bit, little-endian.
    if &head[..4] != b"\x7fELF" || head[4] != 2 || head[5] != 1 {
        return None;
    }
    let shoff = u64::from_le_bytes(head[0x28..0x30].try_into().ok()?);
    let entsize = u64::from(u16::from_le_bytes(head[0x3A..0x3C].try_into().ok()?));
    let count = u64::from(u16::from_le_bytes(head[0x3C..0x3E].try_into().ok()?));
    shoff.checked_add(entsize.checked_mul(count)?)
}

/// Runs `folio bundle`: the catalog of a content tree (compiled as `folio build` does: any
/// error refuses it) or of a built file, appended to this executable, written to `--out`.
pub(crate) fn bundle(args: &BundleArgs) -> anyhow::Result<ExitCode> {
    if current().is_some() {
        bail!("a bundle cannot make bundles: run `folio bundle` with folio itself");
    }
    // The catalog's bytes, verified (a built file) or encoded (a compiled tree), and what it is.
    let (catalog, what): (bytes::Bytes, String) = match &args.catalog {
        Some(path) => {
            // The checks of `serve --catalog` before a byte is read: a regular file, its size,
            // its first 256 bytes.
            let bytes = bytes::Bytes::from(folio::query::read_catalog_bytes(path)?);
            let decoded = folio::catalog::codec::decode_shared(bytes.clone())
                .map_err(|e| anyhow!("{}: {e}", path.display()))?;
            (bytes, described(&decoded))
        }
        None => {
            let config = super::config(&args.content, &args.lints, &args.layout)?;
            let progress = super::progress::Progress::spinner("bundling: compiling");
            let compilation = folio::compile::compile(&config);
            progress.finish();
            let Some(catalog) = compilation.catalog else {
                let text = super::build::render(
                    super::Format::Human,
                    &compilation.diagnostics,
                    &args.content,
                    false,
                );
                eprint!("{text}");
                eprintln!("error: `{}` has errors; no bundle written", args.content.display());
                return Ok(ExitCode::from(1));
            };
            (folio::catalog::codec::encode(&catalog).msgpack.into(), described(&catalog))
        }
    };
    let progress = super::progress::Progress::spinner("bundling: writing the executable");
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let program = std::fs::read(&exe).with_context(|| format!("cannot read {}", exe.display()))?;
    let mut program = strip::stripped(program);
    mark(&mut program)?;
    let out = &args.out;
    let trailer = [
        &TRAILER[..],
        &(catalog.len() as u64).to_le_bytes(),
        &(program.len() as u64).to_le_bytes(),
        blake3::hash(&catalog).as_bytes(),
    ]
    .concat();
    write_executable(out, &[&program, HEADER, &catalog, &trailer])
        .map_err(|e| anyhow!("cannot write {}: {e}", out.display()))?;
    progress.finish();
    eprintln!(
        "wrote {} ({what}; run `{} serve` to serve it, `{} --help` for more)",
        out.display(),
        out.display(),
        out.display(),
    );
    Ok(ExitCode::SUCCESS)
}

/// `name version, N docs, M skills`, the tree's values escaped for the terminal.
fn described(catalog: &folio::catalog::Catalog) -> String {
    let settings = &catalog.settings;
    format!(
        "{}{}, {}, {}",
        printable(&settings.name),
        settings.version.as_deref().map(|v| format!(" {}", printable(v))).unwrap_or_default(),
        super::count(catalog.docs.len(), "doc", "docs"),
        super::count(catalog.skills.len(), "skill", "skills")
    )
}

/// Writes `parts` one after the other to a new executable file at `out` (mode 0755 on Unix):
/// into a temporary file of its folder that this call creates (`O_EXCL`: an existing file or a
/// link planted at its name is never opened, written or changed), then renamed over `out`.
fn write_executable(out: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let (tmp, mut file) = create_temp_beside(out)?;
    let written = (|| -> std::io::Result<()> {
        for part in parts {
            file.write_all(part)?;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            // On the handle, never by name.
            file.set_permissions(std::fs::Permissions::from_mode(0o755))?;
        }
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, out)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A new, empty file `.NAME.PID.N.tmp` beside `out`, created by this call (the first `N` whose
/// name is free).
fn create_temp_beside(out: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "bundle".into());
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o700);
    }
    let mut last = None;
    for n in 0..100 {
        let tmp = out.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match options.open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

#[cfg(test)]
mod tests {
    use super::write_executable;

    /// A link planted at the temporary file's name (the process id is no secret) is left alone:
    /// the file it points at is neither written nor made executable, and the bundle is written.
    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_the_temporary_name_is_not_followed() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = std::env::temp_dir().join(format!("folio-bundle-tmp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious\n").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();
        let out = dir.join("mydocs-mcp");
        for n in 0..3 {
            let planted = dir.join(format!(".mydocs-mcp.{}.{n}.tmp", std::process::id()));
            std::os::unix::fs::symlink(&victim, planted).unwrap();
        }
        std::os::unix::fs::symlink(&victim, dir.join(format!(".mydocs-mcp.{}.tmp", std::process::id())))
            .unwrap();
        write_executable(&out, &[b"program", b"catalog"]).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
        assert_eq!(std::fs::metadata(&victim).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read(&out).unwrap(), b"programcatalog");
        assert_eq!(std::fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o755);
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 6, "the victim, four links, the bundle: {left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
