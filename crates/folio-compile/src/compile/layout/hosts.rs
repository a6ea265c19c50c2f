//! The agent hosts whose skill layouts Folio knows, one preset each: where a host loads a
//! repository's skills from, told by a marker file or folder at the content root, and how it
//! names them. Detected with no flag, like a site generator, and named in the compile's summary
//! line. Written from the hosts' own documentation:
//!
//! - Claude Code plugin marketplaces and plugins (`.claude-plugin/marketplace.json`,
//!   `.claude-plugin/plugin.json`; <https://code.claude.com/docs/en/plugin-marketplaces>,
//!   <https://code.claude.com/docs/en/plugins-reference>): see `claude`. A plugin's skills are
//!   scoped by the plugin (`/<plugin>:<skill>`), so they are mounted under a skill path
//!   prefixed by the plugin's name (`skills/<plugin>/<skill>/SKILL.md`).
//! - Project skills folders, unscoped: `.claude/skills/` (Claude Code,
//!   <https://code.claude.com/docs/en/skills>), `.agents/skills/` (OpenAI Codex,
//!   <https://developers.openai.com/codex/skills>, and GitHub Copilot), `.github/skills/` (GitHub
//!   Copilot, <https://docs.github.com/en/copilot/concepts/agents/about-agent-skills>) and
//!   `.codex/skills/` (Codex's earlier project folder).
//!
//! Owns the host presets, how their folders join the layout ([`Layout::scope_of`], the skill
//! folders read once of two) and what `${CLAUDE_PLUGIN_ROOT}` stands for ([`PluginRoot`]).
//! Reads the marker files (as JSON data, bounded like every config file) and folder names; must
//! not read content (that is `source`), and must not decide what a skill's name is (that is the
//! frontmatter's) beyond the scope a host puts in front of it.

mod claude;

use std::path::Path;

use super::super::diagnostic::{Code, Diagnostic};
use super::{Layout, Mount, Part, beside, join, strip_dir};

/// An agent host's layout of skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Host {
    /// A Claude Code plugin marketplace (`.claude-plugin/marketplace.json`).
    ClaudeMarketplace,
    /// One Claude Code plugin at the root (`.claude-plugin/plugin.json`, no marketplace).
    ClaudePlugin,
    /// Claude Code project skills (`.claude/skills/`).
    ClaudeSkills,
    /// The cross-agent project skills folder (`.agents/skills/`: Codex, Copilot).
    AgentsSkills,
    /// GitHub Copilot project skills (`.github/skills/`).
    GithubSkills,
    /// Codex's earlier project skills folder (`.codex/skills/`).
    CodexSkills,
}

impl Host {
    /// Every host, in the order their folders are read (the first folder holding a skill path
    /// keeps it).
    pub(crate) const ALL: [Host; 6] = [
        Host::ClaudeMarketplace,
        Host::ClaudePlugin,
        Host::ClaudeSkills,
        Host::AgentsSkills,
        Host::GithubSkills,
        Host::CodexSkills,
    ];

    /// Its preset: the one place a host's rules are found.
    fn preset(self) -> &'static dyn Preset {
        match self {
            Host::ClaudeMarketplace => &claude::Marketplace,
            Host::ClaudePlugin => &claude::Plugin,
            Host::ClaudeSkills => &Folder { name: "Claude Code project skills", dir: ".claude/skills" },
            Host::AgentsSkills => &Folder { name: "Agent Skills project folder", dir: ".agents/skills" },
            Host::GithubSkills => &Folder { name: "GitHub Copilot project skills", dir: ".github/skills" },
            Host::CodexSkills => &Folder { name: "Codex project skills", dir: ".codex/skills" },
        }
    }

    /// Its name, for messages.
    pub(crate) fn name(self) -> &'static str {
        self.preset().name()
    }
}

/// One host's rules.
trait Preset: Sync {
    /// Its name, for messages.
    fn name(&self) -> &'static str;
    /// The marker (content-relative) whose presence makes the root this host's layout.
    fn marker(&self) -> &'static str;
    /// The skills folders the host loads from a root holding the marker.
    fn read(&self, root: &Path) -> Read;
}

/// What a host preset read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Read {
    /// The skills folders, each with the catalog path it is mounted at.
    pub mounts: Vec<Mount>,
    /// The plugins read, for the summary.
    pub plugins: usize,
    /// Each plugin's name and folder (content-relative): what `${CLAUDE_PLUGIN_ROOT}` stands
    /// for in its skills.
    pub roots: Vec<(String, String)>,
    /// What the host would load that Folio does not read, each with why (a plugin fetched from
    /// another repository, a folder that is not there): said in the summary line.
    pub unread: Vec<(String, String)>,
    /// Why the marker file could not be read as the host documents it, when it could not.
    pub error: Option<String>,
}

/// A host's layout found at the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The host.
    pub host: Host,
    /// Its marker (content-relative).
    pub marker: &'static str,
    /// What it read.
    pub read: Read,
}

