"""urllib3's Retry as a certify client: total=3, backoff_factor=0.1, the statuses the API retries
in status_forcelist, every other setting urllib3's default (allowed_methods among them)."""

import urllib3
from urllib3.util import Retry, Timeout

from client_common import run

retry = Retry(total=3, backoff_factor=0.1, status_forcelist=[429, 500, 502, 503, 504])
pool = urllib3.PoolManager(retries=retry, timeout=Timeout(total=2.0))


def send(url, body, headers):
    response = pool.request("POST", url, body=body, headers=headers)
    return response.status, response.data


def read(url, headers):
    pool.request("GET", url, headers=headers)


run(send, read)
