#!/usr/bin/env python3
"""Sends N requests one after another on one kept-alive connection to
127.0.0.1:PORT, for bench/service-instructions.sh (a count of instructions
per request needs a known number of requests, not a rate).

  sequential_client.py PORT N PATH [EVENT_FILE]

With an event file the requests are POSTs with Authorization from
$PUSHGW_TOKEN; for /v1/notify each gets a fresh event_id (a duplicate would be
answered from the dedup window without sending). Every answer must be 200
(and, for notify, every device "sent"), else it exits 1: a count of
refusals would measure the wrong path.
"""
import http.client
import json
import os
import sys
import uuid


def main() -> int:
    port, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    event = json.load(open(sys.argv[4], encoding="utf-8")) if len(sys.argv) > 4 else None
    headers = {"Authorization": "Bearer " + os.environ.get("PUSHGW_TOKEN", ""), "Content-Type": "application/json"}
    prefix = uuid.uuid4().hex
    body = None if event is None else json.dumps(event, ensure_ascii=False).encode("utf-8")
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for index in range(count):
        if event is None:
            connection.request("GET", path)
        else:
            if path == "/v1/notify":
                event["event_id"] = f"{prefix}-{index}"
                body = json.dumps(event, ensure_ascii=False).encode("utf-8")
            connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read()
        if response.status != 200:
            print(f"{path}: answer {response.status}: {answer[:300]!r}", file=sys.stderr)
            return 1
        if path == "/v1/notify":
            results = json.loads(answer).get("results", [])
            if len(results) != len(event["recipients"]) or any(r.get("status") != "sent" for r in results):
                print(f"{path}: not every device sent: {answer[:300]!r}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
