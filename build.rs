//! With the `manual` feature, compiles the manual (`content/`) with the same compiler the
//! library links (`folio-compile`) and writes the catalog into `OUT_DIR`, where `src/embedded.rs`
//! includes it. Fails the build, listing every error, if `content/` has errors, so a binary can
//! never embed a broken or stale manual. Without the feature it does nothing: a library user
//! embeds its own docs, not Folio's.

fn main() {
    #[cfg(feature = "manual")]
    embed_manual();
}

#[cfg(feature = "manual")]
fn embed_manual() {
    use std::path::PathBuf;

    use folio_compile::{catalog, compile};
    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let content = manifest_dir.join("content");
    // A new compiler is a new build-dependency: cargo reruns this script for it by itself.
    println!("cargo::rerun-if-changed=content");

    // Until a crate has written its `content/`, embed the (valid, empty) catalog of an empty tree,
    // compiled by the same compiler so its layout is always current.
    let root = if content.is_dir() {
        content
    } else {
        println!("cargo::warning=content/ does not exist; embedding an empty catalog");
        let empty = out_dir.join("empty-content");
        std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("cannot create {}: {e}", empty.display()));
        empty
    };
    let compilation = compile::compile(&compile::Config::new(root));
    for d in compilation.diagnostics.iter().filter(|d| d.severity == compile::Severity::Warning) {
        println!(
            "cargo::warning=content/{}:{}:{}: warning[{}]: {}",
            d.path, d.line, d.column, d.code, d.message
        );
    }
    let errors: Vec<_> =
        compilation.diagnostics.iter().filter(|d| d.severity == compile::Severity::Error).collect();
    if !errors.is_empty() {
        for d in &errors {
            println!(
                "cargo::error=content/{}:{}:{}: error[{}]: {}",
                d.path, d.line, d.column, d.code, d.message
            );
        }
        std::process::exit(1);
    }
    let catalog = compilation.catalog.expect("a compile without errors yields a catalog");
    let encoded = catalog::codec::encode(&catalog);
    let target = out_dir.join("catalog.msgpack");
    std::fs::write(&target, &encoded.msgpack)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", target.display()));
}
