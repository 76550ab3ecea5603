"""tenacity around httpx as a certify client: up to 4 attempts, wait_random_exponential
(multiplier 0.1 s, max 1 s), retrying transport errors and the statuses the API retries, for the
send and the status read alike; the key is made once per logical send, outside the retried function."""

import httpx
import tenacity

from client_common import run

RETRYABLE = {429, 500, 502, 503, 504}
client = httpx.Client(timeout=2.0)


# One policy for the send and the status read.
retrying = tenacity.retry(
    stop=tenacity.stop_after_attempt(4),
    wait=tenacity.wait_random_exponential(multiplier=0.1, max=1),
    retry=tenacity.retry_if_exception_type(httpx.TransportError)
    | tenacity.retry_if_result(lambda response: response.status_code in RETRYABLE or response.status_code >= 500),
    retry_error_callback=lambda state: None,
)


@retrying
def post(url, body, headers):
    return client.post(url, content=body, headers=headers)


@retrying
def get(url, headers):
    return client.get(url, headers=headers)


def send(url, body, headers):
    response = post(url, body, headers)
    return None if response is None else (response.status_code, response.content)


run(send, get)