/// Every host layout at `root`, in [`Host::ALL`] order. A marketplace and a plugin at one root
/// are one layout: the marketplace lists the plugin.
pub(crate) fn find(root: &Path) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for host in Host::ALL {
        let preset = host.preset();
        let marker = preset.marker();
        if std::fs::symlink_metadata(root.join(marker)).is_err() {
            continue;
        }
        if host == Host::ClaudePlugin && out.iter().any(|f| f.host == Host::ClaudeMarketplace) {
            continue;
        }
        let read = preset.read(root);
        if read.mounts.is_empty() && read.error.is_none() && read.unread.is_empty() {
            continue;
        }
        out.push(Found { host, marker, read });
    }
    out
}

/// A project skills folder: its skills, unscoped.
struct Folder {
    name: &'static str,
    dir: &'static str,
}

impl Preset for Folder {
    fn name(&self) -> &'static str {
        self.name
    }

    fn marker(&self) -> &'static str {
        self.dir
    }

    fn read(&self, root: &Path) -> Read {
        let mut read = Read::default();
        if root.join(self.dir).is_dir() && inside(root, self.dir) {
            read.mounts.push(Mount { part: Part::Skills, dir: self.dir.to_owned(), at: String::new() });
        }
        read
    }
}

/// True when the content-relative `rel` resolves inside the root (a marker folder that is a
/// link out of it is not read).
fn inside(root: &Path, rel: &str) -> bool {
    root.join(rel).canonicalize().is_ok_and(|resolved| resolved.starts_with(root))
}

/// The skill folder names (`<name>/SKILL.md`) directly in the content-relative folder `dir`.
pub(super) fn skill_folders(root: &Path, dir: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else { return Vec::new() };
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| root.join(join(dir, name)).join("SKILL.md").is_file())
        .collect();
    out.sort();
    out
}

/// The summary line's part about hosts: `; skills as hosts load them: Claude Code plugin
/// marketplace (.claude-plugin/marketplace.json: 12 plugins)`, then what a host would load that
/// is not read, and the skill folders read once of two.
pub(super) fn describe(layout: &super::Layout) -> String {
    let mut out = String::new();
    let found: Vec<String> = layout
        .hosts
        .iter()
        .filter(|f| !f.read.mounts.is_empty())
        .map(|f| match f.host {
            Host::ClaudeMarketplace | Host::ClaudePlugin => {
                let n = f.read.plugins;
                format!(
                    "{} ({}: {n} plugin{} with skills)",
                    f.host.name(),
                    f.marker,
                    if n == 1 { "" } else { "s" }
                )
            }
            _ => format!("{} ({}/)", f.host.name(), f.marker),
        })
        .collect();
    if !found.is_empty() {
        out.push_str(&format!("; skills as hosts load them: {}", found.join(", ")));
    }
    let unread: Vec<String> = layout
        .hosts
        .iter()
        .flat_map(|f| f.read.unread.iter())
        .map(|(what, why)| format!("plugin `{what}` ({why})"))
        .collect();
    if !unread.is_empty() {
        out.push_str(&format!(
            "; not read: {}",
            unread.iter().take(4).cloned().collect::<Vec<_>>().join(", ")
        ));
        if unread.len() > 4 {
            out.push_str(&format!(" and {} more", unread.len() - 4));
        }
    }
    if let Some((first, kept)) = layout.shadowed.first() {
        out.push_str(&format!("; `{first}/` is read from `{kept}/`"));
        if layout.shadowed.len() > 1 {
            out.push_str(&format!(
                " and {} more skill folders from the first folder holding them",
                layout.shadowed.len() - 1
            ));
        }
    }
    out
}

