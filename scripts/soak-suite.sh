#!/usr/bin/env bash
# Is the README's main command flake-free and inside its time budget? Runs the standard suite
# (`frontmail-bench run scenarios/`, each scenario in its own process, as the README does) N times
# in a row, with a CPU hog if asked, and judges every run:
#   - it ends with a verdict for every scenario (no run cut short, no scenario without a verdict);
#   - every verdict is PASS (a FAIL, ERROR or CRASH is listed with its line: a CRASH is a finding);
#   - the whole suite, build not counted, takes at most --limit seconds (180 by default, idle);
#   - the slowest run takes at most 1.5 times the fastest.
# Writes soak.csv (one row per run: seconds, verdict counts, exit code) and each scenario's wall
# time per run (scenarios.csv) into the output folder.
#
#   bash scripts/soak-suite.sh [--runs N (10)] [--hog none|loop|build] [--limit SECONDS] [--quick]
#       [--workers N] [--out DIR]
#
# Exits 0 when every run met every condition, 1 otherwise. Stops every process it started.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10
hog=none
out="$(mktemp -d)"
limit=180
extra=()
hogs="none loop build"
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --limit) limit="$2"; shift 2 ;;
        --quick) extra+=(--quick); shift ;;
        --workers) extra+=(--workers "$2"); shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
case "$limit" in '' | *[!0-9]*) echo "--limit takes a whole number of seconds" >&2; exit 64 ;; esac
. scripts/lib/options.sh
parse_options "${args[@]+"${args[@]}"}"

scratch="$(mktemp -d)"
. scripts/lib/hog.sh
trap 'stop_hogs; rm -rf "$scratch" || true' EXIT

echo "== build (not timed)"
swift build -c release --product frontmail-bench >/dev/null
bench=.build/release/frontmail-bench
planned=$(ls scenarios/*.json | wc -l)

echo "run,seconds,pass,fail,error,crash,interrupted,verdicts,planned,exit" >"$out/soak.csv"
echo "run,scenario,wall_s,over_budget" >"$out/scenarios.csv"
start_hogs "$hog" "$scratch"
[ "$hog" = build ] && sleep 20 # let the build get going
# above A B: whether the number A is greater than B.
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
bad=0
fastest=""
slowest=""
for run in $(seq "$runs"); do
    code=0
    started=$(date +%s%N)
    "$bench" run scenarios/ "${extra[@]+"${extra[@]}"}" --no-progress --out "$out/run$run" \
        >"$out/run$run.verdicts" 2>"$out/run$run.log" || code=$?
    seconds=$(awk -v a="$started" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
    count() { grep -c "^$1 " "$out/run$run.verdicts" || true; }
    pass=$(count PASS)
    fail=$(count FAIL)
    error=$(grep -c '^FAIL .*: the run ended without a verdict' "$out/run$run.verdicts" || true)
    crash=$(count CRASH)
    interrupted=$(count INTERRUPTED)
    verdicts=$((pass + fail + crash + interrupted))
    echo "$run,$seconds,$pass,$((fail - error)),$error,$crash,$interrupted,$verdicts,$planned,$code" >>"$out/soak.csv"
    csv=$(ls "$out/run$run"/*-run.csv 2>/dev/null | head -1 || true)
    if [ -n "$csv" ]; then
        awk -F, -v run="$run" '$4 == "run" && $5 == "wall_elapsed" { wall[$3] = $7 }
            $4 == "run" && $5 == "over_budget" { over[$3] = $7 }
            END { for (s in wall) printf "%s,%s,%s,%s\n", run, s, wall[s], (s in over ? over[s] : "") }' \
            "$csv" | sort >>"$out/scenarios.csv"
    fi
    verdict="ok"
    if [ "$verdicts" != "$planned" ] || [ "$interrupted" != 0 ]; then verdict="ended without a verdict for every scenario"; fi
    if [ "$pass" != "$planned" ]; then verdict="not every scenario passed"; fi
    if above "$seconds" "$limit"; then verdict="over the ${limit} s limit"; fi
    printf 'run %d: %.1f s, %d PASS, %d FAIL, %d ERROR, %d CRASH, exit %d: %s\n' \
        "$run" "$seconds" "$pass" "$((fail - error))" "$error" "$crash" "$code" "$verdict"
    if [ "$verdict" != ok ]; then
        bad=$((bad + 1))
        grep -E '^(FAIL|CRASH|INTERRUPTED) ' "$out/run$run.verdicts" | cut -c1-300 | sed 's/^/    /' || true
    fi
    if [ -z "$fastest" ] || above "$fastest" "$seconds"; then fastest=$seconds; fi
    if [ -z "$slowest" ] || above "$seconds" "$slowest"; then slowest=$seconds; fi
done
stop_hogs

spread=$(awk -v a="$slowest" -v b="$fastest" 'BEGIN { printf "%.2f", a / b }')
printf 'soak-suite (%s hog, %d runs): fastest %.1f s, slowest %.1f s (%.2fx), %d runs with a problem (results in %s)\n' \
    "$hog" "$runs" "$fastest" "$slowest" "$spread" "$bad" "$out"
echo "slowest scenarios (median wall seconds over the runs):"
awk -F, 'NR > 1 { print $2, $3 }' "$out/scenarios.csv" | sort -k1,1 -k2,2n | awk '
    { v[$1] = v[$1] " " $2; n[$1]++ }
    END { for (s in v) { split(substr(v[s], 2), a, " "); printf "%8.1f  %s\n", a[int((n[s] + 1) / 2)], s } }' |
    sort -rn | head -6
[ "$bad" = 0 ] && ! above "$spread" 1.5
