#!/usr/bin/env bash
# Explores each of the suite's deliberately broken clients from a fixed seed and prints, per client,
# the property meant to catch it, the property that did (its own, or the first that failed), the
# seconds to find it and the shrunk size of the smallest failure (docs/explore.md; the pooled
# jitter test has no shrunk case). Exits 1 when a client was not caught.
#
#   bash scripts/explore-broken.sh [--seed S] [--time DURATION] [BINARY]
set -u
seed=1
time=60s
binary=.build/release/frontmail-bench
while [ $# -gt 0 ]; do
    case "$1" in
        --seed) seed="$2"; shift 2 ;;
        --time) time="$2"; shift 2 ;;
        -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
        *) binary="$1"; shift ;;
    esac
done
[ -x "$binary" ] || { echo "explore-broken: no binary at $binary (swift build -c release)" >&2; exit 64; }
out=$(mktemp -d "${TMPDIR:-/tmp}/explore-broken.XXXXXX")
trap 'rm -rf "$out"' EXIT
missed=0
printf '%-28s %-28s %-28s %9s %6s %6s\n' client "its property" "found by" seconds sends rules
while read -r name property _; do
    "$binary" explore --broken "$name" --seed "$seed" --time "$time" --stop-on-failure --no-progress \
        --out "$out/$name" > /dev/null 2> "$out/$name.log"
    csv=$(ls "$out/$name"/*-explore/explore.csv 2> /dev/null | head -1)
    # Its own property when that failed, else the property that failed first.
    # Columns: kind,property,verdict,checked,violations,failing_cases,cases,distinct_failures,
    # smallest_sends,smallest_rules,first_found_s,reached_cases.
    row=$( [ -n "$csv" ] && awk -F, -v p="$property" '$1 == "property" && $3 == "FAIL" && $2 == p' "$csv")
    [ -z "$row" ] && [ -n "$csv" ] && row=$(awk -F, '$1 == "property" && $3 == "FAIL"' "$csv" | sort -t, -k11,11g | head -1)
    if [ -n "$row" ]; then
        printf '%-28s %-28s %-28s %9s %6s %6s\n' "$name" "$property" "$(echo "$row" | cut -d, -f2)" \
            "$(echo "$row" | cut -d, -f11)" "$(echo "$row" | cut -d, -f9)" "$(echo "$row" | cut -d, -f10)"
    else
        printf '%-28s %-28s %-28s %9s %6s %6s\n' "$name" "$property" "NOT FOUND" - - -
        missed=$((missed + 1))
    fi
done < <("$binary" explore --list-broken | sed 's/: / /' | awk '{print $1, $2}')
[ "$missed" -eq 0 ]
