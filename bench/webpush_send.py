#!/usr/bin/env python3
"""pywebpush's side of bench/webpush-vs-pywebpush.sh: sends the same
plaintext to the simulator's subscriptions for SECONDS, one message at a
time on one thread (pywebpush.webpush with a kept requests session, so
HTTP/1.1 keep-alive; pywebpush signs a VAPID JWT and encrypts per message),
and prints `pywebpush: <N> messages/s (...)`.

Usage: webpush_send.py DIR SECONDS   (DIR as pushgw-bench webpush-simulator wrote it)
"""
import json
import sys
import time

import requests
from py_vapid import Vapid
from pywebpush import WebPushException, webpush


def main() -> int:
    directory, seconds = sys.argv[1], float(sys.argv[2])
    with open(f"{directory}/subscriptions.json") as handle:
        subscriptions = json.load(handle)
    with open(f"{directory}/plaintext.json", "rb") as handle:
        plaintext = handle.read()
    vapid = Vapid.from_file(f"{directory}/vapid.pem")
    session = requests.Session()
    session.trust_env = False  # the CA below, not one from REQUESTS_CA_BUNDLE
    session.verify = f"{directory}/ca.pem"
    accepted = failed = 0
    start = time.monotonic()
    deadline = start + seconds
    index = 0
    while time.monotonic() < deadline:
        subscription = subscriptions[index % len(subscriptions)]
        index += 1
        try:
            response = webpush(subscription, data=plaintext, vapid_private_key=vapid,
                               vapid_claims={"sub": "mailto:bench@pushgw.invalid"}, ttl=86400,
                               headers={"Urgency": "high", "Topic": "bench"}, requests_session=session, timeout=10)
            if response.status_code == 201:
                accepted += 1
            else:
                failed += 1
        except WebPushException:
            failed += 1
    elapsed = time.monotonic() - start
    print(f"pywebpush: {int((accepted + failed) / elapsed)} messages/s ({accepted + failed} completed: "
          f"{accepted} accepted, {failed} failed; HTTP/1.1 keep-alive, 1 sender)")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
