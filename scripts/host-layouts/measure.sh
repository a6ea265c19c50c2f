#!/bin/sh
# Measures Folio on skill collections laid out as their hosts ship them (issue 45): for each
# `owner/name@commit`, the skills its hosts would load (count.py), the skills `folio list`
# serves from the repository root with no flag, the errors `folio check` reports by code, and
# its `missing-skill-md` warnings. Needs git and network; writes below $WORK (default
# /tmp/host-layouts). Usage: measure.sh FOLIO owner/name@commit...
set -eu
folio=$1
shift
work=${WORK:-/tmp/host-layouts}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
printf '| tree | commit | host loads | Folio serves | errors (by code) | missing-skill-md |\n|---|---|---|---|---|---|\n'
for spec in "$@"; do
    repo=${spec%@*}
    commit=${spec#*@}
    dir=$work/$(echo "$repo" | tr / +)
    if [ ! -d "$dir" ]; then
        git init -q "$dir"
        git -C "$dir" fetch -q --depth 1 "https://github.com/$repo" "$commit"
        git -C "$dir" checkout -q FETCH_HEAD
    fi
    host=$(python3 "$here/count.py" "$dir")
    served=$(NO_COLOR=1 "$folio" list --content "$dir" --kind skill 2>/dev/null | grep -c '^skill ' || true)
    check=$(NO_COLOR=1 "$folio" check "$dir" 2>/dev/null || true)
    errors=$(echo "$check" | sed -n 's/^by code: //p' | tr ',' '\n' | grep '(error)' | sed 's/ (error)//; s/^ *//' | paste -sd, - || true)
    missing=$(echo "$check" | grep -c 'warning\[missing-skill-md\]' || true)
    printf '| %s | %.12s | %s | %s | %s | %s |\n' "$repo" "$commit" "$host" "$served" "${errors:-0}" "$missing"
done
