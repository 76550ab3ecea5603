#!/usr/bin/env bash
# The code that runs only on real threads (URLSessionTransport and its exchange state machine, the
# Dispatch timer, every lock), under the toolchain's sanitizers (docs/sanitizers.md): the SDK's
# tests and the fake's socket tests, then the quick socket scenarios, built with ThreadSanitizer and
# then AddressSanitizer. Any sanitizer report, or a test that fails, fails the run; a scenario's
# verdict is not judged here (a sanitized debug build is 5-20x slower than a release one), only that
# it ran to its end without a report or a crash.
#
#   bash scripts/sanitize.sh [--thread | --address] [--no-scenarios]   both sanitizers by default
#   bash scripts/sanitize.sh --build-only     only the sanitized builds (CI makes them at nice 19
#                                             beside other steps: building does not depend on time)
#   bash scripts/sanitize.sh --skip-build     only the runs, on the builds made before
#   bash scripts/sanitize.sh --self-test      a data race planted in the SDK's lock must be reported
#
# Exits 0 when clean, 1 on a report or a failure, 64 on bad usage, 130 on a signal.
set -u
cd "$(dirname "$0")/.."
sanitizers=(thread address)
scenarios=1
self_test=0
building=1
running=1
for argument in "$@"; do
    case "$argument" in
        --thread) sanitizers=(thread) ;;
        --address) sanitizers=(address) ;;
        --no-scenarios) scenarios=0 ;;
        --self-test) self_test=1 ;;
        --build-only) running=0 ;;
        --skip-build) building=0 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "usage: $0 [--thread | --address] [--no-scenarios] [--build-only | --skip-build] [--self-test]" >&2
            exit 64 ;;
    esac
done
[ "$building" = 1 ] || [ "$running" = 1 ] || { echo "sanitize: --build-only and --skip-build leave nothing to do" >&2; exit 64; }
child=
trap '[ -n "$child" ] && { pkill -TERM -P "$child" 2> /dev/null; kill "$child" 2> /dev/null; }; echo "sanitize: interrupted" >&2; exit 130' INT TERM HUP
trap '' PIPE

# Runs a command in the background (so a signal reaches this script at once), its output to $1.
run() {
    local log="$1"
    shift
    "$@" > "$log" 2>&1 &
    child=$!
    wait "$child"
    local status=$?
    child=
    return "$status"
}

# The lines of a sanitizer's reports in $1, if any.
reports() { grep -E "WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY: (Thread|Address)Sanitizer|runtime error:" "$1"; }

