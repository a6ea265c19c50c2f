#!/usr/bin/env bash
# Three `folio serve --http --mmap` replicas behind nginx (deploy/nginx/folio.conf, ports moved),
# on loopback, under a checking client load (deploy/loadcheck.py: reads byte-compared with the
# tree, listings through their cursors, searches, skill fetches over many connections):
#   1. replica 2 is killed with SIGKILL, then started again;
#   2. the replicas are rolled, one at a time, from catalog A to catalog B (B renamed over each
#      replica's file, then SIGHUP; the next replica only once this one's /healthz names B),
#      while a `subscriptions/listen` stream is held open on every replica.
# Passes when no request failed and no answer was wrong (each answer is A's bytes or B's, never
# anything else), a listing continued across catalogs got the documented stale-cursor error,
# and every replica's listener was told the catalog changed. Prints the load's summary.
#
# Bounded: the load runs FOLIO_FAILOVER_SECONDS (default 40); every wait has a deadline.
# Needs nginx (installed from Debian's packages when missing), python3 and curl.
# Environment: FOLIO_BIN (default target/debug/folio, built if missing), FOLIO_FAILOVER_SIZE
# (bench corpus: small, medium (default), large), FOLIO_FAILOVER_PORT (default 18090: the
# balancer; replicas on the next three), FOLIO_FAILOVER_WORKERS (default 16).
set -euo pipefail
cd "$(dirname "$0")/.."

folio="${FOLIO_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/folio}"
size="${FOLIO_FAILOVER_SIZE:-medium}"
load_seconds="${FOLIO_FAILOVER_SECONDS:-40}"
workers="${FOLIO_FAILOVER_WORKERS:-16}"
base="${FOLIO_FAILOVER_PORT:-18090}"

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "==> installing nginx (Debian's package)"
  sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  sudo_if_needed apt-get update -q
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -q nginx-light || \
    DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -q nginx
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$folio" ] || cargo build --locked --quiet

work="$(mktemp -d "${TMPDIR:-/tmp}/folio-failover.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { printf '%s  %s\n' "$(date +%T)" "$*"; }

# Catalog A: a bench corpus as generated. Catalog B: the same with one doc changed and one added.
corpus="$(cargo run --quiet --locked -p folio-bench-corpus -- "$size" 2>/dev/null)"
cp -r "$corpus" "$work/b"
first_doc="$(cd "$work/b" && find docs -name '*.md' | sort | awk 'NR==1')"
printf '\nChanged by the rolling update.\n' >> "$work/b/$first_doc"
printf -- '---\ntitle: Added by the update\n---\n\n# Added by the update\n\nSee [the first doc](%s).\n' \
  "$(python3 -c "import os,sys; print(os.path.relpath(sys.argv[1], 'docs'))" "$first_doc")" > "$work/b/docs/added-by-update.md"
"$folio" build "$corpus" --out "$work/a" >/dev/null 2>&1
"$folio" build "$work/b" --out "$work/b-catalog" >/dev/null 2>&1
hash_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["catalog_hash"])' "$1/manifest.json"; }
hash_a="$(hash_of "$work/a")"; hash_b="$(hash_of "$work/b-catalog")"
say "catalog A ${hash_a:0:12}, catalog B ${hash_b:0:12} ($size corpus)"

replica_pid=()
start_replica() {
  local i=$1
  "$folio" serve --catalog "$work/r$i/catalog.msgpack" --mmap --http "127.0.0.1:$((base + i))" 2>>"$work/r$i.log" &
  replica_pid[$i]=$!
  pids+=($!)
}
# Waits (at most 60 s) until replica i's /healthz names catalog $2.
wait_serving() {
  local i=$1 want=$2 deadline=$((SECONDS + 60))
  until curl -fsS -H 'Host: localhost' "http://127.0.0.1:$((base + i))/healthz" 2>/dev/null | grep -q "\"catalog_hash\":\"$want\""; do
    if (( SECONDS > deadline )); then say "replica $i never served ${want:0:12}"; cat "$work/r$i.log"; exit 1; fi
    sleep 0.1
  done
}
for i in 1 2 3; do
  mkdir -p "$work/r$i"
  cp "$work/a/catalog.msgpack" "$work/r$i/catalog.msgpack"
  start_replica "$i"
