#!/usr/bin/env bash
# Packs the npm packages with `npm pack`: the `folio` launcher, and the package holding the
# binary for one platform (npm's os-cpu name: linux-x64, linux-arm64, darwin-arm64, win32-x64…).
# Usage: packaging/npm/pack.sh <binary> <os-cpu> <out dir>
# Both carry the workspace's version. The release workflow packs one per platform.
set -euo pipefail
binary="$1"; platform="$2"; out="$3"
here="$(cd "$(dirname "$0")" && pwd)"
version="$(awk -F'"' '/^version = /{print $2; exit}' "$here/../../Cargo.toml")"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
# The platform package.
mkdir -p "$stage/platform/bin"
exe=folio; [[ "$platform" == win32-* ]] && exe=folio.exe
cp "$binary" "$stage/platform/bin/$exe"
chmod 755 "$stage/platform/bin/$exe"
sed -e "s/@PLATFORM@/$platform/g" -e "s/@VERSION@/$version/" -e "s/@OS@/${platform%-*}/" -e "s/@CPU@/${platform#*-}/" \
  "$here/platform/package.json.in" > "$stage/platform/package.json"
(cd "$stage/platform" && npm pack --silent --pack-destination "$out" >/dev/null)
# The launcher, its optional dependencies pinned to this version.
cp -r "$here/folio" "$stage/folio"
sed -i "s/0.0.0-set-by-pack/$version/g" "$stage/folio/package.json"
(cd "$stage/folio" && npm pack --silent --pack-destination "$out" >/dev/null)
ls "$out"/*.tgz
