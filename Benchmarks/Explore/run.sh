#!/usr/bin/env bash
# Exploration speed (docs/explore.md, "Speed"): generated cases and simulated sends per wall second
# on this machine, under each schedule, from one seed (the same cases for each), with every case's
# ratio against fifo measured in the same run. Writes DIR/explore-speed.csv
# (benchmark,metric,value,unit,target,verdict) and prints it.
#   bash Benchmarks/Explore/run.sh [--out DIR] [--runs N] [--seed S]
set -euo pipefail
cd "$(dirname "$0")/../.."
out="results/explore-speed"
runs=20000
seed=21
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift ;;
        --runs) runs="$2"; shift ;;
        --seed) seed="$2"; shift ;;
        *) echo "usage: bash Benchmarks/Explore/run.sh [--out DIR] [--runs N] [--seed S]" >&2; exit 64 ;;
    esac
    shift
done
case "$runs" in '' | *[!0-9]*) echo "explore-speed: --runs must be a whole number" >&2; exit 64 ;; esac
case "$seed" in '' | *[!0-9]*) echo "explore-speed: --seed must be a whole number" >&2; exit 64 ;; esac
mkdir -p "$out"
swift build -c release --product frontmail-bench >/dev/null
bench=.build/release/frontmail-bench
csv="$out/explore-speed.csv"
echo "benchmark,metric,value,unit,target,verdict" >"$csv"
row() { echo "$1,$2,$3,$4,$5,$6" >>"$csv"; }

fifo_rate=""
for schedule in fifo random pct; do
    log="$out/explore-$schedule.txt"
    # Exit 1 would be a find on the SDK as it is: a failure of the benchmark too.
    "$bench" explore --runs "$runs" --seed "$seed" --schedule "$schedule" --out "$out/runs" --no-progress \
        >"$out/verdicts-$schedule.txt" 2>"$log"
    # explore: N cases, M sends in S s (R cases/s); results in …
    line="$(grep '^explore: [0-9]* cases' "$log" | tail -1)"
    cases="$(echo "$line" | awk '{print $2}')"
    sends="$(echo "$line" | awk '{print $4}')"
    seconds="$(echo "$line" | awk '{print $7}')"
    rate="$(awk -v c="$cases" -v s="$seconds" 'BEGIN { printf "%.1f", c / s }')"
    send_rate="$(awk -v c="$sends" -v s="$seconds" 'BEGIN { printf "%.0f", c / s }')"
    row "explore-$schedule" cases "$cases" cases "" ""
    row "explore-$schedule" sends "$sends" sends "" ""
    row "explore-$schedule" wall "$seconds" s "" ""
    row "explore-$schedule" cases_per_s "$rate" "cases/s" "" ""
    row "explore-$schedule" sends_per_s "$send_rate" "sends/s" "" ""
    if [ "$schedule" = fifo ]; then
        fifo_rate="$rate"
    else
        row "explore-$schedule" ratio_vs_fifo "$(awk -v a="$rate" -v b="$fifo_rate" 'BEGIN { printf "%.3f", a / b }')" x "" ""
    fi
done
cat "$csv"
