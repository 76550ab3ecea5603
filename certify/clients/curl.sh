#!/bin/sh
# curl with --retry as a `frontmail-bench certify` client (docs/certify.md): one curl process per
# logical send, FRONTMAIL_CONCURRENCY at a time, each with a fresh lowercase UUID v4 as its
# Idempotency-Key (curl makes none itself). curl retries timeouts, 408, 429, 500, 502, 503 and
# 504, and with --retry-connrefused a refused connection; it waits 1 s, then doubles.
set -u
send() {
    key="$(cat /proc/sys/kernel/random/uuid)"
    # The answer goes to stdout, not `--output /dev/null`: curl 7.88 cannot truncate /dev/null
    # before a retry and exits 23 instead of retrying (curl/curl#17371).
    curl --silent --show-error --retry 3 --retry-connrefused --max-time 2 \
        -H "Content-Type: application/json" -H "X-Frontmail-Public-Key: $FRONTMAIL_PUBLIC_KEY" \
        -H "Idempotency-Key: $key" --data-binary "$1" "$FRONTMAIL_URL/v1/send" >/dev/null
}
running=0
while IFS= read -r body; do
    send "$body" &
    running=$((running + 1))
    if [ "$running" -ge "$FRONTMAIL_CONCURRENCY" ]; then
        wait
        running=0
    fi
done <"$FRONTMAIL_SENDS"
wait
exit 0
