#!/usr/bin/env bash
# Packs the npm packages with `npm pack`: the launcher `folio-mcp-server` (its command is
# `folio`), and the package holding the binary for one platform, `folio-mcp-server-<os-cpu>`
# (npm's os-cpu name: linux-x64, linux-arm64, darwin-arm64, win32-x64…). Each carries LICENSE
# and THIRD-PARTY-LICENSES.md. (npm's `folio` is another project's: the names are ours.)
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
cp "$here/../../LICENSE" "$here/../../THIRD-PARTY-LICENSES.md" "$stage/platform/"
sed -e "s/@PLATFORM@/$platform/g" -e "s/@VERSION@/$version/" -e "s/@OS@/${platform%-*}/" -e "s/@CPU@/${platform#*-}/" \
  "$here/platform/package.json.in" > "$stage/platform/package.json"
(cd "$stage/platform" && npm pack --silent --pack-destination "$out" >/dev/null)
# The launcher, its optional dependencies pinned to this version.
cp -r "$here/launcher" "$stage/launcher"
cp "$here/../../LICENSE" "$here/../../THIRD-PARTY-LICENSES.md" "$stage/launcher/"
sed -i "s/0.0.0-set-by-pack/$version/g" "$stage/launcher/package.json"
(cd "$stage/launcher" && npm pack --silent --pack-destination "$out" >/dev/null)
ls "$out"/*.tgz
