#!/usr/bin/env bash
# Do the quick cancellation verdicts (relative to the same run's references, so they hold on a busy
# machine) still catch a slow SDK? Builds a copy of this tree whose SDK sleeps 50 ms before it throws
# `aborted` after a cancel, and runs the two cancellation scenarios quick with it (without their
# memory soak), N times: each run of each scenario must FAIL. With --hog, a CPU hog runs throughout (the verdicts must not go blind
# on a busy machine any more than they may cry wolf on one: scripts/busy-ci.sh shows the second).
#
#   bash scripts/cancel-check.sh [--runs N] [--hog none|loop|build] [--out DIR]
#
# Exits 0 when the planted SDK failed every scenario in every run, 1 otherwise. Stops every process
# it started.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
hog=none
out="$(mktemp -d)"
hogs="none loop build"
. scripts/lib/options.sh
parse_options "$@"

scratch="$(mktemp -d)"
. scripts/lib/hog.sh
trap 'stop_hogs; rm -rf "$scratch" || true' EXIT

echo "== build: a copy whose SDK sleeps 50 ms before it throws aborted"
planted="$scratch/planted"
. scripts/lib/tree.sh
copy_tree "$planted"
attempts="$planted/Sources/Frontmail/Frontmail+Attempts.swift"
grep -q 'throw \.aborted' "$attempts"
sed -i 's/throw \.aborted/usleep(50_000); throw .aborted/g' "$attempts"
(cd "$planted" && swift build -c release --product frontmail-bench >/dev/null)
bench="$planted/.build/release/frontmail-bench"
# The memory soak is not a latency verdict, and 50 ms per cancellation would stretch its 20,000
# cancellations to a quarter of an hour: the planted copies of the scenarios run without it (its
# assertions become another check of the live requests, so the files stay valid).
for scenario in cancellation-soak cancellation-socket; do
    sed -e 's/"soak": [0-9]*/"soak": 0/' \
        -e 's/"cancellation\.soak\.[a-z_0-9]* <= [0-9]*"/"cancellation.live_requests_after == 0"/' \
        "scenarios/$scenario.json" >"$planted/scenarios/$scenario.json"
done

caught=0
total=0
start_hogs "$hog" "$scratch"
[ "$hog" = build ] && sleep 20 # let the build get going
for run in $(seq "$runs"); do
    for scenario in cancellation-soak cancellation-socket; do
        total=$((total + 1))
        code=0
        "$bench" run "$planted/scenarios/$scenario.json" --quick --no-progress --out "$out/run$run" \
            >"$out/$scenario-$run.verdicts" 2>"$out/$scenario-$run.log" || code=$?
        failures=$(grep -c '^FAIL' "$out/$scenario-$run.verdicts" || true)
        if [ "$code" != 0 ] && [ "$failures" -gt 0 ]; then
            caught=$((caught + 1))
            echo "run $run: $scenario with the planted SDK FAILS, as it must: $(grep '^FAIL' "$out/$scenario-$run.verdicts" | cut -c1-200)"
        else
            echo "run $run: $scenario with the planted SDK PASSED (exit $code): the verdict is blind"
        fi
    done
done
stop_hogs

echo "cancel-check ($hog hog): the planted SDK failed $caught of $total scenario runs (results in $out)"
[ "$caught" = "$total" ]
