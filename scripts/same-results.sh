#!/usr/bin/env bash
# A change that moves code without changing behaviour must leave every result on virtual time the
# same bytes. This runs every in-process scenario of scenarios/ (not the socket, real-clock and
# cancellation ones, whose timings are the host's) and both quick sweeps with two builds of the
# tool, and compares every results file byte for byte, leaving out what is wall-clock by name (the
# run id, the rows wall_* and *_per_wall_s; scripts/lib/canonical.sh). Exits 1 naming the first
# file that differs.
#
# usage: scripts/same-results.sh OLD/frontmail-bench NEW/frontmail-bench
#   e.g. git worktree add /tmp/before main~3 && (cd /tmp/before && swift build -c release)
#        scripts/same-results.sh /tmp/before/.build/release/frontmail-bench .build/release/frontmail-bench
set -euo pipefail
old="${1:?usage: $0 OLD/frontmail-bench NEW/frontmail-bench}"
new="${2:?usage: $0 OLD/frontmail-bench NEW/frontmail-bench}"
old="$(cd "$(dirname "$old")" && pwd)/$(basename "$old")"
new="$(cd "$(dirname "$new")" && pwd)/$(basename "$new")"
cd "$(dirname "$0")/.."
. scripts/lib/canonical.sh

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

scenarios=()
for file in scenarios/*.json; do
    grep -q -E '"transport": *"socket"|"clock": *"real"|"cancellation"' "$file" || scenarios+=("$file")
done

run_with() {
    local bench="$1" out="$2"
    # A failed verdict is a result too: both builds must give the same one, so the exit code of a
    # run is not the test here; a run that writes no CSV is.
    "$bench" run "${scenarios[@]}" --quick --no-progress --out "$out/run" >"$out/run.txt" 2>&1 || true
    ls "$out"/run/*-run.csv >/dev/null 2>&1 || { cat "$out/run.txt" >&2; echo "error: $bench wrote no run CSV" >&2; exit 1; }
    for file in tune/*.json; do
        "$bench" tune "$file" --quick --no-progress --out "$out/tune" >"$out/tune.txt" 2>&1 || {
            cat "$out/tune.txt" >&2
            echo "error: $bench failed the sweep $file" >&2
            exit 1
        }
    done
}

echo "same results: ${#scenarios[@]} in-process scenarios and the quick sweeps with $old"
mkdir -p "$work/a" "$work/b"
run_with "$old" "$work/a"
echo "same results: the same with $new"
run_with "$new" "$work/b"
canonical "$work/a" "$work/ca"
canonical "$work/b" "$work/cb"
count="$(find "$work/ca" -type f | wc -l)"
same_or_report "$work/ca" "$work/cb" "the two builds' results differ" || exit 1
echo "same results: $count results files identical (run id and wall-clock rows left out)"