impl Layout {
    /// Reads the skills folders of the agent hosts whose markers are at the root, in place of
    /// Folio's own `skills/` where a host reads that folder. A marker file that cannot be read
    /// is an `invalid-config` error (the rest of the tree is still read).
    pub(super) fn read_hosts(&mut self, root: &Path, diags: &mut Vec<Diagnostic>) {
        self.hosts = find(root);
        for found in &self.hosts {
            if let Some(why) = &found.read.error {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidConfig,
                        found.marker,
                        1,
                        1,
                        format!("`{}` is not read: {why}", found.marker),
                    )
                    .with_help(format!(
                        "fix the file as {} documents it; its skills are not read meanwhile",
                        found.host.name()
                    )),
                );
            }
        }
        let mounts: Vec<Mount> = self.hosts.iter().flat_map(|f| f.read.mounts.iter().cloned()).collect();
        if mounts.is_empty() {
            return;
        }
        // A host that reads `skills/` (a plugin at the root) reads it in place of Folio's own,
        // and a `skills/` that is not there is not named.
        self.mounts.retain(|m| {
            m.part != Part::Skills
                || !(mounts.iter().any(|h| strip_dir(&h.dir, &m.dir).is_some())
                    || (m.dir == "skills" && !root.join("skills").is_dir()))
        });
        let mut seen: Vec<(String, String)> = Vec::new();
        if self.mounts.iter().any(|m| m.part == Part::Skills && m.at.is_empty() && m.dir == "skills") {
            seen.extend(skill_folders(root, "skills").into_iter().map(|n| (n.clone(), join("skills", &n))));
        }
        for mount in mounts {
            if self.mounts.contains(&mount) {
                continue;
            }
            // A host folder that is a link to a folder already read (`.agents/skills ->
            // ../skills`) is the same skills: read once, from the first.
            let canonical = |dir: &str| root.join(dir).canonicalize().ok();
            if let Some(kept) = self
                .mounts
                .iter()
                .filter(|m| m.part == Part::Skills)
                .find(|m| canonical(&m.dir).is_some() && canonical(&m.dir) == canonical(&mount.dir))
            {
                self.shadowed.push((mount.dir.clone(), kept.dir.clone()));
                continue;
            }
            // Unscoped folders share one namespace: a skill in two of them is read from the first.
            if mount.at.is_empty() {
                for name in skill_folders(root, &mount.dir) {
                    let real = join(&mount.dir, &name);
                    match seen.iter().find(|(n, _)| *n == name) {
                        Some((_, kept)) => self.shadowed.push((real, kept.clone())),
                        None => seen.push((name, real)),
                    }
                }
            }
            self.mounts.push(mount);
        }
    }

    /// What `${CLAUDE_PLUGIN_ROOT}` stands for in the file at the catalog path `path`: its
    /// plugin's folder, when a plugin's skills folder holds it.
    pub(crate) fn plugin_root(&self, path: &str) -> Option<PluginRoot> {
        let scope = self.scope_of(path)?;
        let real = self.hosts.iter().flat_map(|f| &f.read.roots).find(|(name, _)| name == scope)?.1.clone();
        let mounts = self
            .mounts
            .iter()
            .filter(|m| m.part != Part::Assets)
            .map(|m| (m.dir.clone(), m.logical()))
            .collect();
        Some(PluginRoot { real, mounts })
    }

    /// The scope a host gives the skill in the catalog folder `skill_dir` (`skills/<plugin>/x`):
    /// the plugin's name, when a scoped folder holds it.
    pub(crate) fn scope_of(&self, skill_dir: &str) -> Option<&str> {
        self.mounts
            .iter()
            .filter(|m| m.part == Part::Skills && !m.at.is_empty())
            .find(|m| strip_dir(skill_dir, &m.logical()).is_some())
            .map(|m| m.at.split('/').next().unwrap_or(&m.at))
    }
}

/// A plugin's folder, for resolving `${CLAUDE_PLUGIN_ROOT}` in its skills' links without the
/// layout at hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PluginRoot {
    /// The plugin's folder, content-relative.
    pub real: String,
    /// The folders read (content-relative), each with its catalog path.
    pub mounts: Vec<(String, String)>,
}

impl PluginRoot {
    /// The relative link `written` of the file at catalog path `from`, when it lands inside the
    /// plugin (which is installed whole, so such a link resolves where the host installs it,
    /// even out of its skill): rewritten as [`PluginRoot::link`] writes it.
    pub(crate) fn rebase(&self, from: &str, written: &str) -> Option<String> {
        let from_real = self.real_of(from)?;
        let from_dir = from_real.rsplit_once('/').map_or("", |(d, _)| d);
        let target = beside(from_dir, written)?;
        self.to(from, &from_real, strip_dir(&target, &self.real)?)
    }

    /// The link from the file at catalog path `from` to `${CLAUDE_PLUGIN_ROOT}/rest`: relative
    /// in catalog terms when a folder read holds the target, else relative on disk (a script or
    /// template of the plugin, checked there).
    pub(crate) fn link(&self, from: &str, rest: &str) -> Option<String> {
        self.to(from, &self.real_of(from)?, rest)
    }

    fn to(&self, from: &str, from_real: &str, rest: &str) -> Option<String> {
        let target = beside(&self.real, rest)?;
        let mount = self
            .mounts
            .iter()
            .filter(|(dir, _)| strip_dir(&target, dir).is_some())
            .max_by_key(|(dir, _)| dir.len());
        Some(match mount {
            Some((dir, logical)) => relative(from, &join(logical, strip_dir(&target, dir).unwrap_or(""))),
            None => relative(from_real, &target),
        })
    }

    /// The real path of the file at catalog path `from`.
    fn real_of(&self, from: &str) -> Option<String> {
        let (dir, logical) =
            self.mounts.iter().filter(|(_, l)| strip_dir(from, l).is_some()).max_by_key(|(_, l)| l.len())?;
        Some(join(dir, strip_dir(from, logical).unwrap_or("")))
    }
}

/// The relative link from the file `from` to the path `to` (both from one root).
fn relative(from: &str, to: &str) -> String {
    let from_dir: Vec<&str> = from.split('/').collect();
    let from_dir = &from_dir[..from_dir.len().saturating_sub(1)];
    let to_parts: Vec<&str> = to.split('/').filter(|p| !p.is_empty()).collect();
    let shared = from_dir.iter().zip(&to_parts).take_while(|(a, b)| a == b).count();
    let mut out = "../".repeat(from_dir.len() - shared);
    out.push_str(&to_parts[shared..].join("/"));
    out
}
