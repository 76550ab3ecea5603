#!/usr/bin/env bash
# The quick scenario suite on a busy machine: once idle (the reference), then three times while a CPU
# hog keeps every core busy. Every verdict must hold in every busy run (correctness and the calibrated
# timing verdicts alike); the absolute figures that moved against the idle run are printed.
#
#   bash scripts/busy-ci.sh [--hog loop|build] [--runs N] [--out DIR]
#
#   --hog loop   one bounded busy loop per core (default)
#   --hog build  a concurrent release build of this package, restarted until the runs end
#
# Exits 0 when every busy run passed, 1 otherwise. Stops every process it started.
set -euo pipefail
cd "$(dirname "$0")/.."

hog=loop
runs=3
out="$(mktemp -d)"
hogs="loop build"
. scripts/lib/options.sh
parse_options "$@"

swift build -c release --product frontmail-bench >/dev/null
bench=.build/release/frontmail-bench

scratch="$(mktemp -d)"
. scripts/lib/hog.sh
trap 'stop_hogs; rm -rf "$scratch" || true' EXIT

run_quick() {
    local dir="$1"
    local code=0
    "$bench" run scenarios/ --quick --no-progress --out "$dir" >"$dir.verdicts" 2>"$dir.log" || code=$?
    sed -n 's/^results: //p' "$dir.verdicts" | tail -1 >"$dir.csvpath"
    return "$code"
}

echo "== idle reference run"
mkdir -p "$out"
run_quick "$out/idle" || { echo "the idle run failed; fix that first:"; grep -E '^FAIL' "$out/idle.verdicts"; exit 1; }
idle_csv="$(cat "$out/idle.csvpath")"

failed=0
for run in $(seq "$runs"); do
    echo "== busy run $run of $runs ($hog hog)"
    start_hogs "$hog" "$scratch"
    code=0
    run_quick "$out/busy$run" || code=$?
    stop_hogs
    grep -E '^(PASS|FAIL|INTERRUPTED)' "$out/busy$run.verdicts" | grep -v '^PASS' || true
    passed=$(grep -c '^PASS' "$out/busy$run.verdicts" || true)
    echo "$passed scenarios passed, exit $code"
    [ "$code" = 0 ] || failed=1
    busy_csv="$(cat "$out/busy$run.csvpath")"
    if [ -n "$busy_csv" ]; then
        echo "-- figures that moved against the idle run (informational; the verdicts above are what counts):"
        "$bench" compare "$idle_csv" "$busy_csv" --tolerance 50% > "$out/busy$run.compare" || true
        grep -E '^\| ' "$out/busy$run.compare" | head -40 || true
        grep -E 'regressions' "$out/busy$run.compare" | tail -1 || true
    fi
done

if [ "$failed" = 0 ]; then
    echo "busy-ci: every verdict held in $runs busy runs (results in $out)"
else
    echo "busy-ci: some verdict failed on a busy machine (results in $out)" >&2
fi
exit "$failed"
