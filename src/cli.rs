//! The command line: clap types and one function per subcommand. The only module (with its
//! children under `cli/`) that prints to stdout.

mod build;
pub(crate) mod bundle;
#[cfg(feature = "semantic")]
mod fetch;
mod lookup;
mod progress;
mod reload;
mod render;
mod semantic;
mod serve;
mod shelf;
mod terminal;
mod versions;
mod web;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Compile markdown docs and Agent Skills into a content-hashed catalog and serve it over MCP.
#[derive(Debug, Parser)]
// The name and summary are the `folio` binary's, spelled out: the package's Cargo description is
// the library's, not the command's.
#[command(name = "folio", version, about = ABOUT, long_about = None, after_help = EXAMPLES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The command's summary (its `--help` first line).
const ABOUT: &str = "Compile markdown docs and Agent Skills into a deterministic, content-hashed catalog and serve it to AI agents over MCP";

const EXAMPLES: &str = "\
Examples:
  folio check content/                  validate a docs + skills tree (exit 1 on errors)
  folio check content/ --format github  annotate a pull request from GitHub Actions
  folio build content/ --out catalog/   write catalog.msgpack + manifest.json
  folio serve                           serve the embedded catalog over stdio
  folio serve --http 127.0.0.1:8090     serve it over Streamable HTTP at /mcp
  folio list --kind skill               list the embedded catalog's skills
  folio search \"ci annotations\"         full-text search
  folio show skill://check-docs-in-ci/SKILL.md
  folio browse --content content/ --open  read a tree in a web browser as you edit it
  folio bundle content/ --out dist/docs-mcp  one executable serving this tree's catalog";

#[derive(Debug, Subcommand)]
enum Command {
    /// Compile a content tree and write `catalog.msgpack` and `manifest.json`.
    Build(BuildArgs),
    /// Validate a content tree and report every problem (exit 1 on errors).
    Check(CheckArgs),
    /// Serve a catalog to MCP clients over stdio (default) or Streamable HTTP.
    Serve(ServeArgs),
    /// List the entries of a catalog.
    List(ListArgs),
    /// Show one entry's metadata and exact text.
    Show(ShowArgs),
    /// Full-text search over a catalog.
    Search(SearchArgs),
    /// Browse a catalog in a web browser: a read-only view on 127.0.0.1.
    Browse(BrowseArgs),
    /// Write one self-contained executable that serves this tree's catalog and nothing else.
    Bundle(BundleArgs),
}

#[derive(Debug, Args)]
pub(crate) struct BuildArgs {
    /// Content root holding `docs/`, `skills/` and `folio.toml`.
    #[arg(default_value = "content")]
    pub(crate) content: PathBuf,
    /// Directory to write `catalog.msgpack` and `manifest.json` into.
    #[arg(long, default_value = "catalog")]
    pub(crate) out: PathBuf,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
    #[command(flatten)]
    pub(crate) lints: LintArgs,
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,
    /// Embed every section with the sentence encoder in this directory, or the model of this
    /// name (all-MiniLM-L6-v2, or a hub id ORG/NAME: downloaded into the cache on first use),
    /// and store the vectors for semantic search (overrides `[search] model` in folio.toml;
    /// needs the `semantic` feature).
    #[arg(long, value_name = "DIR|NAME")]
    pub(crate) model: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) versions: VersionArgs,
}

/// Which versions of a tree that keeps versions to compile, each as a catalog of its own named
/// `<name>@<version>` (see `cli/versions.rs`).
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct VersionArgs {
    /// Every version the tree keeps (Docusaurus's `versions.json`, or folders named like
    /// versions: `v1/`, `2.x/`), each into `OUT/<name>@<version>/`.
    #[arg(long)]
    pub(crate) versions: bool,
    /// Only this version (repeatable; implies `--versions`): `current` or a name in
    /// `versions.json`, or the version of a folder or git tag.
    #[arg(long = "version", value_name = "NAME")]
    pub(crate) only: Vec<String>,
    /// A folder of the content root holding one version, named after it (`v2` is version `2`;
    /// repeatable; implies `--versions`).
    #[arg(long, value_name = "DIR", conflicts_with = "git_tag")]
    pub(crate) version_dir: Vec<String>,
    /// The tree as it was at this git tag, named after it (`v2.0.0` is version `2.0.0`;
    /// repeatable; implies `--versions`); the working tree is not touched.
    #[arg(long, value_name = "TAG", conflicts_with = "only")]
    pub(crate) git_tag: Vec<String>,
}

impl VersionArgs {
    /// True when any flag asks for versions.
    pub(crate) fn requested(&self) -> bool {
        self.versions || !self.only.is_empty() || !self.version_dir.is_empty() || !self.git_tag.is_empty()
    }
}

