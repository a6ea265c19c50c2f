//! `serve --content ROOT --watch` when the root's own entry changes: a `current` link flipped
//! from one release folder to another is followed (the root path is resolved again at each
//! reload), and a root deleted and recreated is watched again, with a line saying so, rather
//! than silently no longer followed.

use serde_json::json;

use crate::live_serve::{Served, save};
use crate::support::Tree;

const INDEX: &str = "resource://docs/index.md";

fn updated(uri: &str) -> (String, Option<String>) {
    ("notifications/resources/updated".to_owned(), Some(uri.to_owned()))
}

/// Points the link `link` at `target`, as a deploy does: a new link renamed over the old one.
#[cfg(unix)]
fn flip(t: &Tree, target: &str, link: &str) {
    let beside = t.join(format!("{link}.new"));
    std::os::unix::fs::symlink(target, &beside).unwrap();
    std::fs::rename(&beside, t.join(link)).unwrap();
}

#[cfg(unix)]
#[test]
fn a_watched_current_link_flipped_to_another_release_serves_that_release() {
    let t = Tree::new();
    t.file("releases/1/docs/index.md", "# Release 1\n").file("releases/2/docs/index.md", "# Release 2\n");
    t.symlink("releases/1", "current");
    let mut s = Served::start(t.path(), &["serve", "--content", "current", "--watch"]);
    s.listen(json!({ "resourceSubscriptions": [INDEX] }));
    assert_eq!(s.text(INDEX), "# Release 1\n");
    flip(&t, "releases/2", "current");
    assert_eq!(s.note(), updated(INDEX));
    assert_eq!(s.text(INDEX), "# Release 2\n");
    // The release served now is the one watched: an edit there is served, one in the release
    // it replaced is not read (the edit after it is the next thing heard of).
    save(&t, "releases/1/docs/index.md", "# Release 1, edited\n");
    save(&t, "releases/2/docs/index.md", "# Release 2, edited\n");
    assert_eq!(s.note(), updated(INDEX));
    assert_eq!(s.text(INDEX), "# Release 2, edited\n");
    // And back.
    flip(&t, "releases/1", "current");
    assert_eq!(s.note(), updated(INDEX));
    assert_eq!(s.text(INDEX), "# Release 1, edited\n");
}

#[test]
fn a_watched_root_deleted_and_made_again_is_followed_again() {
    let t = Tree::new();
    t.file("content/docs/index.md", "# First\n");
    let mut s = Served::start(t.path(), &["serve", "--content", "content", "--watch"]);
    s.listen(json!({ "resourceSubscriptions": [INDEX] }));
    std::fs::remove_dir_all(t.join("content")).unwrap();
    // Said, not silent: the root is gone, the last catalog is served, the watch waits for it
    // (in whichever order the reloads that notice it print them).
    let mut said: Vec<String> = Vec::new();
    for needle in ["still serving the previous catalog", "it is watched again when it comes back"] {
        if !said.iter().any(|l| l.contains(needle)) {
            said.extend(s.stderr_until(needle));
        }
    }
    assert!(said.iter().any(|l| l.contains("content: not a directory")), "{said:?}");
    assert_eq!(s.text(INDEX), "# First\n");
    // Made again (as a deploy does: built beside it, then renamed into place).
    t.file("content.next/docs/index.md", "# Second\n");
    std::fs::rename(t.join("content.next"), t.join("content")).unwrap();
    assert_eq!(s.note(), updated(INDEX));
    assert_eq!(s.text(INDEX), "# Second\n");
    s.stderr_until("folio: watching");
    // Watched again: an edit in the new root is served.
    save(&t, "content/docs/index.md", "# Third\n");
    assert_eq!(s.note(), updated(INDEX));
    assert_eq!(s.text(INDEX), "# Third\n");
}
