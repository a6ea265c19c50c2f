//! The embedding guide (`content/docs/guides/embedding.md`) shows the code of the crate in
//! `examples/embed/`, which the workspace builds and whose own test runs its binary: its
//! `build.rs` and `src/main.rs` verbatim, and a `Cargo.toml` asking for the same crates with the
//! same features (registry versions where the example has paths). So the guide's code compiles,
//! and cannot drift from code that does.

/// The body of the first fenced block of `lang` after the heading `## {heading}`.
fn block<'a>(page: &'a str, heading: &str, lang: &str) -> &'a str {
    let at =
        page.find(&format!("\n## {heading}\n")).unwrap_or_else(|| panic!("no `## {heading}` in the guide"));
    let fence = format!("```{lang}\n");
    let start = at
        + page[at..].find(&fence).unwrap_or_else(|| panic!("no {lang} block under {heading}"))
        + fence.len();
    let len = page[start..].find("\n```\n").expect("the block ends") + 1;
    &page[start..start + len]
}

fn read(path: &str) -> String {
    std::fs::read_to_string(crate::support::repo().join(path)).unwrap()
}

#[test]
fn the_embedding_guide_shows_the_example_crate_s_code() {
    let guide = read("content/docs/guides/embedding.md");
    assert_eq!(block(&guide, "build.rs", "rust"), read("examples/embed/build.rs"), "build.rs");
    assert_eq!(block(&guide, "src/main.rs", "rust"), read("examples/embed/src/main.rs"), "src/main.rs");

    // Cargo.toml: the same dependencies, features and default features; the guide's versions
    // are what the example's path dependencies declare.
    let shown: toml::Table = toml::from_str(block(&guide, "Cargo.toml", "toml")).unwrap();
    let real: toml::Table = toml::from_str(&read("examples/embed/Cargo.toml")).unwrap();
    for table in ["dependencies", "build-dependencies"] {
        let (shown, real) = (shown[table].as_table().unwrap(), real[table].as_table().unwrap());
        assert_eq!(shown.keys().collect::<Vec<_>>(), real.keys().collect::<Vec<_>>(), "{table}");
        for (name, dep) in real {
            let field = |dep: &toml::Value, key: &str| dep.get(key).cloned();
            let version = |dep: &toml::Value| match dep {
                toml::Value::String(v) => v.clone(),
                other => other["version"].as_str().unwrap().to_owned(),
            };
            let wanted = version(dep);
            let wanted = wanted
                .rsplit_once('.')
                .filter(|_| dep.get("path").is_some())
                .map_or(wanted.as_str(), |(mm, _)| mm);
            assert_eq!(version(&shown[name]), wanted, "{table}.{name} version");
            for key in ["features", "default-features"] {
                assert_eq!(field(&shown[name], key), field(dep, key), "{table}.{name}.{key}");
            }
        }
    }
}
