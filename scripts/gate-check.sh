#!/usr/bin/env bash
# Does CI's encoder gate see a 1.3x slowdown, and does it stay quiet when nothing changed? Builds the
# code as it is and a copy whose JSON writer writes every string twice (the output is unchanged: the
# first copy is dropped), then N times: runs the quick encoder benchmark of each and judges both
# against the committed baseline exactly as .ci/run does. The unmodified code must pass every time
# and the planted writer must be flagged every time, with an optional CPU hog running throughout.
#
#   bash scripts/gate-check.sh [--runs N] [--hog none|loop|build] [--out DIR]
#
#   --hog build   a concurrent release build of this package, restarted until the runs end
#   --hog loop    one busy loop per core
#
# Exits 0 when both held in every run, 1 otherwise. Stops every process it started.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
hog=none
out="$(mktemp -d)"
hogs="none loop build"
. scripts/lib/options.sh
parse_options "$@"
baseline=Benchmarks/baselines/encoder-quick.csv

scratch="$(mktemp -d)"
. scripts/lib/hog.sh
trap 'stop_hogs; rm -rf "$scratch" || true' EXIT

# Both builds are clean builds of copies of this tree.
. scripts/lib/tree.sh

echo "== build: the code as it is (clean)"
clean="$scratch/clean"
copy_tree "$clean"
(cd "$clean" && swift build -c release --product EncoderBenchmarks >/dev/null &&
    swift build -c release --product frontmail-bench >/dev/null)
bench="$clean/.build/release/frontmail-bench"

echo "== build: a copy whose JSON writer writes every string twice (clean)"
planted="$scratch/planted"
copy_tree "$planted"
writer="$planted/Sources/Frontmail/JSONWriter+Strings.swift"
grep -q '    mutating func writeQuoted(_ string: String, then suffix: UInt8?) {' "$writer"
sed -i 's/^    mutating func writeQuoted(_ string: String, then suffix: UInt8?) {$/    mutating func writeQuoted(_ string: String, then suffix: UInt8?) {\n        let mark = count\n        writeQuotedOnce(string, then: suffix)\n        truncate(to: mark)\n        writeQuotedOnce(string, then: suffix)\n    }\n\n    private mutating func writeQuotedOnce(_ string: String, then suffix: UInt8?) {/' "$writer"
(cd "$planted" && swift build -c release --product EncoderBenchmarks >/dev/null)

gate() {
    local code=0
    "$bench" compare "$baseline" "$1" >"$2" || code=$?
    return "$code"
}

# The ratio table's rows as "ratio: baseline -> current (verdict)".
ratios() {
    grep -E '^\| [a-z_0-9.]+ratio_vs[a-z_0-9]* \| [0-9.e+]+x \|' "$1" |
        awk -F'|' '{gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4); gsub(/ /, "", $7); printf "    %s: %s -> %s (%s)\n", $2, $3, $4, $7}'
}

clean_passed=0
planted_flagged=0
start_hogs "$hog" "$scratch"
[ "$hog" = build ] && sleep 20 # let the build get going
for run in $(seq "$runs"); do
    "$clean/.build/release/EncoderBenchmarks" --quick --out "$out/clean$run.csv" >"$out/clean$run.log"
    code=0
    gate "$out/clean$run.csv" "$out/clean$run.compare" || code=$?
    if [ "$code" = 0 ] || [ "$code" = 4 ]; then
        clean_passed=$((clean_passed + 1))
        verdict="passes"
    else
        verdict="FAILS (exit $code)"
    fi
    echo "run $run: unmodified $verdict: $(tail -1 "$out/clean$run.compare")"
    [ "$verdict" = passes ] || ratios "$out/clean$run.compare"
    grep -E '^(control|WARNING)' "$out/clean$run.log" || true

    "$planted/.build/release/EncoderBenchmarks" --quick --out "$out/planted$run.csv" >"$out/planted$run.log"
    code=0
    gate "$out/planted$run.csv" "$out/planted$run.compare" || code=$?
    if [ "$code" = 2 ] && grep -q 'small_form.frontmail_value.ratio_vs_json_encoder .*| regression |' "$out/planted$run.compare"; then
        planted_flagged=$((planted_flagged + 1))
        verdict="flagged"
    else
        verdict="NOT FLAGGED (exit $code)"
    fi
    echo "run $run: planted writer $verdict:"
    ratios "$out/planted$run.compare"
done
stop_hogs

echo "gate-check ($hog hog): unmodified passed $clean_passed of $runs, planted writer flagged $planted_flagged of $runs (results in $out)"
[ "$clean_passed" = "$runs" ] && [ "$planted_flagged" = "$runs" ]
