//! Search in a translated tree, as a person sees it from `folio search` and `folio check`: one
//! hit per page in the query's language, its other locales listed, `--lang` filtering, a page
//! only another locale has kept, frontmatter `lang` and `translationKey`, and `invalid-lang`; and
//! `resource://catalog/docs_index`, whose `q` answers as search does, filters included.

use serde_json::Value;

use crate::support::{Tree, folio};

fn tree() -> Tree {
    let tree = Tree::new();
    tree.file("content/docs/en/guide.md", "# Deploy guide\n\nDeploy your site with the deploy command.\n")
        .file("content/docs/ja/guide.md", "# デプロイガイド\n\n`deploy` コマンドでサイトをデプロイします。\n")
        .file("content/docs/ko/guide.md", "# 배포 가이드\n\n`deploy` 명령으로 사이트를 배포합니다.\n")
        .file("content/docs/en/setup.md", "# Setup\n\nThe config file. See the [guide](guide.md).\n")
        .file("content/docs/ja/settei.md", "# 設定\n\n日本語だけのページ。`config` と `deploy` を使う。\n")
        .file(
            "content/docs/en/intro.md",
            "---\ntranslationKey: welcome\n---\n# Intro\n\nA deploy walkthrough. [Setup](setup.md).\n",
        )
        .file(
            "content/docs/ja/hajimeni.md",
            "---\ntranslationKey: welcome\n---\n# はじめに\n\nデプロイの手順。[設定](settei.md)\n",
        )
        .file(
            "content/docs/en/notes.md",
            "---\nlang: Japanese\n---\n# Notes\n\nNotes on [intro](intro.md) and [guide](guide.md).\n",
        );
    tree
}

/// `folio search ARGS --content content --json`: each hit as `uri [locales of its translations]`.
fn search(tree: &Tree, args: &[&str]) -> Vec<String> {
    let mut all = vec!["search"];
    all.extend(args);
    all.extend(["--content", "content", "--json"]);
    let out = folio(tree.path(), &all);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let page: Value = serde_json::from_str(&out.stdout).unwrap();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| {
            let uri = hit["uri"].as_str().unwrap().trim_start_matches("resource://docs/");
            let others: Vec<&str> = hit["translations"]
                .as_array()
                .map(|t| t.iter().map(|t| t["locale"].as_str().unwrap()).collect())
                .unwrap_or_default();
            format!("{uri} {others:?}")
        })
        .collect()
}

#[test]
fn each_page_is_one_hit_in_the_query_language_listing_its_translations() {
    let tree = tree();
    // English: the English pages, each once with its translations; the Japanese-only page that
    // mentions `deploy` in code is kept, below them.
    assert_eq!(
        search(&tree, &["deploy"]),
        ["en/guide.md [\"ja\", \"ko\"]", "en/intro.md [\"ja\"]", "ja/settei.md []"]
    );
    // Japanese (kana): the Japanese version of each page.
    assert_eq!(search(&tree, &["デプロイ"]), ["ja/guide.md [\"en\", \"ko\"]", "ja/hajimeni.md [\"en\"]"]);
    // Korean (Hangul).
    assert_eq!(search(&tree, &["배포"]), ["ko/guide.md [\"en\", \"ja\"]"]);
    // `--lang` keeps one locale, and still names the translations.
    assert_eq!(search(&tree, &["deploy", "--lang", "ko"]), ["ko/guide.md [\"en\", \"ja\"]"]);
    // A page only another locale has is found in it.
    assert_eq!(search(&tree, &["config"]), ["en/setup.md []", "ja/settei.md []"]);
}

/// `resource://catalog/docs_index?QUERY` read with `folio show --json`: each record as
/// `path [locales of its translations]`.
fn docs_index(tree: &Tree, query: &str) -> Vec<String> {
    let uri = format!("resource://catalog/docs_index?{query}");
    let out = folio(tree.path(), &["show", &uri, "--content", "content", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let read: Value = serde_json::from_str(&out.stdout).unwrap();
    let page: Value = serde_json::from_str(read["text"].as_str().unwrap()).unwrap();
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|doc| {
            let others: Vec<&str> = doc["translations"]
                .as_array()
                .map(|t| t.iter().map(|t| t["locale"].as_str().unwrap()).collect())
                .unwrap_or_default();
            format!("{} {others:?}", doc["path"].as_str().unwrap())
        })
        .collect()
}

#[test]
fn the_docs_index_q_answers_as_search_does_with_its_filters_applied_first() {
    let tree = tree();
    // The same pages in the same order as search, with or without a locale.
    for (q, lang) in [("deploy", None), ("デプロイ", None), ("deploy", Some("ja")), ("deploy", Some("ko"))]
    {
        let (index, searched) = match lang {
            None => (docs_index(&tree, &format!("q={q}")), search(&tree, &[q])),
            Some(l) => (docs_index(&tree, &format!("q={q}&lang={l}")), search(&tree, &[q, "--lang", l])),
        };
        assert_eq!(index, searched, "{q} {lang:?}");
    }
    // Filtered before translations collapse: a Latin-script query answered in English otherwise
    // keeps the Japanese pages under a `ja/` prefix (it used to keep nothing).
    assert_eq!(docs_index(&tree, "q=deploy&lang=ja"), ["ja/settei.md []", "ja/guide.md [\"en\", \"ko\"]"]);
    assert_eq!(docs_index(&tree, "q=deploy&prefix=ja/"), docs_index(&tree, "q=deploy&lang=ja"));
    // Without `q`, every doc of every locale is listed, each naming its translations.
    assert_eq!(
        docs_index(&tree, "prefix=ja/"),
        ["ja/guide.md [\"en\", \"ko\"]", "ja/hajimeni.md [\"en\"]", "ja/settei.md []"]
    );
}

#[test]
fn a_lang_that_is_not_a_language_tag_is_a_warning_and_the_folder_decides() {
    let tree = tree();
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "content/docs/en/notes.md:2:7: warning[invalid-lang]: `lang` is not a BCP 47 language tag: \
             `Japanese`; the doc keeps its folder's locale"
        ),
        "{}",
        out.stdout
    );
    let out = folio(tree.path(), &["search", "notes", "--content", "content", "--json"]);
    let page: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(page["items"][0]["locale"], "en");
}
