#!/usr/bin/env bash
# Virtual time makes in-process runs reproducible to the byte (docs/simulation.md). This runs the
# quick sweep and two in-process scenarios twice, the second time beside a CPU hog on every core,
# and compares every results file byte for byte, leaving out only what is wall-clock by name: the
# run id column and the rows named wall_* or *_per_wall_s. Exits 1 naming the first file that differs.
#
# usage: scripts/check-determinism.sh PATH/TO/frontmail-bench [--self-test]
#   --self-test: the comparison must see a difference when the second run has another seed.
set -euo pipefail
bench="${1:?usage: $0 PATH/TO/frontmail-bench [--self-test]}"
self_test="${2:-}"
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
hogs=()
cleanup() {
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

scenarios=(scenarios/brownout-503.json scenarios/mixed-chaos-at-scale.json)

run_once() {
    local out="$1" seed=()
    [ -n "${2:-}" ] && seed=(--seed "$2")
    "$bench" run "${scenarios[@]}" --quick --no-progress "${seed[@]}" --out "$out/run" >"$out/run.txt" 2>&1 || {
        cat "$out/run.txt" >&2
        echo "error: the scenarios failed in $out" >&2
        exit 1
    }
    "$bench" tune tune/retry-defaults.json --quick --no-progress --out "$out/tune" >"$out/tune.txt" 2>&1 || {
        cat "$out/tune.txt" >&2
        echo "error: the sweep failed in $out" >&2
        exit 1
    }
}

. scripts/lib/canonical.sh

echo "determinism: first run (idle)"
mkdir -p "$work/a" "$work/b"
run_once "$work/a"

echo "determinism: second run beside a CPU hog on every core"
for _ in $(seq "$(nproc)"); do
    (while :; do :; done) &
    hogs+=("$!")
done
if [ "$self_test" = --self-test ]; then run_once "$work/b" 99; else run_once "$work/b"; fi
for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
hogs=()

canonical "$work/a" "$work/ca"
canonical "$work/b" "$work/cb"
count="$(find "$work/ca" -type f | wc -l)"
if [ "$count" -lt 20 ]; then
    echo "error: only $count results files to compare; expected the scenarios' and the sweep's" >&2
    exit 1
fi
if [ "$self_test" = --self-test ]; then
    if diff -r -q "$work/ca" "$work/cb" >/dev/null; then
        echo "error: self-test: runs with different seeds compared equal; the check cannot see a difference" >&2
        exit 1
    fi
    echo "determinism self-test: runs with different seeds differ, as they must"
    exit 0
fi
same_or_report "$work/ca" "$work/cb" "results differ between two runs of the same files and seeds" || exit 1
echo "determinism: $count results files identical across the two runs (run id and wall-clock rows left out)"
