#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, with AddressSanitizer) of everything the SDK reads from a
# server: each target is one reader, judged by Tests/FrontmailTests/Fuzz/ServerReaderChecks.swift
# (no trap, a value the contract allows or nil / invalid_response), bounded in time per input and in
# memory. Seeds come from Fuzz/Corpus/<target>/ and the inputs of earlier crashes in
# Fuzz/Crashes/<target>/; what the fuzzer learns stays in .build/fuzz/corpus/. A crash is written to
# .build/fuzz/crashes/<target>/ and fails the run: copy it to Fuzz/Crashes/<target>/ and `swift test`
# replays it for good (docs/fuzzing.md).
#
#   bash scripts/fuzz.sh [--seconds N] [--jobs J] [TARGET ...]   each target for N s (default 60)
#   bash scripts/fuzz.sh --self-test [--seconds N]               a planted reader bug must be found
#   --build-only: only build the fuzzer (of the self-test with --self-test); --skip-build: only run
#   the one built before (CI builds at nice 19 beside other steps: a build does not depend on time)
#
# Targets: retry-after send-answer error-answer status-body public-config headers (default: all).
# Exits 0 when nothing was found, 1 on a finding, 64 on bad usage, 130 on a signal.
set -u
cd "$(dirname "$0")/.."
all_targets="retry-after send-answer error-answer status-body public-config headers"
seconds=60
jobs=1
self_test=0
building=1
running=1
targets=()
seed_folders=()
usage() {
    echo "usage: $0 [--seconds N] [--jobs J] [--self-test] [--build-only | --skip-build] [TARGET ...] (targets: $all_targets)" >&2
    exit 64
}
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) [ $# -ge 2 ] || usage; seconds="$2"; shift 2 ;;
        --jobs) [ $# -ge 2 ] || usage; jobs="$2"; shift 2 ;;
        --self-test) self_test=1; shift ;;
        --build-only) running=0; shift ;;
        --skip-build) building=0; shift ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        -*) usage ;;
        *) case " $all_targets " in *" $1 "*) targets+=("$1") ;; *) echo "fuzz: no target $1" >&2; usage ;; esac; shift ;;
    esac
