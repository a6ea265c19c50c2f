#!/usr/bin/env bash
# Tests what can be tested here of how folio is installed in CI (run by .ci/run):
# - action.yml's install step (action/install.sh) against a release archive packed by
#   packaging/archive.sh from this build and served from a file:// URL: installed, on the next
#   steps' PATH, and `folio check --format github` annotating a tree with a broken link; an
#   archive that does not match its .sha256 is refused;
# - .pre-commit-hooks.yaml through pre-commit itself (`pre-commit try-repo`, from PyPI): the
#   folio-check-system hook fails a commit with a broken link and passes a clean one.
# The `folio-check` hook (language: rust) builds folio from the repository with cargo install;
# it is the same entry, and is not built again here.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
folio="${FOLIO_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/folio}"
[ -x "$folio" ] || cargo build --locked --quiet
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
version="$(awk -F'"' '/^version = /{print $2; exit}' Cargo.toml)"
ok() { printf 'ok - %s\n' "$*"; }

# A tree with one broken link, and a clean one.
mkdir -p "$work/bad/content/docs" "$work/good/content/docs"
printf '# A\n\nSee [gone](missing.md).\n' > "$work/bad/content/docs/a.md"
printf '# A\n\nClean.\n' > "$work/good/content/docs/a.md"

# The action's install step, against an archive of this build.
packaging/archive.sh "$folio" x86_64-unknown-linux-gnu "$work/releases/v$version" >/dev/null
listing="$(tar -tzf "$work/releases/v$version/folio-$version-x86_64-unknown-linux-gnu.tar.gz")"
for f in folio README.md LICENSE THIRD-PARTY-LICENSES.md; do
  grep -qx "folio-$version-x86_64-unknown-linux-gnu/$f" <<<"$listing" || { echo "$listing"; echo "the archive lacks $f"; exit 1; }
done
ok "archive: the binary, README.md, LICENSE and THIRD-PARTY-LICENSES.md"
install_env=(RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$work/runner" GITHUB_PATH="$work/github_path"
  FOLIO_VERSION="$version" FOLIO_DOWNLOAD_URL="file://$work/releases")
env "${install_env[@]}" bash action/install.sh > "$work/install.out"
grep -q "^folio $version" "$work/install.out"
installed="$(cat "$work/github_path")"
[ -x "$installed/folio" ]
ok "action: the archive is fetched, checked against its .sha256 and put on PATH"
set +e
(cd "$work/bad" && PATH="$installed:$PATH" folio check content --format github --deny-warnings) > "$work/check.out" 2>&1
status=$?
set -e
[ "$status" -eq 1 ] || { cat "$work/check.out"; echo "expected exit 1, got $status"; exit 1; }
grep -q '^::error file=content/docs/a.md,line=3,' "$work/check.out" || { cat "$work/check.out"; exit 1; }
ok "action: folio check --format github annotates the broken link and fails the step"
# A tampered archive is refused.
echo "0000000000000000000000000000000000000000000000000000000000000000  x" > "$work/releases/v$version/folio-$version-x86_64-unknown-linux-gnu.tar.gz.sha256"
rm -rf "$work/runner" "$work/github_path"
if env "${install_env[@]}" bash action/install.sh > "$work/tampered.out" 2>&1; then
  cat "$work/tampered.out"; echo "a tampered archive was installed"; exit 1
fi
grep -q "does not match its published checksum" "$work/tampered.out"
[ ! -s "$work/github_path" ]
ok "action: an archive that does not match its checksum is not installed"

# pre-commit, from PyPI, running this repository's hook.
if ! command -v pre-commit >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check "pre-commit==4.0.1"
fi
# The hook repository as pre-commit fetches it: a git repository holding this
# .pre-commit-hooks.yaml (CI runs in a copy of the repository that is not one).
mkdir -p "$work/hooks"
cp .pre-commit-hooks.yaml "$work/hooks/"
for tree in bad good hooks; do
  (cd "$work/$tree" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init)
done
set +e
(cd "$work/bad" && PATH="$(dirname "$folio"):$PATH" pre-commit try-repo "$work/hooks" folio-check-system --all-files) > "$work/hook-bad.out" 2>&1
bad=$?
(cd "$work/good" && PATH="$(dirname "$folio"):$PATH" pre-commit try-repo "$work/hooks" folio-check-system --all-files) > "$work/hook-good.out" 2>&1
good=$?
set -e
[ "$bad" -ne 0 ] && grep -q "broken-link" "$work/hook-bad.out" || { cat "$work/hook-bad.out"; exit 1; }
[ "$good" -eq 0 ] || { cat "$work/hook-good.out"; exit 1; }
ok "pre-commit: the folio-check hook fails a tree with a broken link and passes a clean one"

# The Python wheel (maturin, `bindings = "bin"`), installed into a fresh virtual environment:
# the installed `folio` command answers an MCP session over stdio.
if ! command -v maturin >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check "maturin==1.9.6"
fi
maturin build --release --locked --quiet -o "$work/wheels" >/dev/null 2>&1 || maturin build --release --locked -o "$work/wheels"
python3 -m venv "$work/venv"
# Installed by its name, from the built wheel only.
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index --find-links "$work/wheels" folio-mcp-server
wheel_files="$(python3 -m zipfile -l "$work"/wheels/folio_mcp_server-*.whl)"
for f in LICENSE THIRD-PARTY-LICENSES.md; do
  grep -qE "dist-info/(licenses/)?$f " <<<"$wheel_files" || { echo "$wheel_files"; echo "the wheel lacks $f"; exit 1; }
done
"$work/venv/bin/folio" --version | grep -q "^folio $version"
python3 packaging/stdio_session.py "$work/venv/bin/folio" serve
ok "wheel: folio-mcp-server, with LICENSE and THIRD-PARTY-LICENSES.md, installed by name into a fresh virtual environment; the folio command serves an MCP session"

# The npm packages (the launcher `folio-mcp-server` and the package holding this platform's
# binary, as esbuild and Biome ship), packed with `npm pack` from the binary the wheel was built
# from, installed into an empty project without the network: `npx folio` answers an MCP session
# over stdio.
release_bin="${CARGO_TARGET_DIR:-$PWD/target}/release/folio"
packaging/npm/pack.sh "$release_bin" linux-x64 "$work/npm" >/dev/null
mkdir -p "$work/npm-project"
(cd "$work/npm-project" && npm init -y >/dev/null && npm install --offline --no-audit --no-fund --silent \
  "$work/npm/folio-mcp-server-linux-x64-$version.tgz" "$work/npm/folio-mcp-server-$version.tgz")
for pkg in folio-mcp-server folio-mcp-server-linux-x64; do
  for f in LICENSE THIRD-PARTY-LICENSES.md; do
    [ -s "$work/npm-project/node_modules/$pkg/$f" ] || { echo "the npm package $pkg lacks $f"; exit 1; }
  done
done
(cd "$work/npm-project" && npx --offline folio --version) | grep -q "^folio $version"
(cd "$work/npm-project" && python3 "$repo/packaging/stdio_session.py" npx --offline folio serve)
ok "npm: folio-mcp-server and folio-mcp-server-linux-x64, with their licences, install offline, and npx folio serves an MCP session"
