//! No import circle among the files of any crate of the workspace (`src/`, `crates/*/src/`):
//! modules form layers (leaf data and utilities, then the stages, then what runs them), so each
//! file can be read knowing only the files below it.
//!
//! A lint over the source, not the compiler's view: every `mod name;` is followed from each
//! crate root to its file, and every path a file names (`use` trees, and paths written in code)
//! that starts with `crate::`, `super::`, `self::` or a child module is mapped to the file of the
//! deepest module it names; when the next segment is a name that module imports (`pub use
//! b::count;`, or a private `use` its children see through `super::`), the import is followed
//! to the file that defines the name. The files are then split into
//! strongly connected components; any component of more than one file is a circle.
//!
//! The rule for parents: a file's edges into its own subtree (its child modules' files, and
//! theirs) are not counted. A parent declares `mod child;`, re-exports from it and runs it, while
//! the child takes shared items through `super::`: that is how Rust modules are written, and a
//! circle it would make is not one a reader has to untangle. A name a child takes from its parent that the parent only
//! re-exports from a sibling ties the child to that sibling, so circles through a hub are still
//! found. It relies on rustfmt's layout (an inline module's closing brace at its own indent).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::repo;

/// A crate's modules: module path (`["compile", "markdown"]`) to the file that holds it (an
/// inline module is held by its parent's file).
type Modules = BTreeMap<Vec<String>, PathBuf>;

/// The names each module imports (`use a::b::Name;`), each with the path it names.
type Imports = BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>;

/// One file's edges: each file it names, with the names that tie them.
type Graph = BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>>;

/// Circles allowed to stand, each the exact set of its files: none. The list is where a circle
/// found by a change to this lint (not by a change to the code) would wait for its fix; a
/// circle that grows or a new one fails the test, and so does one listed here once it is broken,
/// so that the list only shrinks.
const KNOWN: &[&[&str]] = &[];

#[test]
fn no_folder_of_any_crate_has_an_import_circle() {
    let root = repo();
    let mut crate_roots = vec![root.join("src/lib.rs"), root.join("src/main.rs")];
    let mut crates: Vec<PathBuf> =
        std::fs::read_dir(root.join("crates")).unwrap().map(|d| d.unwrap().path().join("src")).collect();
    crates.sort();
    for src in crates {
        crate_roots.extend(["lib.rs", "main.rs"].map(|f| src.join(f)));
    }
    crate_roots.retain(|f| f.exists());
    let mut read = BTreeSet::new();
    let mut circles = Vec::new();
    for crate_root in &crate_roots {
        let graph = graph_of(crate_root);
        read.extend(graph.keys().cloned());
        for circle in circles_of(&graph) {
            let files: Vec<String> =
                circle.iter().map(|f| f.strip_prefix(&root).unwrap().display().to_string()).collect();
            circles.push((files, describe(&root, &graph, &circle)));
        }
    }
    let mut on_disk = BTreeSet::new();
    for src in crate_roots.iter().filter_map(|r| r.parent()) {
        rs_files(src, &mut on_disk);
    }
    let missed: Vec<_> = on_disk.difference(&read).collect();
    assert!(missed.is_empty(), "files the lint did not reach through `mod` lines: {missed:?}");
    let new: Vec<&str> = circles
        .iter()
        .filter(|(files, _)| !KNOWN.iter().any(|known| files.iter().eq(known.iter())))
        .map(|(_, description)| description.as_str())
        .collect();
    assert!(new.is_empty(), "import circles:\n{}", new.join("\n"));
    let gone: Vec<&&[&str]> = KNOWN
        .iter()
        .filter(|known| !circles.iter().any(|(files, _)| files.iter().eq(known.iter())))
        .collect();
    assert!(gone.is_empty(), "circles broken (take them out of `KNOWN`): {gone:?}");
}

