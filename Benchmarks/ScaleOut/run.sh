#!/usr/bin/env bash
# The scale-out figures (docs/distributed.md), each against its baseline measured in the same run:
#   - over sockets, socket-throughput (60 % of a calibrated rate) and socket-capacity (a closed loop)
#     in one process and on --workers 2, and the ratio of their sends per second;
#   - in process, one million logical sends with faults and every probe on, --workers 2: the whole
#     command's wall time, sends per second, the peak memory of all processes added up.
# Writes DIR/scale-out.csv (benchmark,metric,value,unit,target,verdict) and prints it.
#   bash Benchmarks/ScaleOut/run.sh [--out DIR] [--quick]
set -euo pipefail
cd "$(dirname "$0")/../.."
out="results/scale-out"
quick=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift ;;
        --quick) quick=(--quick) ;;
        *) echo "usage: bash Benchmarks/ScaleOut/run.sh [--out DIR] [--quick]" >&2; exit 64 ;;
    esac
    shift
done
mkdir -p "$out"
swift build -c release --product frontmail-bench >/dev/null
bench=.build/release/frontmail-bench
csv="$out/scale-out.csv"
echo "benchmark,metric,value,unit,target,verdict" >"$csv"

# The value of a metric in the summary of the run whose verdict lines are in $1.
metric() {
    local run_csv folder
    run_csv="$(sed -n 's/^results: //p' "$1" | tail -1)"
    folder="${run_csv%-run.csv}-$2"
    awk -F, -v p="$3" -v m="$4" -v s="${5:-value}" '$4==p && $5==m && $6==s {print $7}' "$folder/summary.csv"
}
row() { echo "$1,$2,$3,$4,$5,$6" >>"$csv"; }
verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = (op == ">=") ? v >= t : v <= t; print ok ? "MET" : "MISSED" }'; }

for scenario in scenarios/socket-throughput.json Benchmarks/ScaleOut/socket-capacity.json; do
    name="$(basename "$scenario" .json)"
    "$bench" run "$scenario" "${quick[@]}" --out "$out/runs" --no-progress >"$out/$name-1.txt" || true
    "$bench" run "$scenario" "${quick[@]}" --workers 2 --out "$out/runs" --no-progress >"$out/$name-2.txt" || true
    one="$(metric "$out/$name-1.txt" "$name" send throughput)"
    two="$(metric "$out/$name-2.txt" "$name" send throughput)"
    ratio="$(awk -v a="$two" -v b="$one" 'BEGIN { printf "%.3f", a / b }')"
    row "$name" sends_per_s.one_process "$one" sends/s "" ""
    row "$name" sends_per_s.workers_2 "$two" sends/s "" ""
    row "$name" dropped.one_process "$(metric "$out/$name-1.txt" "$name" send dropped)" sends "" ""
    row "$name" dropped.workers_2 "$(metric "$out/$name-2.txt" "$name" send dropped)" sends "" ""
    # The ratio counts only when the workers' run passed its own assertions (nothing dropped
    # beyond them): sends per second bought with drops are not a higher throughput.
    passed=0
    grep -qE "^PASS $name " "$out/$name-2.txt" && passed=1
    row "$name" workers_2.passed "$passed" runs "1" "$([ "$passed" = 1 ] && echo MET || echo MISSED)"
    met="$(verdict "$ratio" 1.6 ">=")"
    [ "$passed" = 1 ] || met=MISSED
    row "$name" ratio "$ratio" x ">= 1.6" "$met"
    grep -hE '^(PASS|FAIL)' "$out/$name-1.txt" "$out/$name-2.txt" | sed 's/^/  /'
done

start="$(date +%s.%N)"
"$bench" run Benchmarks/ScaleOut/million-sends.json "${quick[@]}" --workers 2 --out "$out/runs" --no-progress \
    >"$out/million-2.txt" || true
wall="$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')"
sends="$(metric "$out/million-2.txt" million-sends send sends)"
memory="$(metric "$out/million-2.txt" million-sends run peak_memory)"
per_million="$(metric "$out/million-2.txt" million-sends run peak_memory per_million_sends)"
row million-sends sends "$sends" sends "" ""
row million-sends wall "$wall" s "<= 60" "$(verdict "$wall" 60 "<=")"
row million-sends sends_per_s.whole_command "$(awk -v n="$sends" -v w="$wall" 'BEGIN { printf "%.0f", n / w }')" sends/s "" ""
row million-sends sends_per_s.load "$(metric "$out/million-2.txt" million-sends send throughput)" sends/s "" ""
row million-sends peak_memory "$memory" MB "<= 4096" "$(verdict "$memory" 4096 "<=")"
row million-sends peak_memory.per_million_sends "$per_million" MB "" ""
grep -hE '^(PASS|FAIL)' "$out/million-2.txt" | sed 's/^/  /'
column -s, -t "$csv"
echo "scale-out: $csv"