done
case "$seconds" in '' | *[!0-9]*) echo "fuzz: --seconds takes a whole number from 1 to 86400" >&2; exit 64 ;; esac
case "$jobs" in '' | *[!0-9]*) echo "fuzz: --jobs takes a whole number from 1 to 64" >&2; exit 64 ;; esac
{ [ "$seconds" -ge 1 ] && [ "$seconds" -le 86400 ]; } || { echo "fuzz: --seconds must be 1-86400" >&2; exit 64; }
{ [ "$jobs" -ge 1 ] && [ "$jobs" -le 64 ]; } || { echo "fuzz: --jobs must be 1-64" >&2; exit 64; }
[ "$building" = 1 ] || [ "$running" = 1 ] || { echo "fuzz: --build-only and --skip-build leave nothing to do" >&2; exit 64; }
[ ${#targets[@]} -gt 0 ] || read -r -a targets <<< "$all_targets"

work=.build/fuzz
mkdir -p "$work"
children=()
stop() {
    # The runs' subshells and the fuzzers they started.
    for pid in "${children[@]}"; do pkill -TERM -P "$pid" 2> /dev/null; kill "$pid" 2> /dev/null; done
    wait 2> /dev/null
    echo "fuzz: interrupted" >&2
    exit 130
}
trap stop INT TERM HUP
trap '' PIPE

# One binary for every target (FRONTMAIL_FUZZ_TARGET picks the reader): the SDK's sources, the
# checks and the entry point in one module, so the checks reach the SDK's internal readers.
build() {
    local sources="$1" binary="$2"
    if [ "$building" = 0 ]; then
        [ -x "$binary" ] && return 0
        echo "fuzz: --skip-build, but $binary was never built (run with --build-only first)" >&2
        exit 1
    fi
    local log="$work/build.log"
    if ! swiftc -swift-version 6 -O -sanitize=fuzzer,address -parse-as-library -D FRONTMAIL_FUZZ \
        -package-name frontmail_fuzz -module-name FrontmailFuzz \
        "$sources"/*.swift Tests/FrontmailTests/Fuzz/ServerReaderChecks.swift Fuzz/Entry.swift \
        -o "$binary" > "$log" 2>&1; then
        grep -v "Cannot export local symbol" "$log" >&2
        echo "fuzz: the build failed" >&2
        exit 1
    fi
}

# Runs one target for $seconds; prints one line; returns 1 on a finding.
run_target() {
    local binary="$1" target="$2" corpus="$3" crashes="$4"
    mkdir -p "$corpus" "$crashes"
    local seeds=()
    local folders=("Fuzz/Corpus/$target" "Fuzz/Crashes/$target")
    [ ${#seed_folders[@]} -gt 0 ] && folders=("${seed_folders[@]}")
    for folder in "${folders[@]}"; do [ -d "$folder" ] && seeds+=("$folder"); done
    local log="$crashes/fuzz.log"
    # -timeout: one input may take 10 s at most (a hang is a finding); -rss_limit_mb and
    # -malloc_limit_mb bound memory; -max_len lets bodies reach 256 KiB.
    # No Swift backtracer: libFuzzer ends a crashing input itself, and the tracer would outlive it.
    FRONTMAIL_FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" "$binary" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=262144 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" "${seeds[@]}" > "$log" 2>&1 &
    local pid=$!
    children+=("$pid")
    wait "$pid"
    local status=$?
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    local found
    found=$(ls "$crashes" 2> /dev/null | grep -E '^(crash|timeout|oom|leak|slow-unit)-' | head -1)
    if [ "$status" = 0 ] && [ -z "$found" ]; then
        printf '%-14s %6s s %12s inputs  %6s in corpus  nothing found\n' "$target" "$seconds" "${runs:-?}" \
            "$(ls "$corpus" | wc -l)"
        return 0
    fi
    printf '%-14s FOUND: %s (exit %s)\n' "$target" "${found:-no input written}" "$status"
    grep -E "Fatal error|ERROR:|SUMMARY" "$log" | head -5 | sed 's/^/    /'
    [ -n "$found" ] && echo "    input: $crashes/$found (copy it to Fuzz/Crashes/$target/ to replay it in swift test)"
    return 1
}

if [ "$self_test" = 1 ]; then
    # A planted bug: the year's width and range checks removed from the Retry-After date reader (the
    # bug that once trapped on a 13-digit year). The fuzzer must find a year past 9999 in the time.
    [ "$seconds" = 60 ] && seconds=120
    planted="$work/planted"
    if [ "$building" = 1 ]; then
        rm -rf "$planted" && mkdir -p "$planted/src"
        cp Sources/Frontmail/*.swift "$planted/src/"
        sed -i -e 's/guard years.contains(year), /guard year >= 1900, /' \
            -e 's/numbers\[1\].utf8.count == 2 || numbers\[1\].utf8.count == 4,/numbers[1].utf8.count >= 2,/' \
            "$planted/src/RetryAfter.swift"
        if [ "$(diff Sources/Frontmail/RetryAfter.swift "$planted/src/RetryAfter.swift" | grep -c '^>')" != 2 ]; then
            echo "fuzz self-test: the plant did not apply (RetryAfter.swift changed?)" >&2
            exit 1
        fi
    fi
    build "$planted/src" "$planted/fuzz"
    [ "$running" = 1 ] || { echo "fuzz self-test: built $planted/fuzz"; exit 0; }
    rm -rf "$planted/corpus" "$planted/crashes"
    # One well-formed date as the only seed: the seeds hold such years already, so the fuzzer must
    # find one by itself.
    mkdir -p "$planted/seed"
    printf 'Sun, 06 Nov 1994 08:49:37 GMT' > "$planted/seed/imf-fixdate"
    seed_folders=("$planted/seed")
    if run_target "$planted/fuzz" retry-after "$planted/corpus" "$planted/crashes"; then
        echo "fuzz self-test: FAIL: the planted year bug was not found in $seconds s" >&2
        exit 1
    fi
    echo "fuzz self-test: ok (the planted bug was found)"
    exit 0
fi

binary="$work/frontmail-fuzz"
[ "$building" = 1 ] && echo "fuzz: building $binary"
build Sources/Frontmail "$binary"
[ "$running" = 1 ] || exit 0
found=0
running=0
results="$work/results"
rm -rf "$results" && mkdir -p "$results"
for target in "${targets[@]}"; do
    rm -rf "$work/crashes/$target"
    ( trap - INT TERM HUP; run_target "$binary" "$target" "$work/corpus/$target" "$work/crashes/$target" > "$results/$target"
      echo $? >> "$results/$target.status" ) &
    children+=("$!")
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
for target in "${targets[@]}"; do
    cat "$results/$target"
    [ "$(cat "$results/$target.status" 2> /dev/null)" = 0 ] || found=1
done
exit "$found"
