#!/usr/bin/env bash
# How often does URLSession on Linux crash under resets? Two stresses, each run N times in its own
# process, counting the runs whose process died by a signal:
#   scenario  (default) a stress scenario, by default Benchmarks/Stress/resets-stress.json: resets,
#             closes and truncations against 256 concurrent sends over sockets (a crash is the
#             run's CRASH verdict, with the backtrace in the scenario's crash.txt);
#   teardown  Benchmarks/URLSessionStress: sessions made, loaded with failing and cancelled sends
#             and invalidated while their sockets are torn down, hundreds of times a second.
# Prints the crash rate and, for each crash, the signal and the first frames of the crashing thread
# (docs/urlsession-linux.md keeps the figures).
#
#   bash scripts/crash-stress.sh [--runs N (20)] [--mode scenario|teardown] [--hog none|loop|build]
#       [--out DIR] [--file SCENARIO.json] [--seconds S (60, teardown)] [--invalidate finish|cancel
#       (teardown: how each session ends, finishTasksAndInvalidate() or invalidateAndCancel())]
#
# Exits 0 when no run crashed, 1 when one did (a crash is a finding), 2 when a run ended otherwise
# without a verdict. Stops every process it started.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=20
hog=none
out="$(mktemp -d)"
file=Benchmarks/Stress/resets-stress.json
mode=scenario
seconds=60
invalidate=finish
hogs="none loop build"
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --file) file="$2"; shift 2 ;;
        --mode) mode="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --invalidate) invalidate="$2"; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
case "$mode" in scenario | teardown) ;; *) echo "--mode is scenario or teardown" >&2; exit 64 ;; esac
case "$seconds" in '' | *[!0-9]*) echo "--seconds takes a whole number" >&2; exit 64 ;; esac
case "$invalidate" in finish | cancel) ;; *) echo "--invalidate is finish or cancel" >&2; exit 64 ;; esac
[ -f "$file" ] || { echo "--file: $file is not a file" >&2; exit 64; }
. scripts/lib/options.sh
parse_options "${args[@]+"${args[@]}"}"

scratch="$(mktemp -d)"
. scripts/lib/hog.sh
trap 'stop_hogs; rm -rf "$scratch" || true' EXIT

swift build -c release --product frontmail-bench >/dev/null
swift build -c release --product URLSessionStress >/dev/null
bench=.build/release/frontmail-bench
start_hogs "$hog" "$scratch"
crashes=0
other=0
for run in $(seq "$runs"); do
    if [ "$mode" = teardown ]; then
        code=0
        .build/release/URLSessionStress --rounds 1000000 --sends 64 --seconds "$seconds" --invalidate "$invalidate" \
            >"$out/run$run.out" 2>"$out/run$run.log" || code=$?
        if [ "$code" -gt 128 ] || grep -q '\*\*\* Program crashed' "$out/run$run.log"; then
            crashes=$((crashes + 1))
            echo "run $run: CRASH (exit $code)"
            # The crash line and the crashing thread's first frames.
            grep -m1 'Program crashed' "$out/run$run.log" | sed 's/^/    /' || true
            grep -m1 -A5 ' crashed:$' "$out/run$run.log" | sed 's/^/    /' || true
        elif [ "$code" = 0 ]; then
            echo "run $run: $(tail -1 "$out/run$run.out")"
        else
            other=$((other + 1))
            echo "run $run: exit $code: $(tail -1 "$out/run$run.log")"
        fi
        continue
    fi
    code=0
    "$bench" run "$file" --no-progress --out "$out/run$run" >"$out/run$run.verdicts" 2>"$out/run$run.log" || code=$?
    line=$(grep -E '^(PASS|FAIL|CRASH|INTERRUPTED) ' "$out/run$run.verdicts" | head -1 || true)
    echo "run $run: ${line:0:160} (exit $code)"
    case "$line" in
        CRASH*)
            crashes=$((crashes + 1))
            report=$(ls "$out/run$run"/*/crash.txt 2>/dev/null | head -1 || true)
            if [ -n "$report" ]; then
                # The crashing thread's first frames, as the Swift backtracer printed them.
                grep -m1 -A5 ' crashed:$' "$report" | sed 's/^/    /' || head -12 "$report" | sed 's/^/    /'
            fi
            ;;
        PASS* | FAIL*) ;;
        *) other=$((other + 1)) ;;
    esac
done
stop_hogs
[ "$mode" = teardown ] && file="URLSessionStress --invalidate $invalidate"
echo "crash-stress ($hog hog, $file): $crashes of $runs runs crashed, $other ended without a verdict (results in $out)"
[ "$other" = 0 ] || exit 2
[ "$crashes" = 0 ]
