#!/usr/bin/env bash
# The install step of action.yml: downloads the folio release archive for this runner, checks it
# against its published .sha256, unpacks it and puts `folio` on the PATH of the next steps.
# Environment: FOLIO_VERSION (e.g. 0.1.0), FOLIO_DOWNLOAD_URL (the folder holding v<version>/;
# any URL curl reads, file:// included), RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH
# (set by GitHub Actions).
set -euo pipefail
: "${FOLIO_VERSION:?set FOLIO_VERSION}" "${FOLIO_DOWNLOAD_URL:?set FOLIO_DOWNLOAD_URL}"
: "${RUNNER_TEMP:?}" "${GITHUB_PATH:?}"
case "${RUNNER_OS:-$(uname -s)}/${RUNNER_ARCH:-$(uname -m)}" in
  Linux/X64|Linux/x86_64) target=x86_64-unknown-linux-gnu ;;
  Linux/ARM64|Linux/aarch64) target=aarch64-unknown-linux-gnu ;;
  macOS/ARM64|Darwin/arm64) target=aarch64-apple-darwin ;;
  macOS/X64|Darwin/x86_64) target=x86_64-apple-darwin ;;
  Windows/X64) target=x86_64-pc-windows-msvc ;;
  *) echo "::error::folio has no release for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"; exit 1 ;;
esac
name="folio-$FOLIO_VERSION-$target"
archive="$name.tar.gz"; [[ "$target" == *windows* ]] && archive="$name.zip"
dir="$RUNNER_TEMP/folio-$FOLIO_VERSION"
mkdir -p "$dir"
url="${FOLIO_DOWNLOAD_URL%/}/v$FOLIO_VERSION"
curl -fsSL --retry 3 -o "$dir/$archive" "$url/$archive"
curl -fsSL --retry 3 -o "$dir/$archive.sha256" "$url/$archive.sha256"
expected="$(awk '{print $1}' "$dir/$archive.sha256")"
actual="$( (sha256sum "$dir/$archive" 2>/dev/null || shasum -a 256 "$dir/$archive") | awk '{print $1}')"
if [ "$expected" != "$actual" ]; then
  echo "::error::$archive does not match its published checksum (expected $expected, got $actual); not installing it"
  exit 1
fi
case "$archive" in
  *.zip) (cd "$dir" && unzip -q -o "$archive") ;;
  *) tar -C "$dir" -xzf "$dir/$archive" ;;
esac
echo "$dir/$name" >> "$GITHUB_PATH"
"$dir/$name/folio" --version
