use super::*;

fn js(text: &str) -> Value {
    js_in(&[], "site/config.ts", text)
}

/// Evaluates `text` as the file `rel` of a tree holding `files` too.
fn js_in(files: &[(&str, &str)], rel: &str, text: &str) -> Value {
    let dir = std::env::temp_dir().join(format!(
        "folio-config-{}-{}",
        std::process::id(),
        blake3::hash(text.as_bytes())
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (path, body) in files.iter().copied().chain([(rel, text)]) {
        let at = dir.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, body).unwrap();
    }
    let root = dir.canonicalize().unwrap();
    let value = read(&root, rel).unwrap().value;
    std::fs::remove_dir_all(&dir).unwrap();
    value
}

fn s(v: &str) -> Value {
    Value::Str(v.to_owned())
}

#[test]
fn a_vitepress_config_is_evaluated_through_define_config() {
    let v = js("import { defineConfig } from 'vitepress'\nconst base = '/guide/'\n\
        export default defineConfig({ srcDir: 'src', base, cleanUrls: true, title: `Vite${'!'}`,\n\
        themeConfig: { sidebar: { [base]: [{ text: 'A', link: 'a' }] } } })\n");
    assert_eq!(v.get("srcDir"), Some(&s("src")));
    assert_eq!(v.get("base"), Some(&s("/guide/")));
    assert_eq!(v.get("cleanUrls"), Some(&Value::Bool(true)));
    assert_eq!(v.get("title"), Some(&s("Vite!")));
    assert_eq!(v.at(&["themeConfig", "sidebar", "/guide/"]).unwrap().items()[0].get("link"), Some(&s("a")));
}

#[test]
fn docusaurus_configs_as_modules_objects_and_functions() {
    let cjs = "// @ts-check\nconst config = {\n  baseUrl: '/docs/',\n  presets: [['classic', /** @type {x} */ ({ docs: { path: '../docs', routeBasePath: '/' } })]],\n};\nmodule.exports = config;\n";
    let v = js_in(&[], "website/docusaurus.config.js", cjs);
    assert_eq!(v.get("baseUrl"), Some(&s("/docs/")));
    let preset = &v.get("presets").unwrap().items()[0];
    assert_eq!(preset.items()[1].at(&["docs", "path"]), Some(&s("../docs")));
    let func = "import type {Config} from '@docusaurus/types';\nexport default async function createConfig(): Promise<Config> {\n  const x = await load();\n  return { baseUrl: '/', i18n: { defaultLocale: 'en', locales: ['en', 'fr'] }, title: x } satisfies Config;\n}\n";
    let v = js(func);
    assert_eq!(v.at(&["i18n", "locales"]), Some(&Value::List(vec![s("en"), s("fr")])));
    assert_eq!(v.get("title"), Some(&Value::Call("load".to_owned(), Vec::new())));
}

#[test]
fn relative_imports_are_followed_and_packages_are_not() {
    let files = [
        (
            "site/sidebar.ts",
            "export const sidebar = [{ text: 'Intro', link: '/intro' }];\nexport default { x: 1 };\n",
        ),
        ("site/versions.json", "[\"2.0\", \"1.0\"]"),
    ];
    let v = js_in(
        &files,
        "site/config.mts",
        "import { sidebar } from './sidebar'\nimport dflt from './sidebar.ts'\nimport versions from './versions.json'\nimport theme from 'some-theme'\nexport default { sidebar, x: dflt.x, versions, theme, env: process.env.BASE }\n",
    );
    assert_eq!(v.get("sidebar").unwrap().items()[0].get("link"), Some(&s("/intro")));
    assert_eq!(v.get("x"), Some(&Value::Number(1.0)));
    assert_eq!(v.get("versions"), Some(&Value::List(vec![s("2.0"), s("1.0")])));
    assert_eq!(v.get("theme"), Some(&Value::Unknown("a value imported from `some-theme`".to_owned())));
    assert_eq!(v.get("env"), Some(&Value::Unknown("`process.env.BASE`".to_owned())));
}

#[test]
fn what_cannot_be_known_says_what_it_is() {
    let v = js(
        "const base = process.env.CI ? '/a/' : '/';\nconst extra = getExtra();\nexport default { base, ...extra, [key]: 1, fn() {}, n: 2 + 3 }\n",
    );
    assert_eq!(v.get("base"), Some(&Value::Unknown("`process.env.CI ? '/a/' : '/'`".to_owned())));
    assert_eq!(v.get("n"), Some(&Value::Number(5.0)));
    assert_eq!(v.get("fn").and_then(Value::unknown), Some("a function"));
    assert_eq!(v.unknown(), Some("a spread of `extra`"));
    // A file that is not JavaScript at all.
    assert!(js("export default {{{").unknown().is_some());
}

#[test]
fn a_self_reference_and_deep_nesting_end() {
    let v = js("const a = { b: a };\nexport default a\n");
    assert!(v.get("b").unwrap().unknown().is_some());
    let deep = format!("export default {}1{}\n", "[".repeat(200), "]".repeat(200));
    let mut v = js(&deep);
    let mut depth = 0;
    while let Value::List(items) = v {
        v = items.into_iter().next().unwrap();
        depth += 1;
    }
    assert!(depth < 200 && v.unknown().is_some(), "{depth}");
    // Nesting as deep as the size limit allows neither overflows the parser's stack nor ours.
    let n = MAX_CONFIG_BYTES as usize / 2 - 20;
    let deepest = format!("export default {}{}\n", "[".repeat(n), "]".repeat(n));
    assert!(std::thread::spawn(move || js(&deepest)).join().is_ok());
    let dir = std::env::temp_dir().join(format!("folio-deep-toml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("book.toml"), format!("a = {}{}\n", "[".repeat(n), "]".repeat(n))).unwrap();
    let root = dir.canonicalize().unwrap();
    let got = std::thread::spawn(move || read(&root, "book.toml")).join().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(got, Err(ReadError::Syntax(_))), "{got:?}");
}

#[test]
fn bindings_used_many_times_are_evaluated_once_and_bounded() {
    let mut text = String::from("const v0 = ['x'];\n");
    for i in 1..64 {
        text.push_str(&format!("const v{i} = [v{p}, v{p}];\n", p = i - 1));
    }
    text.push_str("export default { all: v63 }\n");
    let v = js(&text);
    let mut size = 0;
    v.walk(&mut |_| size += 1);
    assert!(size <= 2 * 200_000, "{size}");
    let mut unknown = false;
    v.walk(&mut |x| unknown |= x.unknown().is_some_and(|w| w.contains("more than")));
    assert!(unknown);
}

#[test]
fn calls_keep_their_arguments_and_functions_what_they_return() {
    let v = js_in(
        &[],
        "site/astro.config.mjs",
        "import starlight from '@astrojs/starlight'\nexport default defineConfig({ integrations: [starlight({ title: 'D', locales: { root: { lang: 'en' } } })],\n\
         sidebarPath: require.resolve('./sidebars.js'), async redirects() { return [{ source: '/old', destination: '/new' }] } })\n",
    );
    let star = v.get("integrations").unwrap().items()[0].call_args("starlight").unwrap();
    assert_eq!(star[0].get("title"), Some(&s("D")));
    assert_eq!(v.get("sidebarPath"), Some(&s("site/sidebars.js")));
    let Some(Value::Func(returned)) = v.get("redirects") else { panic!("{v:?}") };
    assert_eq!(returned.items()[0].get("source"), Some(&s("/old")));
    let wrapped = js("export default withMermaid(defineConfig({ srcDir: 'src' }))\n");
    assert_eq!(wrapped.unwrapped().get("srcDir"), Some(&s("src")));
}

#[test]
fn a_call_to_a_function_of_the_file_is_what_it_returns() {
    let v = js(
        "export default defineConfig({ sidebar: { '/guide/': { base: '/guide/', items: sidebarGuide() } }, nav: nav(), r: rec(1) })\n\
        function sidebarGuide() { return [{ text: 'A', link: 'a' }] }\n\
        const nav = () => [{ text: 'N', link: '/n' }]\n\
        function rec(n) { return rec(n - 1) }\n",
    );
    assert_eq!(v.at(&["sidebar", "/guide/", "items"]).unwrap().items()[0].get("link"), Some(&s("a")));
    assert_eq!(v.get("nav").unwrap().items()[0].get("link"), Some(&s("/n")));
    assert!(v.get("r").unwrap().unknown().is_some());
}

#[test]
fn mkdocs_yaml_tags_are_read_as_mkdocs_reads_them() {
    let dir = std::env::temp_dir().join(format!("folio-yaml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("mkdocs.yml"),
        "site_url: !ENV [SITE_URL, 'https://x.example/proj/']\nrepo: !ENV REPO\ndocs_dir: src\n\
         markdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n\
         nav:\n  - Home: index.md\n  - Guide:\n    - guide/a.md\n",
    )
    .unwrap();
    let root = dir.canonicalize().unwrap();
    let v = read(&root, "mkdocs.yml").unwrap().value;
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(v.get("site_url"), Some(&s("https://x.example/proj/")));
    assert_eq!(v.get("repo"), Some(&Value::Unknown("the environment variable `REPO`".to_owned())));
    assert_eq!(v.get("docs_dir"), Some(&s("src")));
    let emoji = &v.get("markdown_extensions").unwrap().items()[0];
    assert!(emoji.at(&["pymdownx.emoji", "emoji_index"]).unwrap().unknown().unwrap().contains("python/name"));
    assert_eq!(v.get("nav").unwrap().strings(), ["index.md", "guide/a.md"]);
}

#[test]
fn a_config_over_the_limit_is_refused_before_it_is_parsed() {
    let dir = std::env::temp_dir().join(format!("folio-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hugo.toml"), "a.b.c = 1\n".repeat(MAX_CONFIG_BYTES as usize / 10 + 1)).unwrap();
    let root = dir.canonicalize().unwrap();
    let got = read(&root, "hugo.toml");
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(got, Err(ReadError::TooLarge(_))), "{got:?}");
}

#[test]
fn a_json_config_with_comments_and_trailing_commas_is_read_as_typescript_reads_it() {
    let dir = std::env::temp_dir().join(format!("folio-jsonc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("tsconfig.json"),
        "{\n  // aliases\n  \"compilerOptions\": { /* base */ \"baseUrl\": \".\",\n    \"paths\": { \"@assets/*\": [\"src/assets/*\",], },\n    \"x\": \"a // not a comment, /* nor this */\",\n  },\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("broken.json"), "{ \"a\": 1 // open\n").unwrap();
    let root = dir.canonicalize().unwrap();
    let v = read(&root, "tsconfig.json").unwrap().value;
    let broken = read(&root, "broken.json");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(v.at(&["compilerOptions", "paths", "@assets/*"]).unwrap().strings(), ["src/assets/*"]);
    assert_eq!(v.at(&["compilerOptions", "x"]), Some(&s("a // not a comment, /* nor this */")));
    // The error a file that is not even JSON with comments gets is strict JSON's, at its place.
    assert!(matches!(broken, Err(ReadError::Syntax(ref m)) if m.contains("line 1")), "{broken:?}");
}

#[test]
fn a_config_that_does_not_parse_is_unknown_as_a_whole_not_read_in_part() {
    let dir = std::env::temp_dir().join(format!("folio-js-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.config.ts"), "export default {\n  base: '/x/',\n};\nreturn 1;\n").unwrap();
    std::fs::write(dir.join("b.config.js"), "module.exports = { baseUrl: '/', presets: [[ 'classic' ]\n")
        .unwrap();
    let root = dir.canonicalize().unwrap();
    let a = read(&root, "a.config.ts").unwrap().value;
    let b = read(&root, "b.config.js").unwrap().value;
    std::fs::remove_dir_all(&dir).unwrap();
    // The parser recovers from the first, and would give `base`: none of it is taken. The
    // second it cannot recover from.
    let why = a.unknown().unwrap();
    assert!(
        why.starts_with("`a.config.ts`, which does not parse as TypeScript at line 4: A 'return' statement"),
        "{why}"
    );
    assert!(b.unknown().unwrap().starts_with("`b.config.js`, which does not parse as JavaScript"), "{b:?}");
}
