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
//! Reads the marker files (as JSON data, bounded like every config file) and folder names; must
//! not read content (that is `source`), and must not decide what a skill's name is (that is the
//! frontmatter's) beyond the scope a host puts in front of it.

mod claude;

use std::path::Path;

use super::{Mount, Part, join};

/// An agent host's layout of skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Host {
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
    pub const ALL: [Host; 6] = [
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
    pub fn name(self) -> &'static str {
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
pub struct Read {
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
pub struct Found {
    /// The host.
    pub host: Host,
    /// Its marker (content-relative).
    pub marker: &'static str,
    /// What it read.
    pub read: Read,
}

/// Every host layout at `root`, in [`Host::ALL`] order. A marketplace and a plugin at one root
/// are one layout: the marketplace lists the plugin.
pub fn find(root: &Path) -> Vec<Found> {
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
