//! Compiles content/ with folio's compiler into the catalog src/main.rs embeds; content errors
//! fail the build.

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=content");
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap()).join("content");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());

    let compilation = folio_compile::compile::compile(&folio_compile::compile::Config::new(root));
    for d in &compilation.diagnostics {
        // Warnings show up in cargo's output; errors fail the build below.
        let (path, line, column, severity) = (&d.path, d.line, d.column, d.severity.as_str());
        println!("cargo::warning=content/{path}:{line}:{column}: {severity}[{}]: {}", d.code, d.message);
    }
    let Some(catalog) = compilation.catalog else {
        println!("cargo::error=content/ has errors; run `folio check content` for details");
        std::process::exit(1);
    };
    let encoded = folio_compile::catalog::codec::encode(&catalog);
    std::fs::write(out.join("catalog.msgpack"), &encoded.msgpack).unwrap();
}
