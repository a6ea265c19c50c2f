//! Compiles the workspace's `content/` (the manual, beside this package) with the same compiler the CLI uses and writes the catalog into `OUT_DIR`,
//! where `src/embedded.rs` includes it. Fails the build, listing every error, if `content/` has
//! errors, so a binary can never embed a broken or stale catalog.
//!
//! A build script cannot depend on its own package, so the compiler and catalog modules (and
//! `lookup`, which both use) are mounted with `#[path]`; that is why they may use only std and
//! the compiler crates.

#[allow(
    dead_code,
    unreachable_pub,
    unused_imports,
    reason = "the build script uses a small part of the catalog API"
)]
#[path = "src/catalog.rs"]
mod catalog;
#[allow(
    dead_code,
    unreachable_pub,
    unused_imports,
    reason = "the build script uses a small part of the compiler API"
)]
#[path = "src/compile.rs"]
mod compile;
#[path = "src/lookup.rs"]
mod lookup;
#[path = "src/parallel.rs"]
mod parallel;
#[path = "src/suggest.rs"]
mod suggest;

use std::path::PathBuf;

fn main() {
    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    // The manual lives at the workspace root, beside the binary's package.
    let content = manifest_dir.join("../content");
    println!("cargo::rerun-if-changed=../content");
    println!("cargo::rerun-if-changed=src/catalog.rs");
    println!("cargo::rerun-if-changed=src/catalog");
    println!("cargo::rerun-if-changed=src/compile.rs");
    println!("cargo::rerun-if-changed=src/compile");
    println!("cargo::rerun-if-changed=src/lookup.rs");

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
