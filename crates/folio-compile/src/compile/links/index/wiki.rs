//! Wiki links (`[[Target]]`, `[[Target|label]]`): resolved by the wiki keys of every served
//! file's full path and name, the way Obsidian-style notes find a page; a key that names more
//! than one file is ambiguous, never a guess.
//!
//! Must not: resolve any other kind of link (the parent's `resolve_link` hands wiki links here).

use std::borrow::Cow;

use super::super::forms::{closest, wiki_display, wiki_key};
use super::super::{LinkSource, Outcome, Problem};
use super::Index;
use crate::compile::markdown::RawLink;

impl<'t> Index<'t> {
    pub(super) fn resolve_wiki(&self, source: &LinkSource<'t>, raw: &RawLink) -> Outcome<'t> {
        let target = raw.path().trim().trim_start_matches('/');
        if target.is_empty() {
            return Outcome::Found(source.path);
        }
        // Only a problem's message shows the link: not formatted for the links that resolve.
        let shown = || format!("[[{}]]", raw.target);
        let key = wiki_key(target);
        // In a skill, a wiki link names a file of that skill (relative to its directory).
        if let Some(skill_dir) = source.origin.skill_dir() {
            let prefix = format!("{skill_dir}/");
            // Only the skill's own files: a range of the sorted maps, not a scan of the tree.
            let from = (std::ops::Bound::Included(prefix.as_str()), std::ops::Bound::Unbounded);
            let served = self.targets.uri_by_path.range::<str, _>(from).map(|(p, _)| p);
            let other = self.targets.other_files.range::<str, _>(from);
            let in_skill = served
                .take_while(|p| p.starts_with(&prefix))
                .chain(other.take_while(|p| p.starts_with(&prefix)));
            let matches: Vec<&str> = in_skill
                .copied()
                .filter(|p| p.strip_prefix(&prefix).is_some_and(|rel| wiki_key(rel) == key))
                .collect();
            return match matches.as_slice() {
                [one] => Outcome::Found(one),
                [] => Outcome::Problem(Problem::broken(
                    format!("wiki link `{}` matches no file in the skill directory `{skill_dir}`", shown()),
                    None,
                )),
                many => Outcome::Problem(ambiguous(&shown(), many)),
            };
        }
        if let Some(found) = self.wiki_full.get(&*key) {
            return match found.as_slice() {
                [one] => Outcome::Found(one),
                many => Outcome::Problem(ambiguous(&shown(), many)),
            };
        }
        if !target.contains('/')
            && let Some(found) = self.wiki_name.get(&*key)
        {
            return match found.as_slice() {
                [one] => Outcome::Found(one),
                many => Outcome::Problem(ambiguous(&shown(), many)),
            };
        }
        // In key order, as a sorted map would give them: the first of equally close keys wins.
        let sorted = self.wiki_sorted.get_or_init(|| {
            let mut keys: Vec<(Cow<'t, str>, &'t str)> =
                self.wiki_full.iter().map(|(k, paths)| (k.clone(), paths[0])).collect();
            keys.sort_unstable();
            keys
        });
        let help = closest(&key, sorted.iter().map(|(k, path)| (k, *path)))
            .map(|path| format!("did you mean `[[{}]]`?", wiki_display(path)));
        Outcome::Problem(Problem::broken(format!("wiki link `{}` matches no doc", shown()), help))
    }
}

fn ambiguous(shown: &str, many: &[&str]) -> Problem {
    let listed: Vec<String> = many.iter().map(|p| format!("`{p}`")).collect();
    Problem::broken(
        format!("wiki link `{shown}` is ambiguous: it matches {}", listed.join(", ")),
        Some(format!("write more of the path, for example `[[{}]]`", wiki_display(many[0]))),
    )
}