#[test]
fn the_lint_finds_two_siblings_importing_each_other() {
    let dir = std::env::temp_dir().join(format!("folio-circles-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("hub")).unwrap();
    let write = |path: &str, text: &str| std::fs::write(dir.join(path), text).unwrap();
    write("lib.rs", "mod hub;\nmod leaf;\n");
    write("leaf.rs", "pub(crate) fn helper() {}\n");
    // The hub runs its stages and re-exports one of `b`'s helpers: edges to its own children,
    // which are not counted.
    write("hub.rs", "mod a;\nmod b;\nmod c;\npub(crate) use b::count;\n\nfn run() {\n    a::stage();\n}\n");
    // `a` takes `count` through the hub's re-export (an edge to `b`), and `b` calls `a` by path.
    write("hub/a.rs", "use super::count;\nuse crate::leaf::helper;\n\npub(crate) fn stage() {}\n");
    write("hub/b.rs", "pub(crate) fn count() {\n    super::a::stage();\n}\n");
    // `c` imports both, and nothing imports `c`: not part of the circle.
    write("hub/c.rs", "use super::{a, b};\n");
    let graph = graph_of(&dir.join("lib.rs"));
    let circles: Vec<Vec<String>> = circles_of(&graph)
        .into_iter()
        .map(|c| c.iter().map(|f| f.strip_prefix(&dir).unwrap().display().to_string()).collect())
        .collect();
    let report = describe(&dir, &graph, &circles_of(&graph)[0]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(circles, [vec!["hub/a.rs".to_owned(), "hub/b.rs".to_owned()]]);
    assert!(report.contains("hub/a.rs -> hub/b.rs: count"), "{report}");
    assert!(report.contains("hub/b.rs -> hub/a.rs: stage"), "{report}");
}

/// Every `.rs` file under `dir`.
fn rs_files(dir: &Path, out: &mut BTreeSet<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.insert(path);
        }
    }
}

/// Every file of the crate rooted at `crate_root`, with the files it names (but its own child
/// modules' files) and the names that tie them.
fn graph_of(crate_root: &Path) -> Graph {
    let mut modules = Modules::new();
    collect_modules(crate_root, Vec::new(), true, &mut modules);
    let mut named = Vec::new();
    let mut imports = Imports::new();
    let mut read = BTreeSet::new();
    for file in modules.values() {
        // A file holding inline modules is listed once per module: read it once.
        if !read.insert(file.clone()) {
            continue;
        }
        let module = modules.iter().find(|(_, f)| *f == file).map(|(m, _)| m.clone()).unwrap();
        let text = std::fs::read_to_string(file).unwrap();
        for (context, path, is_use) in paths_named(&text, &module) {
            if is_use && let Some(name) = path.last().filter(|n| *n != "*" && *n != "self") {
                imports.entry(context.clone()).or_default().insert(name.clone(), path.clone());
            }
            named.push((file.clone(), context, path));
        }
    }
    let mut graph = Graph::new();
    for file in read {
        graph.entry(file).or_default();
    }
    for (file, context, path) in named {
        let Some((target, name)) = resolve(&modules, &imports, &context, &path, 0) else { continue };
        // Whether `target` holds a module below one `file` holds (its child, or deeper).
        let below_file = modules
            .iter()
            .any(|(m, f)| *f == target && (0..m.len()).any(|n| modules.get(&m[..n]) == Some(&file)));
        if target != file && !below_file {
            graph.get_mut(&file).unwrap().entry(target).or_default().insert(name);
        }
    }
    graph
}

/// Records `file` as module `at` and follows its `mod name;` declarations (and the inline
/// modules it holds). `owns_dir` is true for a crate root or a `mod.rs`, whose children sit
/// beside it rather than in a folder named after it.
fn collect_modules(file: &Path, at: Vec<String>, owns_dir: bool, modules: &mut Modules) {
    let text = std::fs::read_to_string(file).unwrap();
    let dir = if owns_dir { file.parent().unwrap().to_path_buf() } else { file.with_extension("") };
    modules.insert(at.clone(), file.to_path_buf());
    // Inline modules: (indent, module path) of each open one.
    let mut open: Vec<(usize, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        if open.last().is_some_and(|(i, _)| *i == indent && line.trim() == "}") {
            open.pop();
            continue;
        }
        let Some(name) = mod_name(line) else { continue };
        let mut path = open.last().map_or_else(|| at.clone(), |(_, p)| p.clone());
        path.push(name.to_owned());
        if line.trim_end().ends_with('{') {
            modules.insert(path.clone(), file.to_path_buf());
            open.push((indent, path));
        } else if line.trim_end().ends_with(';') && open.is_empty() {
            let flat = dir.join(format!("{name}.rs"));
            let nested = dir.join(name).join("mod.rs");
            if flat.exists() {
                collect_modules(&flat, path, false, modules);
            } else if nested.exists() {
                collect_modules(&nested, path, true, modules);
            }
        }
    }
}

/// The name `line` declares a module of (`mod x;`, `pub(crate) mod x {`), if it does.
fn mod_name(line: &str) -> Option<&str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "mod")?;
    if !words[..at].iter().all(|w| w.starts_with("pub")) {
        return None;
    }
    let name = words.get(at + 1)?.trim_end_matches([';', '{']);
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(name)
}

/// Every path `text` names (`use` trees expanded, and `crate::`/`super::`/`self::` paths written
/// in code), each with the module it is written in (`file_module`, or an inline module of it)
/// and whether it is imported by a `use`.
fn paths_named(text: &str, file_module: &[String]) -> Vec<(Vec<String>, Vec<String>, bool)> {
    let mut out = Vec::new();
    let mut open: Vec<(usize, Vec<String>)> = Vec::new();
    let mut pending_use: Option<String> = None;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let indent = line.len() - line.trim_start().len();
        if open.last().is_some_and(|(i, _)| *i == indent && line.trim() == "}") {
            open.pop();
            continue;
        }
        let context = open.last().map_or_else(|| file_module.to_vec(), |(_, p)| p.clone());
        if let Some(name) = mod_name(line)
            && line.trim_end().ends_with('{')
        {
            let mut path = context.clone();
            path.push(name.to_owned());
            open.push((indent, path));
            continue;
        }
        let trimmed = code.trim_start();
        let starts_use = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .find_map(|p| trimmed.strip_prefix(p))
            // A line of a string that starts with the word (`use the tool`) is not an import.
            .filter(|rest| rest.chars().all(|c| c.is_alphanumeric() || "_:{}, *;".contains(c)));
        if pending_use.is_none()
            && let Some(rest) = starts_use
        {
            pending_use = Some(String::new());
            pending_use.as_mut().unwrap().push_str(rest);
        } else if let Some(tree) = pending_use.as_mut() {
            tree.push_str(code.trim());
        } else {
            for path in code_paths(code) {
                out.push((context.clone(), path, false));
            }
            continue;
        }
        if let Some(tree) = pending_use.take_if(|t| t.contains(';')) {
            let tree = without_renames(tree.split(';').next().unwrap());
            for path in expand(&tree) {
                out.push((context.clone(), path, true));
            }
        }
    }
    out
}

