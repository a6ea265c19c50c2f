#!/usr/bin/env bash
# Packs a built folio binary as a release archive and its checksum, the way releases are named:
#   folio-<version>-<target>.tar.gz (folio, README.md, LICENSE, THIRD-PARTY-LICENSES.md) and folio-<version>-<target>.tar.gz.sha256
# Usage: packaging/archive.sh <binary> <target triple> <out dir>
# (.zip instead of .tar.gz for a Windows target.) The release workflow and the action's test use it.
set -euo pipefail
binary="$1"; target="$2"; out="$3"
cd "$(dirname "$0")/.."
version="$(awk -F'"' '/^version = /{print $2; exit}' Cargo.toml)"
name="folio-$version-$target"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name" "$out"
out="$(cd "$out" && pwd)"
exe=folio; case "$target" in *windows*) exe=folio.exe ;; esac
cp "$binary" "$stage/$name/$exe"
# Every file is required: an archive without its licence is not shipped.
cp README.md LICENSE THIRD-PARTY-LICENSES.md "$stage/$name/"
case "$target" in
  *windows*) archive="$name.zip"; (cd "$stage" && zip -qr "$out/$archive" "$name") ;;
  *) archive="$name.tar.gz"; tar -C "$stage" -czf "$out/$archive" "$name" ;;
esac
(cd "$out" && sha256sum "$archive" > "$archive.sha256")
echo "$out/$archive"
