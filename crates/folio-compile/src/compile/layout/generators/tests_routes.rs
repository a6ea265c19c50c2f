//! Presets read from configs that leave a site's routes unknown (a computed value, a redirect
//! table read in part, a catch-all route, a host build script): what each leaves unverified.

use super::Generator;
use super::tests::Tree;

#[test]
fn a_vitepress_src_dir_only_the_config_computes_leaves_routes_unverified() {
    let tree = Tree::new(
        "vitepress-computed-src",
        &[
            (
                "docs/.vitepress/config.ts",
                "export default defineConfig({ srcDir: fileURLToPath(new URL('../..', import.meta.url)), cleanUrls: true });\n",
            ),
            ("docs/guide/", ""),
        ],
    );
    let spec = tree.read(Generator::VitePress, "docs", "docs/.vitepress/config.ts");
    assert_eq!(spec.docs, "docs");
    let why = spec.rules.unverifiable.all_routes.unwrap();
    assert_eq!(why, "`srcDir` in `docs/.vitepress/config.ts` is a call to a function");
}

#[test]
fn a_nextjs_root_catch_all_answers_every_route_but_static_files() {
    let files = |package: &'static str| {
        vec![
            ("next.config.js", "module.exports = { reactStrictMode: true };\n"),
            ("package.json", package),
            ("content/docs/", ""),
            ("app/[...slug]/page.tsx", ""),
            ("app/blog/page.tsx", ""),
        ]
    };
    let tree = Tree::new("nextjs-catch-all", &files("{ \"dependencies\": { \"next\": \"15\" } }"));
    let spec = tree.read(Generator::NextJs, "", "next.config.js");
    let (owned, why) = spec.rules.unverifiable.owned.unwrap();
    assert!(owned.is_empty());
    assert_eq!(why, "a route that `app/[...slug]/page.tsx` makes from its parameters");
    assert!(spec.rules.unverifiable.all_routes.is_none());
    // Under Nextra's content convention the root catch-all renders the pages folder itself.
    let nextra = Tree::new("nextjs-nextra", &files("{ \"dependencies\": { \"nextra\": \"4\" } }"));
    let spec = nextra.read(Generator::NextJs, "", "next.config.js");
    assert!(spec.rules.unverifiable.owned.is_none());
}

#[test]
fn nextjs_rewrites_are_routes_and_a_table_read_in_part_answers_any_path() {
    let tree = Tree::new(
        "nextjs-rewrites",
        &[
            (
                "next.config.js",
                "module.exports = {\n  async rewrites() { return { beforeFiles: [{ source: '/home', destination: '/' }], \
                 afterFiles: [{ source: '/api-docs/:path*', destination: 'https://x.example/:path*' }], fallback: [] } },\n  \
                 async redirects() { return [{ source: '/old', destination: '/new' }] },\n};\n",
            ),
            ("content/", ""),
        ],
    );
    let spec = tree.read(Generator::NextJs, "", "next.config.js");
    assert_eq!(spec.rules.extra_routes, ["/old", "/home"]);
    assert_eq!(spec.rules.extra_patterns, ["/api-docs/:path*"]);
    assert!(spec.rules.unverifiable.all_routes.is_none());
    let partial = Tree::new(
        "nextjs-redirects-partial",
        &[
            (
                "next.config.js",
                "const redirects = require('./settings.json').redirects;\n\
                 module.exports = { async redirects() { return [{ source: '/a', destination: '/b' }, ...redirects.map(r => r)] } };\n",
            ),
            ("content/", ""),
        ],
    );
    let spec = partial.read(Generator::NextJs, "", "next.config.js");
    let why = spec.rules.unverifiable.all_routes.unwrap();
    assert!(why.starts_with("`redirects` in `next.config.js` holds "), "{why}");
}

#[test]
fn a_host_build_command_that_runs_a_script_leaves_routes_unverified() {
    let script = Tree::new(
        "host-build-script",
        &[
            ("mkdocs.yml", "site_name: x\n"),
            ("netlify.toml", "[build]\n  command = \"./hack/build.sh\"\n  publish = \"site\"\n"),
            ("docs/", ""),
        ],
    );
    let spec = script.read(Generator::MkDocs, "", "mkdocs.yml");
    assert_eq!(
        spec.rules.unverifiable.all_routes.unwrap(),
        "the host builds the site with `./hack/build.sh` (`netlify.toml`): `./hack/build.sh` may move or write pages"
    );
    // Installing packages and running the generator moves nothing.
    let plain = Tree::new(
        "host-build-plain",
        &[
            ("mkdocs.yml", "site_name: x\n"),
            (
                "netlify.toml",
                "[build]\ncommand = \"pip install -r requirements.txt && python -m mkdocs build && cp _redirects site/\"\n",
            ),
            ("docs/", ""),
        ],
    );
    assert!(plain.read(Generator::MkDocs, "", "mkdocs.yml").rules.unverifiable.all_routes.is_none());
}

#[test]
fn nextjs_pages_the_code_reads_from_a_folder_of_its_own_are_read_with_routes_unverified() {
    let tree = Tree::new(
        "nextjs-data-mdx",
        &[
            ("next.config.js", "module.exports = {};\n"),
            ("pages/index.tsx", ""),
            ("pages/docs/[...slug].tsx", ""),
            ("data/primitives/docs/dialog.mdx", "# Dialog\n"),
            ("data/primitives/docs/popover.mdx", "# Popover\n"),
            ("components/readme.md", "# Components\n"),
        ],
    );
    let spec = tree.read(Generator::NextJs, "", "next.config.js");
    assert_eq!(spec.docs, "data");
    assert_eq!(
        spec.rules.unverifiable.all_routes.unwrap(),
        "the pages are markdown in `data/` that the app's code reads, at routes only the code tells"
    );
}
