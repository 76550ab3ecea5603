"""stamina around httpx as a certify client, written as stamina's README shows it: retry on
httpx.HTTPError after raise_for_status(), here with 4 attempts, waits from 0.1 s up to 1 s and a
jitter of up to 0.1 s added; the key is made once per logical send."""

import httpx
import stamina

from client_common import run

client = httpx.Client(timeout=2.0)


# One policy for the send and the status read, as stamina's README shows it.
retrying = stamina.retry(on=httpx.HTTPError, attempts=4, wait_initial=0.1, wait_max=1.0, wait_jitter=0.1)


@retrying
def post(url, body, headers):
    response = client.post(url, content=body, headers=headers)
    response.raise_for_status()
    return response


@retrying
def get(url, headers):
    response = client.get(url, headers=headers)
    response.raise_for_status()
    return response


def send(url, body, headers):
    response = post(url, body, headers)
    return response.status_code, response.content


run(send, get)