/// Lint levels on the command line; they win over `folio.toml` `[lints]`. A code named by more
/// than one flag takes the strictest (`--deny` over `--warn` over `--allow`).
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct LintArgs {
    /// Do not report this diagnostic code (repeatable).
    #[arg(long, value_name = "CODE")]
    pub(crate) allow: Vec<String>,
    /// Report this diagnostic code as a warning (repeatable).
    #[arg(long, value_name = "CODE")]
    pub(crate) warn: Vec<String>,
    /// Report this diagnostic code as an error (repeatable).
    #[arg(long, value_name = "CODE")]
    pub(crate) deny: Vec<String>,
}

impl LintArgs {
    /// The requests, checked: an unknown code, or one that cannot be lowered, is a usage error.
    pub(crate) fn requests(&self) -> anyhow::Result<Vec<folio::compile::lints::Request>> {
        use folio::compile::lints::{Level, Request, SetBy, refusal};
        let mut out = Vec::new();
        for (flag, level, codes) in [
            ("--allow", Level::Allow, &self.allow),
            ("--warn", Level::Warn, &self.warn),
            ("--deny", Level::Error, &self.deny),
        ] {
            for code in codes {
                let request = Request {
                    code: code.clone(),
                    level,
                    set_by: SetBy::CommandLine(format!("{flag} {code}")),
                };
                if let Some(why) = refusal(&request) {
                    anyhow::bail!("{flag} {code}: {why}");
                }
                out.push(request);
            }
        }
        Ok(out)
    }
}

/// Where the content is, on the command line; wins over `folio.toml` `[docs] dir` and `[skills]
/// dirs`, and over the folders a detected site generator uses.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct LayoutArgs {
    /// Read the pages from this folder of the content root instead of `docs/` (`.` for the
    /// root itself).
    #[arg(long, value_name = "DIR")]
    pub(crate) docs: Option<String>,
    /// Read skills from this folder of the content root instead of `skills/` (repeatable).
    #[arg(long, value_name = "DIR")]
    pub(crate) skills: Vec<String>,
}

impl LayoutArgs {
    fn is_empty(&self) -> bool {
        self.docs.is_none() && self.skills.is_empty()
    }
}

/// The compile of a content tree the command line asks for: its root, lint levels and layout.
pub(crate) fn config(
    content: &std::path::Path,
    lints: &LintArgs,
    layout: &LayoutArgs,
) -> anyhow::Result<folio::compile::Config> {
    let requested =
        folio::compile::Requested { docs: layout.docs.clone(), skills: layout.skills.clone(), version: None };
    Ok(folio::compile::Config::new(content.to_path_buf())
        .with_lints(lints.requests()?)
        .with_layout(requested))
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Content root holding `docs/`, `skills/` and `folio.toml`.
    #[arg(default_value = "content")]
    pub(crate) content: PathBuf,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
    /// Exit 1 when there are warnings, not only errors.
    #[arg(long)]
    pub(crate) deny_warnings: bool,
    #[command(flatten)]
    pub(crate) lints: LintArgs,
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,
    #[command(flatten)]
    pub(crate) versions: VersionArgs,
}

/// How diagnostics are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// rustc-like: location, source line, caret, help.
    Human,
    /// One JSON array.
    Json,
    /// GitHub Actions workflow commands (`::error file=…`).
    Github,
}

/// Where a runtime command reads its catalog from.
#[derive(Debug, Args)]
pub(crate) struct SourceArgs {
    /// Read this `catalog.msgpack` instead of the embedded catalog.
    #[arg(long, value_name = "FILE", conflicts_with = "content")]
    pub(crate) catalog: Vec<PathBuf>,
    /// Compile this content tree in memory instead of using the embedded catalog.
    #[arg(long, value_name = "DIR")]
    pub(crate) content: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) lints: LintArgs,
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,
    /// Search with the sentence encoder in this directory, or the model of this name: the
    /// model the catalog's vectors were built with (`--content` is embedded with it; overrides
    /// `[search] model`).
    #[arg(long, value_name = "DIR|NAME")]
    pub(crate) model: Option<PathBuf>,
}

