//! The source module's reads against real files: links, special files and sizes.

use std::sync::Arc;

use super::{Found, Kind, MAX_FILE_BYTES, Root, moved_since, read, read_inside};

#[cfg(unix)]
#[test]
fn sources_are_shown_only_from_regular_files_inside_the_root() {
    let dir = std::env::temp_dir().join(format!("folio-source-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("root/docs")).unwrap();
    std::fs::write(dir.join("outside.md"), "secret\n").unwrap();
    std::fs::write(dir.join("root/docs/a.md"), "# A\n").unwrap();
    std::os::unix::fs::symlink("a.md", dir.join("root/docs/in.md")).unwrap();
    std::os::unix::fs::symlink("../../outside.md", dir.join("root/docs/out.md")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("root/docs/zero.md")).unwrap();
    let root = dir.join("root").canonicalize().unwrap();
    assert_eq!(read_inside(&root, "docs/a.md").as_deref(), Some(&b"# A\n"[..]));
    assert_eq!(read_inside(&root, "docs/in.md").as_deref(), Some(&b"# A\n"[..]));
    for refused in ["docs/out.md", "docs/zero.md", "docs", ".", "../outside.md", "docs/missing.md"] {
        assert_eq!(read_inside(&root, refused), None, "{refused}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_file_reported_unreadable_has_moved_when_it_is_gone_or_opens_now() {
    let dir = std::env::temp_dir().join(format!("folio-moved-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/a.md"), "# A\n").unwrap();
    std::os::unix::fs::symlink("nowhere.md", dir.join("docs/dangling.md")).unwrap();
    // Renamed or deleted after the walk saw it.
    assert!(moved_since(&dir, "docs/gone.md"));
    // Replaced by a save while it was read: it opens now.
    assert!(moved_since(&dir, "docs/a.md"));
    assert!(moved_since(&dir, "docs"));
    // Its directory became a file.
    assert!(moved_since(&dir, "docs/a.md/b.md"));
    // Still unreadable: a real error, not a moment that passed.
    assert!(!moved_since(&dir, "docs/dangling.md"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Reads `path` (under `root`) as the compile does once the walk has found a regular file
/// there, and gives the diagnostic's code and message.
#[cfg(unix)]
fn read_found(root: &std::path::Path, path: &str) -> Result<Vec<u8>, String> {
    let found = Found {
        path: path.to_owned(),
        abs: root.join(path),
        kind: Kind::Doc,
        root: Arc::new(Root::open(root.to_owned()).unwrap()),
        plugin: None,
    };
    read(&found).map_err(|d| format!("{} {}", d.code, d.message))
}

#[cfg(unix)]
#[test]
fn a_file_replaced_after_the_walk_is_refused_without_following_or_blocking() {
    // What the walk found was a regular file; by the time it is read, the path holds a link
    // (here out of the root), a FIFO, or a file over the limit.
    let dir = std::env::temp_dir().join(format!("folio-swapped-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("content/docs")).unwrap();
    std::fs::create_dir_all(dir.join("outside/keys")).unwrap();
    std::fs::write(dir.join("outside/secret.md"), "secret\n").unwrap();
    std::os::unix::fs::symlink("../../outside/secret.md", dir.join("content/docs/swapped.md")).unwrap();
    let fifo = std::process::Command::new("mkfifo").arg(dir.join("content/docs/pipe.md")).status();
    assert!(fifo.expect("mkfifo runs").success());
    let big = std::fs::File::create(dir.join("content/docs/big.md")).unwrap();
    big.set_len(MAX_FILE_BYTES + 1).unwrap();
    std::fs::write(dir.join("content/docs/plain.md"), "# Plain\n").unwrap();
    // A directory on the way replaced by a link to a directory outside holding the same name.
    std::fs::write(dir.join("outside/keys/x.md"), "secret\n").unwrap();
    std::os::unix::fs::symlink("../../outside/keys", dir.join("content/docs/dir")).unwrap();
    let root = dir.join("content").canonicalize().unwrap();
    for swapped in ["docs/swapped.md", "docs/dir/x.md"] {
        assert_eq!(
            read_found(&root, swapped),
            Err(format!(
                "unreadable-file `{swapped}` changed while it was being read (a symlink on its path; not followed)"
            ))
        );
    }
    assert_eq!(
        read_found(&root, "docs/pipe.md"),
        Err("not-a-regular-file `docs/pipe.md` is a FIFO (named pipe), not a regular file; not read"
            .to_owned())
    );
    assert_eq!(
        read_found(&root, "docs/big.md"),
        Err("file-too-large `docs/big.md` is 8388609 bytes, more than the 8388608-byte limit per file"
            .to_owned())
    );
    assert_eq!(read_found(&root, "docs/plain.md"), Ok(b"# Plain\n".to_vec()));
    std::fs::remove_dir_all(&dir).unwrap();
}
