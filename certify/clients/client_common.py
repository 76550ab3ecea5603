"""What every Python certify client shares (docs/certify.md): the protocol's environment, one
fresh UUID v4 Idempotency-Key per logical send, and the sends run FRONTMAIL_CONCURRENCY at a time.
A client module gives `send(url, body, headers)`; its retries are the library's own."""

import concurrent.futures
import os
import sys
import uuid


def run(send):
    url = os.environ["FRONTMAIL_URL"] + "/v1/send"
    key = os.environ["FRONTMAIL_PUBLIC_KEY"]
    concurrency = int(os.environ.get("FRONTMAIL_CONCURRENCY", "1"))
    with open(os.environ["FRONTMAIL_SENDS"], encoding="utf-8") as sends:
        bodies = [line.rstrip("\n") for line in sends if line.strip()]

    def one(body):
        headers = {
            "Content-Type": "application/json",
            "X-Frontmail-Public-Key": key,
            "Idempotency-Key": str(uuid.uuid4()),
        }
        try:
            send(url, body.encode("utf-8"), headers)
        except Exception as error:  # the server's record is judged, not the outcome
            print(f"send failed: {type(error).__name__}: {error}", file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(one, bodies))
