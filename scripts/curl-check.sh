#!/usr/bin/env bash
# A real HTTP client against `frontmail-bench serve`: keep-alive across two requests, a chunked
# upload, a bad request line, the ledger written on SIGTERM. Exits non-zero on any mismatch.
#   bash scripts/curl-check.sh [path/to/frontmail-bench]
set -euo pipefail
cd "$(dirname "$0")/.."
bench="${1:-.build/debug/frontmail-bench}"
work="$(mktemp -d)"
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "curl-check: $*" >&2; exit 1; }

"$bench" serve --ledger "$work/ledger.csv" >"$work/out" 2>"$work/err" &
server_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$work/out" && break; sleep 0.05; done
url="$(sed -n 's/^listening on //p' "$work/out" | head -1)"
[[ "$(head -1 "$work/out")" =~ ^listening\ on\ http://127\.0\.0\.1:[0-9]+$ ]] || fail "first line was: $(head -1 "$work/out")"

body='{"template_id":"tpl_order","template_params":{"bench_send_id":1},"user_id":"pk_curl"}'
headers=(-H 'X-Frontmail-Public-Key: pk_curl' -H 'X-Frontmail-Client: curl-check' -H 'Content-Type: application/json')

# Keep-alive: two sends with one key in one curl run reuse the connection; the second replays.
curl -sv "${headers[@]}" -H 'Idempotency-Key: curl-1' -d "$body" "$url/v1/send" "$url/v1/send" \
    >"$work/keepalive.out" 2>"$work/keepalive.err"
grep -q 'Re-using existing connection' "$work/keepalive.err" || fail "the connection was not reused"
[ "$(grep -o '"message_id":"msg_1"' "$work/keepalive.out" | wc -l)" -eq 2 ] \
    || fail "expected msg_1 twice in: $(cat "$work/keepalive.out")"

# Chunked upload of the same send: the idempotency store replays the original answer.
replay="$(curl -s "${headers[@]}" -H 'Idempotency-Key: curl-1' -H 'Transfer-Encoding: chunked' -d "$body" "$url/v1/send")"
[[ "$replay" == *'"message_id":"msg_1"'* ]] || fail "chunked replay answered: $replay"

# A bad request line: 400 and the connection is closed.
port="${url##*:}"
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'NOT A REQUEST\r\n\r\n' >&3
status="$(head -c 12 <&3)"
exec 3<&-
[ "$status" = "HTTP/1.1 400" ] || fail "bad request line answered: $status"

kill -TERM "$server_pid"
wait "$server_pid" || fail "serve exited with $?"
server_pid=""
grep -q '^stopped (SIGTERM): ' "$work/out" || fail "no summary line: $(tail -1 "$work/out")"
[ "$(wc -l <"$work/ledger.csv")" -eq 4 ] || fail "the ledger has $(wc -l <"$work/ledger.csv") lines, expected 4"
echo "curl-check: ok (keep-alive, chunked upload, bad request line, ledger on SIGTERM)"