if [ "$self_test" = 1 ]; then
    work=.build/sanitize-self-test
    rm -rf "$work" && mkdir -p "$work/src"
    cp Sources/Frontmail/*.swift "$work/src/"
    # The plant: Lock.withLock takes no lock.
    sed -i -e 's/^        lock.lock()$/        \/\/ planted: no lock/' -e 's/^        defer { lock.unlock() }$//' "$work/src/Lock.swift"
    if cmp -s Sources/Frontmail/Lock.swift "$work/src/Lock.swift"; then
        echo "sanitize self-test: the plant did not apply (Lock.swift changed?)" >&2
        exit 1
    fi
    if ! run "$work/build.log" swiftc -swift-version 6 -sanitize=thread -g -package-name frontmail_sanitize \
        -module-name RaceDriver "$work"/src/*.swift scripts/lib/race-driver.swift -o "$work/race-driver"; then
        cat "$work/build.log" >&2
        echo "sanitize self-test: the build failed" >&2
        exit 1
    fi
    run "$work/run.log" env TSAN_OPTIONS="halt_on_error=0" "$work/race-driver"
    # ThreadSanitizer names the same race "data race" or, when it sees the Swift access that
    # overlaps first, "Swift access race" (both were seen for this plant).
    if ! reports "$work/run.log" | grep -qE "data race|Swift access race"; then
        echo "sanitize self-test: FAIL: no data race reported for the planted race" >&2
        exit 1
    fi
    # The same driver on the SDK as it is: no report.
    if ! run "$work/build-clean.log" swiftc -swift-version 6 -sanitize=thread -g -package-name frontmail_sanitize \
        -module-name RaceDriver Sources/Frontmail/*.swift scripts/lib/race-driver.swift -o "$work/clean-driver"; then
        cat "$work/build-clean.log" >&2
        exit 1
    fi
    run "$work/clean.log" env TSAN_OPTIONS="halt_on_error=0" "$work/clean-driver"
    if reports "$work/clean.log" >&2; then
        echo "sanitize self-test: FAIL: the SDK as it is has a report (above)" >&2
        exit 1
    fi
    echo "sanitize self-test: ok (the race planted in Lock.withLock was reported; the SDK as it is has none)"
    exit 0
fi

# The part of the package that runs sanitized (Package.swift): the SDK, the fake, their tests and
# frontmail-bench; the other test targets and the benchmarks would more than double the build.
export FRONTMAIL_PACKAGE_PART=sanitized
failed=0
for sanitizer in "${sanitizers[@]}"; do
    build=".build/sanitize-$sanitizer"
    logs="$build/logs"
    mkdir -p "$logs"
    # Under ThreadSanitizer each module's Mutex is an NSLock it sees (VisibleMutex in FakeFrontmail).
    flags=(--sanitize="$sanitizer" --build-path "$build")
    [ "$sanitizer" = thread ] && flags+=(-Xswiftc -DFRONTMAIL_TSAN)
    if [ "$building" = 1 ]; then
        echo "== $sanitizer: build (tests and frontmail-bench)"
        started=$SECONDS
        if ! run "$logs/build.log" swift build --build-tests "${flags[@]}"; then
            grep -h "error:" "$logs/build.log" | sort -u | head -n 30 >&2
            echo "sanitize: the $sanitizer build failed" >&2
            exit 1
        fi
        echo "   built in $((SECONDS - started)) s"
    elif [ ! -x "$build/debug/frontmail-bench" ]; then
        echo "sanitize: --skip-build, but there is no $sanitizer build in $build (run --build-only first)" >&2
        exit 1
    fi
    [ "$running" = 1 ] || continue
    echo "== $sanitizer: the SDK's tests and the fake's socket tests"
    started=$SECONDS
    # The tests of the SDK (FrontmailTests) and of the fake, which run the SDK over sockets.
    export TSAN_OPTIONS="halt_on_error=0:suppressions=$(pwd)/scripts/lib/tsan-suppressions.txt:${TSAN_OPTIONS:-}"
    export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
    run "$logs/tests.log" swift test "${flags[@]}" --skip-build \
        --filter '^(FrontmailTests|FakeFrontmailTests)\.'
    status=$?
    if reports "$logs/tests.log" > "$logs/reports.txt" || [ "$status" != 0 ]; then
        head -40 "$logs/reports.txt" >&2
        grep -E "✘" "$logs/tests.log" | head -20 >&2
        echo "sanitize: $sanitizer: the tests reported (status $status, log $logs/tests.log)" >&2
        failed=1
    else
        echo "   $(grep -E "Test run with" "$logs/tests.log" | tail -1) ($((SECONDS - started)) s, no report)"
    fi
    [ "$scenarios" = 1 ] || continue
    echo "== $sanitizer: the quick socket scenarios"
    started=$SECONDS
    bench="$build/debug/frontmail-bench"
    out="$build/scenarios"
    rm -rf "$out"
    run "$logs/scenarios.log" "$bench" run scenarios/cancellation-socket.json scenarios/slow-body.json \
        scenarios/hang-past-timeout.json scenarios/resets-and-truncation.json scenarios/socket-throughput.json \
        --quick --out "$out" --no-progress
    status=$?
    # 0: all PASS, 1: a verdict FAIL (timing in a sanitized build is not judged); above: a crash,
    # a signal or a usage error.
    if reports "$logs/scenarios.log" > "$logs/reports.txt" || [ "$status" -gt 1 ]; then
        head -40 "$logs/reports.txt" >&2
        tail -5 "$logs/scenarios.log" >&2
        echo "sanitize: $sanitizer: the scenarios reported (status $status, log $logs/scenarios.log)" >&2
        failed=1
    else
        echo "   $(grep -cE "^(PASS|FAIL)" "$logs/scenarios.log") scenarios ran ($((SECONDS - started)) s, no report)"
    fi
done
exit "$failed"