done
for i in 1 2 3; do wait_serving "$i" "$hash_a"; done

# nginx with the repository's configuration, its ports moved.
mkdir -p "$work/conf.d" "$work/logs"
sed -e "s/127.0.0.1:8090/127.0.0.1:$base/" -e "s/127.0.0.1:8091/127.0.0.1:$((base + 1))/" \
    -e "s/127.0.0.1:8092/127.0.0.1:$((base + 2))/" -e "s/127.0.0.1:8093/127.0.0.1:$((base + 3))/" \
    deploy/nginx/folio.conf > "$work/conf.d/folio.conf"
cat > "$work/nginx.conf" <<EOF
$( [ "$(id -u)" -eq 0 ] && echo "user root;" )
worker_processes 2;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/body; proxy_temp_path $work/proxy;
  fastcgi_temp_path $work/fastcgi; uwsgi_temp_path $work/uwsgi; scgi_temp_path $work/scgi;
  include $work/conf.d/*.conf;
}
EOF
"$nginx_bin" -p "$work" -c "$work/nginx.conf" -g 'daemon off;' &
pids+=($!)
deadline=$((SECONDS + 30))
until curl -fsS -H 'Host: localhost' "http://127.0.0.1:$base/healthz" >/dev/null 2>&1; do
  (( SECONDS < deadline )) || { say "nginx did not start"; cat "$work/logs/error.log"; exit 1; }
  sleep 0.1
done
say "3 replicas behind nginx at http://127.0.0.1:$base/mcp"

# A listen stream on every replica, open before anything changes.
listen_pid=()
start_listener() {
  local i=$1 deadline=$((SECONDS + 30))
  python3 deploy/listen.py "http://127.0.0.1:$((base + i))/mcp" --timeout 600 > "$work/listen$i.out" 2>&1 &
  listen_pid[$i]=$!
  pids+=($!)
  until grep -q acknowledged "$work/listen$i.out" 2>/dev/null; do
    (( SECONDS < deadline )) || { say "no listen stream on replica $i"; cat "$work/listen$i.out"; exit 1; }
    sleep 0.05
  done
}
for i in 1 2 3; do start_listener "$i"; done

python3 deploy/loadcheck.py --url "http://127.0.0.1:$base/mcp" --content "$corpus" --manifest "$work/a/manifest.json" \
  --content-b "$work/b" --manifest-b "$work/b-catalog/manifest.json" --seconds "$load_seconds" --workers "$workers" \
  > "$work/load.json" &
load=$!
pids+=($load)

step=$(( load_seconds / 8 ))
sleep "$step"
say "SIGKILL replica 2 (pid ${replica_pid[2]})"
kill -9 "${replica_pid[2]}"
sleep "$step"
say "starting replica 2 again"
start_replica 2
wait_serving 2 "$hash_a"
start_listener 2   # its stream died with it: a client opens a new one
sleep "$step"
for i in 1 2 3; do
  say "rolling replica $i to catalog B"
  cp "$work/b-catalog/catalog.msgpack" "$work/r$i/next.tmp"
  mv -f "$work/r$i/next.tmp" "$work/r$i/catalog.msgpack"
  kill -HUP "${replica_pid[$i]}"
  wait_serving "$i" "$hash_b"
  sleep "$step"
done
say "all replicas serve catalog B; waiting for the load to end"
status=0
wait "$load" || status=$?
summary="$(cat "$work/load.json")"
echo "$summary"
for i in 1 2 3; do
  deadline=$((SECONDS + 30))
  until grep -q changed "$work/listen$i.out"; do
    (( SECONDS < deadline )) || { say "replica $i's listener was not told of the change: $(cat "$work/listen$i.out")"; status=1; break; }
    sleep 0.05
  done
done
python3 - "$summary" <<'EOF' || status=1
import json, sys
s = json.loads(sys.argv[1])
assert s["failed"] == 0 and s["wrong"] == 0, f"{s['failed']} failed, {s['wrong']} wrong: {s['examples']}"
assert s["requests"] > 0
print(f"failover: {s['requests']} requests in {s['seconds']} s ({s['requests_per_second']}/s), 0 failed, 0 wrong, "
      f"{s['restarted_listings']} listings restarted on the stale-cursor error, every listener told of the change")
EOF
exit "$status"
