#!/usr/bin/env bash
# The Kubernetes pipeline of deploy/kubernetes/ without a cluster: runs the commands its pods run,
# with the arguments read from the manifests, as local processes (JOB_COMPLETION_INDEX set per
# shard, as an Indexed Job sets it per pod), then the merge Job's command, and checks the verdicts.
#   bash scripts/k8s-local.sh [path/to/frontmail-bench] [--quick]
# What differs from a cluster, and only that: /results is a temporary folder; the shared server
# listens on 127.0.0.1 and a free port (not 0.0.0.0:8080, --expose dropped), and the shards get its
# URL instead of the Service's; --quick (for CI) is added to every run and serve.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=".build/release/frontmail-bench"
quick=()
for argument in "$@"; do
    case "$argument" in
        --quick) quick=(--quick) ;;
        *) bench="$argument" ;;
    esac
done
manifests=deploy/kubernetes
work="$(mktemp -d)"
server_pid=""
shard_pids=()
cleanup() {
    for pid in "${shard_pids[@]}" $server_pid; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "k8s-local: $*" >&2; exit 1; }
say() { printf 'k8s-local: %s\n' "$*"; }

# The container's `args:` of a manifest, one per line (a flow sequence of double-quoted strings,
# which is JSON; no argument holds a quote, a comma or a space).
args_of() {
    local line
    line="$(grep -E '^ +args: \[' "$1")" || fail "$1: no args: [...] line"
    [ "$(printf '%s\n' "$line" | wc -l)" = 1 ] || fail "$1: more than one args: line"
    line="${line#*[}"
    line="${line%]*}"
    printf '%s\n' "$line" | tr ',' '\n' | sed -e 's/^ *"//' -e 's/" *$//'
}
field_of() { sed -n "s/^ *$2: *//p" "$1" | head -1; }

# A pod's command here: /results is the work folder.
local_args() { sed "s#^/results#$work#"; }

run_indexed_job() {
    local manifest="$1" server_url="${2:-}" completions parallelism
    completions="$(field_of "$manifest" completions)"
    parallelism="$(field_of "$manifest" parallelism)"
    [ "$(field_of "$manifest" completionMode)" = Indexed ] || fail "$manifest: not an Indexed Job"
    [ "$completions" = "$parallelism" ] || fail "$manifest: completions $completions, parallelism $parallelism"
    mapfile -t job_args < <(args_of "$manifest" | local_args)
    # Kubernetes fills $(RUN_ID) from the Job's uid; here one id per Job.
    local run_id="local-$$-$(basename "$manifest" .yaml)"
    for i in "${!job_args[@]}"; do
        [ "${job_args[$i]}" = '$(RUN_ID)' ] && job_args[$i]="$run_id"
    done
    if [ -n "$server_url" ]; then
        for i in "${!job_args[@]}"; do
            [ "${job_args[$i]}" = --server ] && job_args[$((i + 1))]="$server_url"
        done
    fi
    say "$manifest: $completions shard processes: frontmail-bench ${job_args[*]} ${quick[*]}"
    shard_pids=()
    for ((index = 0; index < completions; index++)); do
        JOB_COMPLETION_INDEX=$index "$bench" "${job_args[@]}" "${quick[@]}" >"$work/shard-$index.out" &
        shard_pids+=($!)
    done
    local failed=0
    for pid in "${shard_pids[@]}"; do wait "$pid" || failed=1; done
    shard_pids=()
    [ "$failed" = 0 ] || fail "$manifest: a shard failed"
    cat "$work"/shard-*.out
    rm -f "$work"/shard-*.out
}

# 1. In process: the Indexed Job alone.
run_indexed_job "$manifests/shards-job.yaml"

# 2. Over sockets: the shared server (the Deployment), its shards (the Indexed Job), then the server
#    stops (scaled to 0 in the cluster: SIGTERM) and writes its part.
mapfile -t serve_args < <(args_of "$manifests/serve.yaml" | local_args)
local_serve=()
skip=0
for i in "${!serve_args[@]}"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "${serve_args[$i]}" in
        --expose) ;;
        --host) local_serve+=(--host 127.0.0.1); skip=1 ;;
        --port) local_serve+=(--port 0); skip=1 ;;
        *) local_serve+=("${serve_args[$i]}") ;;
    esac
done
say "$manifests/serve.yaml: frontmail-bench ${local_serve[*]} ${quick[*]}"
"$bench" "${local_serve[@]}" "${quick[@]}" >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
for _ in $(seq 200); do grep -q '^listening on ' "$work/serve.out" && break; sleep 0.05; done
url="$(sed -n 's/^listening on //p' "$work/serve.out" | head -1)"
[[ "$url" =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || fail "the server did not start: $(cat "$work/serve.err")"
run_indexed_job "$manifests/socket-shards-job.yaml" "$url"
kill -TERM "$server_pid"
wait "$server_pid" || fail "the server exited non-zero: $(cat "$work/serve.err")"
server_pid=""
grep -q '^server part: ' "$work/serve.out" || fail "the server wrote no part: $(cat "$work/serve.out")"

# 3. The merge Job.
mapfile -t merge_args < <(args_of "$manifests/merge-job.yaml" | local_args)
say "$manifests/merge-job.yaml: frontmail-bench ${merge_args[*]}"
status=0
"$bench" "${merge_args[@]}" | tee "$work/merge.out" || status=$?
[ "$status" = 0 ] || fail "merge exited $status"
verdicts="$(grep -cE '^PASS ' "$work/merge.out" || true)"
[ "$verdicts" = 2 ] || fail "expected 2 PASS verdicts (in process and over sockets), found $verdicts"
grep -q '^results: ' "$work/merge.out" || fail "merge named no results"
say "the pipeline ran end to end: 2 scenarios sharded, merged and judged"
