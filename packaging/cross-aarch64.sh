#!/usr/bin/env bash
# The Linux aarch64 release, built here: cross-linked by zig (cargo-zigbuild, against glibc
# 2.17), packed as the release archive (+ .sha256) and the npm platform package, and run under
# qemu-user for an MCP session over stdio. Not in .ci/run (a cold cross build takes longer than
# the rest of CI together); run it by hand. Installs what it needs: the aarch64 standard library
# (rustup), ziglang (PyPI), cargo-zigbuild (crates.io), qemu-user and the aarch64 C library
# (Debian). Output: target/cross/ (archives), printed sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
rustup target list --installed | grep -qx "$target" || rustup target add "$target"
python3 -c 'import ziglang' 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check ziglang
command -v cargo-zigbuild >/dev/null 2>&1 || cargo install --locked cargo-zigbuild
if ! command -v qemu-aarch64 >/dev/null 2>&1 || [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
  sudo_if_needed apt-get update -q
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -q qemu-user libc6-arm64-cross
fi
profile="${FOLIO_CROSS_PROFILE:-release}"
cargo zigbuild --locked --profile "$profile" --target "$target.2.17"
dir="$profile"; [ "$profile" = dev ] && dir=debug
bin="${CARGO_TARGET_DIR:-target}/$target/$dir/folio"
out="${CARGO_TARGET_DIR:-target}/cross"
packaging/archive.sh "$bin" "$target" "$out"
packaging/npm/pack.sh "$bin" linux-arm64 "$out/npm" >/dev/null
qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" --version
python3 packaging/stdio_session.py qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" serve
echo "ok - $target: built, packed and serving an MCP session under qemu"
ls -l "$bin" "$out"/*.tar.gz "$out"/npm/*.tgz
