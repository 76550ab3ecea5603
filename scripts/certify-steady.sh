#!/usr/bin/env bash
# Is the committed certify gate steady on a busy machine? Builds this tree (a clean copy, release),
# installs the real clients, then runs `certify --clients certify/clients.json` N times beside an
# optional CPU hog and counts the runs that exited 0. A run that did not prints the verdicts that
# broke it (each client's unexpected outcomes), so a false FAIL is named by case and client. Each
# run's resident memory (certify's own process, every 2 s) is in run<N>-rss.csv and its summary line.
#
#   bash scripts/certify-steady.sh [--runs N] [--hog none|loop|build] [--out DIR]
#
#   --hog loop    one busy loop per core (the issue's "two-core CPU hog" on a 2-core machine)
#   --hog build   a concurrent release build of this package, restarted until the runs end
#
# Exits 0 when every run exited 0, 1 otherwise. Stops every process it started.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=20
hog=loop
out="$(mktemp -d)"
hogs="none loop build"
. scripts/lib/options.sh
parse_options "$@"

scratch="$(mktemp -d)"
. scripts/lib/hog.sh
trap 'stop_hogs; rm -rf "$scratch" || true' EXIT
. scripts/lib/tree.sh
. scripts/lib/rss.sh

echo "== build: the code as it is (clean copy, release)"
tree="$scratch/tree"
copy_tree "$tree"
(cd "$tree" && swift build -c release --product frontmail-bench >/dev/null &&
    swift build -c release --product frontmail-certify-client >/dev/null &&
    bash certify/clients/install.sh >/dev/null)

passed=0
start_hogs "$hog" "$scratch"
[ "$hog" = build ] && sleep 20 # let the build get going
for run in $(seq "$runs"); do
    started=$(date +%s)
    code=0
    (cd "$tree" && FRONTMAIL_BIN="$tree/.build/release" exec .build/release/frontmail-bench certify \
        --clients certify/clients.json --out "$out/run$run") >"$out/run$run.log" 2>&1 &
    certify=$!
    watch_rss "$certify" "$out/run$run-rss.csv" 2 &
    watcher=$!
    wait "$certify" || code=$?
    wait "$watcher"
    seconds=$(($(date +%s) - started))
    memory="$(rss_summary "$out/run$run-rss.csv")"
    if [ "$code" = 0 ]; then
        passed=$((passed + 1))
        echo "run $run: exit 0 in ${seconds}s; $memory"
    else
        echo "run $run: EXIT $code in ${seconds}s; $memory"
        grep -iE 'unexpected|expected FAIL that passed|error' "$out/run$run.log" | sed 's/^/    /' || true
    fi
done
stop_hogs

echo "certify-steady ($hog hog): $passed of $runs runs exited 0 (results in $out)"
[ "$passed" = "$runs" ]
