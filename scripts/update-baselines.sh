#!/usr/bin/env bash
# Refreshes the committed benchmark baselines that .ci/run's gate reads: runs the quick encoder and
# send-path benchmarks N times each (separate processes) and merges the runs with
# `frontmail-bench baseline` (medians; spreads that cover the differences between runs). Run it on
# an otherwise idle machine of the kind CI uses, with jemalloc installed as CI has it (libjemalloc2:
# the allocation counts come from the benchmarks' allocation pass, the timings never see jemalloc).
#
#   bash scripts/update-baselines.sh [--runs N]     (default 10; at least 3)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        *) echo "usage: $0 [--runs N]" >&2; exit 64 ;;
    esac
done
[ "$runs" -ge 3 ] || { echo "--runs must be at least 3" >&2; exit 64; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A clean build of a copy, as CI makes: an incremental build can lay the code out differently, and
# some ratios move with the layout (docs/benchmarks.md); the copy keeps edits made meanwhile out.
. scripts/lib/tree.sh
copy_tree "$work/tree"
build="$work/build"
echo "== clean release build (a few minutes)"
for product in frontmail-bench EncoderBenchmarks SendPathBenchmarks; do
    (cd "$work/tree" && swift build -c release --scratch-path "$build" --product "$product" >/dev/null)
done
for benchmark in EncoderBenchmarks:encoder-quick SendPathBenchmarks:send-path-quick; do
    product="${benchmark%%:*}"
    name="${benchmark##*:}"
    files=()
    for run in $(seq "$runs"); do
        echo "== $product, run $run of $runs"
        "$build/release/$product" --quick --out "$work/$name-$run.csv" | grep -E '^(MET|MISSED|control| {7})' || true
        files+=("$work/$name-$run.csv")
    done
    "$build/release/frontmail-bench" baseline "${files[@]}" --out "Benchmarks/baselines/$name.csv"
done
