#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Fuzz/Corpus/<target>/): the answers the fake API and its
fault plans send (send answers, error bodies, status bodies, the public config, the plans' bodies),
the Retry-After values of the scenarios, and the Retry-After values other projects assert in their
suites (Tests/FrontmailTests/Fixtures/retry-after-peer-cases.json). Run it again after changing
either; the seeds are committed so a fresh clone fuzzes from the same start.

    python3 Fuzz/make-seeds.py
"""
import hashlib
import json
import os
import shutil
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fuzz", "Corpus")

PLAN_BODIES = [
    b"<html><head><title>Gateway Timeout</title></head><body>upstream</body></html>",
    b"", b"{}", b'{"message_id": "msg_', b'{"status":"queued","status_token":"stk_none"}',
]
SEND_ANSWERS = [
    b'{"message_id":"msg_01","status":"queued","status_token":"stk_01"}',
    b'{"message_id":"msg_02","status":"queued","status_token":"stk_02","locale":"de-DE"}',
    b'{"message_id":"msg_03","status":"sent","status_token":"","locale":null,"extra":[1,2,{"a":true}]}',
    b'{"message_id":"","status":"queued"}', b'{"message_id":1}', b'[]', b'null',
    b'{"message_id":"m\\u00e9\\ud83d\\ude00","status":"queued"}',
]
ERROR_BODIES = [
    b'{"error":{"code":"invalid_template_params","message":"Missing name","docs_url":"https://frontmail.dev/docs/errors#invalid-template-params","details":{"missing":["name"]}}}',
    b'{"error":{"code":"rate_limited","message":"Too many requests"}}',
    b'{"error":{"code":"service_unavailable","message":"The server is over capacity."}}',
    b'{"error":{"code":"","message":""}}', b'{"error":"flat"}', b'{"error":{"code":7}}',
]
STATUS_BODIES = [
    b'{"message_id":"msg_01","status":"delivered","created_at":"2026-11-30T08:26:10Z","sent_at":"2026-11-30T08:26:11Z","template_id":"welcome","service_id":"svc_1","events":[{"type":"queued","at":"2026-11-30T08:26:10Z"},{"type":"delivered","at":"2026-11-30T08:26:12Z","provider":"x"}]}',
    b'{"message_id":"msg_02","status":"queued","created_at":"2026-11-30T08:26:10Z","events":[]}',
    b'{"message_id":"msg_03","status":"bounced","events":[1,{"type":2},{"at":"x"}],"custom":{"k":[null]}}',
    b'{"error":{"code":"not_found","message":"No such message"}}',
]
CONFIGS = [
    b'{"turnstile":{"mobileSiteKey":"0x4AAAAAAAFakeMobileKey","mobileBaseUrl":"https://challenges.frontmail.dev/mobile"}}',
    b'{"turnstile":{"mobileSiteKey":null}}', b'{"turnstile":{"mobileSiteKey":"","mobileBaseUrl":""}}',
    b'{"turnstile":[]}', b'{}',
]
HEADERS = [
    b"Retry-After:2\ncontent-type:application/json\nRETRY-AFTER:3",
    b"X-Frontmail-Status-Token:tok\nx-frontmail-status-token:other", b"\n:\n:value\nname",
    "Ä:1\nä:2\nK:3\n\u212a:4".encode(),
]
SCENARIO_RETRY_AFTER = [b"1", b"0.5", b"0", b"2", b"60", b"61", b"3600", b"soon", b"1s", b"Fri, 31 Feb 2026"]


def write(target, blobs):
    folder = os.path.join(OUT, target)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for blob in dict.fromkeys(blobs):
        name = hashlib.sha1(blob).hexdigest()
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(blob)


def main():
    with open(os.path.join(ROOT, "Tests", "FrontmailTests", "Fixtures", "retry-after-peer-cases.json")) as handle:
        peers = json.load(handle)["cases"]
    retry_after = SCENARIO_RETRY_AFTER + [case["header"].encode() for case in peers]
    write("retry-after", retry_after)
    write("send-answer", SEND_ANSWERS + PLAN_BODIES + ERROR_BODIES)
    # error-answer: two bytes of status, a Retry-After line, then the body.
    error_answers = []
    for index, body in enumerate(ERROR_BODIES + PLAN_BODIES):
        for status, header in [(503, b"1"), (429, b"2"), (500, b""), (504, b"Sun, 06 Nov 1994 08:49:37 GMT"),
                               (400, b"1"), (409, b""), (999, b"soon"), (302, b"0")][index % 4::4]:
            error_answers.append(struct.pack(">H", status) + header + b"\n" + body)
    write("error-answer", error_answers)
    write("status-body", STATUS_BODIES + PLAN_BODIES)
    write("public-config", CONFIGS + PLAN_BODIES)
    write("headers", HEADERS)


if __name__ == "__main__":
    main()