impl SourceArgs {
    /// The one `--catalog FILE`, if given. Several are a shelf, which only `folio serve` serves.
    pub(crate) fn catalog(&self) -> anyhow::Result<Option<&PathBuf>> {
        match self.catalog.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(one)),
            several => anyhow::bail!(
                "--catalog is given {} times: only `folio serve` serves several catalogs (a shelf)",
                several.len()
            ),
        }
    }

    /// Loads the model this command asked for (`--model`, or `[search] model` of `--content`),
    /// once, before any catalog is opened.
    pub(crate) fn load_model(&self) -> anyhow::Result<()> {
        match semantic::requested(self.model.as_deref(), self.content.as_deref()) {
            Some(requested) => semantic::configure(&requested, None),
            None => Ok(()),
        }
    }

    /// The compile `--content DIR` asks for, with the levels and folders given beside it; `None`
    /// without `--content`. Levels or folders without it are a usage error: they would be
    /// ignored.
    pub(crate) fn config(&self) -> anyhow::Result<Option<folio::compile::Config>> {
        let lints = &self.lints;
        let given = !(lints.allow.is_empty() && lints.warn.is_empty() && lints.deny.is_empty());
        match &self.content {
            Some(root) => config(root, &self.lints, &self.layout).map(Some),
            None if given || !self.layout.is_empty() => anyhow::bail!(
                "--allow, --warn, --deny, --docs and --skills apply to a content tree: pass --content DIR"
            ),
            None => Ok(None),
        }
    }
}

/// How `serve --content` treats content errors.
#[derive(Debug, Args)]
pub(crate) struct ContentArgs {
    /// Refuse to serve a tree with any error, as `folio build` does, instead of leaving out the
    /// entries whose own content has errors.
    #[arg(long, requires = "content")]
    pub(crate) strict: bool,
}
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub(crate) source: SourceArgs,
    /// Follow the source: recompile `--content DIR` when a file in it changes, reload
    /// `--catalog FILE` when it is replaced; clients are notified of what changed.
    #[arg(long)]
    pub(crate) watch: bool,
    #[command(flatten)]
    pub(crate) content_args: ContentArgs,
    /// Open `--catalog FILE` as a read-only memory map instead of reading it: replicas on one
    /// machine share its pages. The file must then be replaced by a rename (as `folio build`
    /// does), never rewritten in place.
    #[arg(long)]
    pub(crate) mmap: bool,
    /// Serve every catalog in this folder (`*.msgpack`, and `<dir>/catalog.msgpack` one level
    /// down) and each `--catalog FILE` as a shelf: each as `<name>@<version>`, opened on first use.
    #[arg(long, value_name = "DIR", conflicts_with = "content")]
    pub(crate) shelf: Option<PathBuf>,
    /// On a shelf, keep at most this many catalogs open at once: opening one more closes the
    /// least recently used (it opens again when asked for).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_open: u32,
    /// Serve Streamable HTTP at `/mcp` on this address instead of stdio (e.g. 127.0.0.1:8090).
    #[arg(long, value_name = "ADDR")]
    pub(crate) http: Option<String>,
    /// Accept browser requests from this Origin (repeatable; e.g. http://localhost:3000).
    #[arg(long, value_name = "ORIGIN")]
    pub(crate) allow_origin: Vec<String>,
    /// Accept this Host header besides loopback names (repeatable; for non-local binds).
    #[arg(long, value_name = "HOST")]
    pub(crate) allow_host: Vec<String>,
    /// Require `Authorization: Bearer <token>` with the token read from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub(crate) bearer_token_env: Option<String>,
    /// Serve at most this many HTTP connections at once; when all are taken, the one idle the
    /// longest (no request in hand) is closed for a new client.
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_connections: u32,
    /// Serve at most this many HTTP connections from one remote client at once (loopback
    /// clients are not counted); more are answered 429.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_connections_per_client: u32,
    /// Requests per second each remote client may make to /mcp (bursts of twice as many pass;
    /// loopback clients are not limited); 0 turns the limit off.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub(crate) rate_limit: u32,
    /// Keep at most this many `subscriptions/listen` streams open at once (they do not take
    /// connection slots); more are answered 503 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_listen_streams: u32,
    /// On Ctrl-C or SIGTERM, give open HTTP requests this many seconds to finish, then drop
    /// the connections still open and exit.
    #[arg(long, value_name = "SECONDS", default_value_t = 5)]
    pub(crate) shutdown_timeout: u64,
}

#[derive(Debug, Args)]
pub(crate) struct BundleArgs {
    /// Content root holding `docs/`, `skills/` and `folio.toml` (compiled as `folio build` does).
    #[arg(default_value = "content")]
    pub(crate) content: PathBuf,
    /// Bundle this built `catalog.msgpack` instead of compiling a tree.
    #[arg(long, value_name = "FILE")]
    pub(crate) catalog: Option<PathBuf>,
    /// Where to write the executable (e.g. dist/mydocs-mcp).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: PathBuf,
    #[command(flatten)]
    pub(crate) lints: LintArgs,
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,
}