/// A `use` tree without its `as name` renames and its spaces.
fn without_renames(tree: &str) -> String {
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < words.len() {
        if words[i] == "as" && i + 1 < words.len() {
            // The new name, and whatever punctuation follows it (`x as y,` or `x as y}`).
            out.extend(words[i + 1].chars().skip_while(|c| c.is_alphanumeric() || *c == '_'));
            i += 2;
        } else {
            out.push_str(words[i]);
            i += 1;
        }
    }
    out
}

/// `a::{b, c::{d, self}}` as `a::b`, `a::c::d`, `a::c`.
fn expand(tree: &str) -> Vec<Vec<String>> {
    let Some(open) = tree.find('{') else {
        return vec![tree.split("::").map(str::to_owned).collect()];
    };
    let prefix = tree[..open].trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').filter(|&close| close > open).unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    let mut out = Vec::new();
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        let joined = if part == "self" { prefix.to_owned() } else { format!("{prefix}::{part}") };
        out.extend(expand(joined.trim_start_matches("::")));
    }
    out
}

/// The paths of two or more segments written in a line of code (`crate::a::f`, `stage::run`);
/// [`resolve`] keeps those that start in this crate.
fn code_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("::").map(|i| i + from) {
        // Back to the start of the path this `::` is in.
        let mut start = at;
        while start > 0
            && (bytes[start - 1].is_ascii_alphanumeric()
                || bytes[start - 1] == b'_'
                || bytes[start - 1] == b':')
        {
            start -= 1;
        }
        let end = code[at..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .map_or(code.len(), |i| i + at);
        from = end.max(at + 2);
        let path = &code[start..end];
        if start < at && !path.starts_with(':') {
            out.push(path.split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect());
        }
    }
    out
}

/// The file that defines what `path`, written in module `context`, names, and the name it
/// takes from it: the deepest module the path names, or, when the next segment is a name that
/// module imports, the file that import leads to. `None` for a path into another crate.
fn resolve(
    modules: &Modules,
    imports: &Imports,
    context: &[String],
    path: &[String],
    depth: usize,
) -> Option<(PathBuf, String)> {
    let mut at: Vec<String> = context.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            at.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) => {
            let mut child = at.clone();
            child.push(first.to_owned());
            if !modules.contains_key(&child) {
                return None;
            }
        }
        None => return None,
    }
    let mut taken = 0;
    for segment in rest {
        at.push(segment.clone());
        if !modules.contains_key(&at) {
            at.pop();
            break;
        }
        taken += 1;
    }
    let name = rest.get(taken).or(rest.last()).or(path.last()).cloned().unwrap_or_default();
    // An import of the module this path stops at (a re-export, or a name its children see):
    // the file that defines the name is the one it leads to. Depth-bounded against `use` loops.
    if let Some(imported) = rest.get(taken).and_then(|n| imports.get(&at)?.get(n))
        && imported.as_slice() != path
        && depth < 8
        && let Some(found) = resolve(modules, imports, &at, imported, depth + 1)
    {
        return Some(found);
    }
    Some((modules.get(&at)?.clone(), name))
}

/// The strongly connected components of more than one file (Tarjan's algorithm).
fn circles_of(graph: &Graph) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a PathBuf, (usize, usize)>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        let n = s.index.len();
        s.index.insert(v, (n, n));
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flat_map(BTreeMap::keys) {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.index[w].1.min(s.index[v].1);
                s.index.get_mut(v).unwrap().1 = low;
            } else if s.on_stack.contains(w) {
                let low = s.index[w].0.min(s.index[v].1);
                s.index.get_mut(v).unwrap().1 = low;
            }
        }
        if s.index[v].0 == s.index[v].1 {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// A circle's files and the edges among them, with the names that tie them, relative to `root`.
fn describe(root: &Path, graph: &Graph, circle: &[PathBuf]) -> String {
    let name = |f: &PathBuf| f.strip_prefix(root).unwrap_or(f).display().to_string();
    let mut out = format!("{} files:", circle.len());
    for from in circle {
        for (to, names) in graph[from].iter().filter(|(t, _)| circle.contains(t)) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            out.push_str(&format!("\n  {} -> {}: {}", name(from), name(to), names.join(", ")));
        }
    }
    out
}
