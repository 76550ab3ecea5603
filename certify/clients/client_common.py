"""What every Python certify client shares (docs/certify.md): the protocol's environment, one
fresh UUID v4 Idempotency-Key per logical send, and the sends run FRONTMAIL_CONCURRENCY at a time.
A client module gives `send(url, body, headers)`, returning (status, body bytes) or None, and
`read(url, headers)` for a message's status when FRONTMAIL_STATUS_READS is 1; their retries are the
library's own."""

import concurrent.futures
import json
import os
import sys
import urllib.parse
import uuid


def status_read(base, key, answer):
    """The status read a send's 2xx answer asks for: (url, headers), or None when the answer names no
    message (its body is not JSON, or has no message_id and status_token strings)."""
    status, payload = answer
    if not 200 <= status < 300:
        return None
    try:
        sent = json.loads(payload)
        message_id, token = sent["message_id"], sent["status_token"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(message_id, str) or not message_id or not isinstance(token, str):
        return None
    url = base + "/v1/messages/" + urllib.parse.quote(message_id, safe="")
    return url, {"X-Frontmail-Public-Key": key, "X-Frontmail-Status-Token": token}


def run(send, read=None):
    base = os.environ["FRONTMAIL_URL"]
    url = base + "/v1/send"
    key = os.environ["FRONTMAIL_PUBLIC_KEY"]
    reads = read is not None and os.environ.get("FRONTMAIL_STATUS_READS") == "1"
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
            answer = send(url, body.encode("utf-8"), headers)
        except Exception as error:  # the server's record is judged, not the outcome
            print(f"send failed: {type(error).__name__}: {error}", file=sys.stderr)
            return
        asked = status_read(base, key, answer) if reads and answer is not None else None
        if asked is None:
            return
        try:
            read(*asked)
        except Exception as error:
            print(f"status read failed: {type(error).__name__}: {error}", file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(one, bodies))
