#!/usr/bin/env bash
# Does a long run's memory stay flat? Runs one command and samples its resident memory (VmRSS)
# every few seconds into a CSV, then prints the run's exit code, its wall time, the peak and the
# mean of the first and last quarter (scripts/lib/rss.sh). The soaks of docs/explore.md:
#
#   bash scripts/soak.sh --out /tmp/soak-explore -- .build/release/frontmail-bench explore --time 30m \
#       --jobs 2 --no-progress --out /tmp/soak-explore/run
#   bash scripts/soak.sh --out /tmp/soak-tune -- .build/release/frontmail-bench tune \
#       tune/retry-defaults.json tune/retry-storms.json --no-progress --out /tmp/soak-tune/run
#   bash scripts/soak.sh --out /tmp/soak-certify -- env FRONTMAIL_BIN=$PWD/.build/release \
#       .build/release/frontmail-bench certify --clients certify/clients.json --no-progress \
#       --out /tmp/soak-certify/run
#
# usage: scripts/soak.sh [--every SECONDS] --out DIR -- COMMAND [ARGUMENTS...]
# Writes DIR/rss.csv and DIR/output.txt; exits with the command's exit code (64 for bad usage).
# SIGINT, SIGTERM and SIGHUP are passed to the command, whose own handling ends it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/rss.sh

every=5
out=""
while [ $# -gt 0 ]; do
    case "$1" in
        --every) every="${2:-}"; shift 2 ;;
        --out) out="${2:-}"; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [--every SECONDS] --out DIR -- COMMAND [ARGUMENTS...]" >&2; exit 64 ;;
    esac
done
case "$every" in '' | *[!0-9]*) echo "soak: --every takes whole seconds (1-600)" >&2; exit 64 ;; esac
[ "$every" -ge 1 ] && [ "$every" -le 600 ] || { echo "soak: --every takes whole seconds (1-600)" >&2; exit 64; }
[ -n "$out" ] || { echo "soak: --out DIR is required" >&2; exit 64; }
[ $# -gt 0 ] || { echo "soak: no command after --" >&2; exit 64; }
[ -e "$out" ] && [ ! -d "$out" ] && { echo "soak: --out $out is not a folder" >&2; exit 64; }
[ -e "$out/rss.csv" ] && { echo "soak: $out holds an earlier soak (rss.csv); name a new folder" >&2; exit 64; }
mkdir -p "$out"

started=$SECONDS
"$@" > "$out/output.txt" 2>&1 &
command=$!
trap 'kill -INT "$command" 2>/dev/null || true' INT
trap 'kill -TERM "$command" 2>/dev/null || true' TERM
trap 'kill -HUP "$command" 2>/dev/null || true' HUP
watch_rss "$command" "$out/rss.csv" "$every" &
watcher=$!
code=0
# A trapped signal ends `wait` early: wait again until the command itself has ended.
while kill -0 "$command" 2> /dev/null; do wait "$command" || code=$?; done
wait "$watcher" || true
echo "soak: $* exited $code after $((SECONDS - started)) s; $(rss_summary "$out/rss.csv") ($out/rss.csv)"
exit "$code"