#[derive(Debug, Args)]
pub(crate) struct BrowseArgs {
    #[command(flatten)]
    pub(crate) source: SourceArgs,
    /// Browse every catalog in this folder (as `serve --shelf`): an index of the catalogs, each
    /// catalog's pages under `/<name>@<version>/`.
    #[arg(long, value_name = "DIR", conflicts_with = "content")]
    pub(crate) shelf: Option<PathBuf>,
    /// Listen on this port of 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 4040)]
    pub(crate) port: u16,
    /// Open the view in the system's web browser.
    #[arg(long)]
    pub(crate) open: bool,
    /// Accept this Host header besides localhost, 127.0.0.1 and ::1 (repeatable).
    #[arg(long, value_name = "HOST")]
    pub(crate) allow_host: Vec<String>,
}

/// Which kind of entry to list or search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum KindArg {
    /// Skills (their SKILL.md).
    Skill,
    /// Docs.
    Doc,
    /// Skill files other than SKILL.md.
    SkillFile,
    /// Everything.
    All,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    pub(crate) source: SourceArgs,
    /// Only entries of this kind.
    #[arg(long, value_enum)]
    pub(crate) kind: Option<KindArg>,
    /// Only entries with this tag.
    #[arg(long)]
    pub(crate) tag: Option<String>,
    /// Only docs in this locale (`ja`, `zh-cn`).
    #[arg(long, value_name = "LOCALE")]
    pub(crate) lang: Option<String>,
    /// Only entries whose path starts with this prefix.
    #[arg(long)]
    pub(crate) prefix: Option<String>,
    /// Print JSON for scripts instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    #[command(flatten)]
    pub(crate) source: SourceArgs,
    /// A skill id, a doc path, or any catalog URI.
    pub(crate) id: String,
    /// Only this section (heading id).
    #[arg(long)]
    pub(crate) section: Option<String>,
    /// Only these lines, `A-B` (1-based, inclusive).
    #[arg(long, value_name = "A-B")]
    pub(crate) lines: Option<String>,
    /// Print JSON for scripts.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    #[command(flatten)]
    pub(crate) source: SourceArgs,
    /// What to look for.
    pub(crate) query: String,
    /// Only entries of this kind.
    #[arg(long, value_enum)]
    pub(crate) kind: Option<KindArg>,
    /// Only docs in this locale (`ja`, `zh-cn`).
    #[arg(long, value_name = "LOCALE")]
    pub(crate) lang: Option<String>,
    /// At most this many hits.
    #[arg(long, default_value_t = 10)]
    pub(crate) limit: usize,
    /// How to rank: hybrid (words and meaning, when the catalog has vectors and `--model` is
    /// given), keyword (words only) or semantic (meaning only, with each hit's distance).
    #[arg(long, default_value = "hybrid", value_parser = ["hybrid", "keyword", "semantic"])]
    pub(crate) mode: String,
    /// Print JSON for scripts.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `n` with its noun: `1 entry`, `2 entries`.
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 { format!("1 {one}") } else { format!("{n} {many}") }
}

impl Cli {
    /// Parses the process's arguments: folio's command line, or a bundle's (named and versioned
    /// as its project: see `cli/bundle.rs`).
    pub(crate) fn parse_args() -> Cli {
        use clap::{CommandFactory as _, FromArgMatches as _};
        match bundle::current() {
            None => Cli::parse(),
            Some(bundled) => {
                let matches = bundle::command(bundled, Cli::command()).get_matches();
                Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
            }
        }
    }
}

/// Runs a parsed command line and returns the process exit code.
///
/// Fails on operational problems (unreadable files, a refused catalog, a bind error); the caller
/// prints the error and exits 2.
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(bundled) = bundle::current()
        && matches!(cli.command, Command::Build(_) | Command::Check(_) | Command::Bundle(_))
    {
        anyhow::bail!(
            "`{}` serves its bundled catalog; building, checking and bundling are folio's commands (install folio for them)",
            bundled.name
        );
    }
    match cli.command {
        Command::Build(args) => build::build(&args),
        Command::Check(args) => build::check(&args),
        // Several catalogs are a shelf (`cli/shelf.rs`), which builds on `serve`'s HTTP flags.
        Command::Serve(args) if args.shelf.is_some() || args.source.catalog.len() > 1 => shelf::serve(&args),
        Command::Serve(args) => serve::serve(args),
        Command::List(args) => lookup::list(&args),
        Command::Show(args) => lookup::show(&args),
        Command::Search(args) => lookup::search(&args),
        Command::Browse(args) => web::browse(args),
        Command::Bundle(args) => bundle::bundle(&args),
    }
}
