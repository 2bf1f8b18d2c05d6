#!/usr/bin/env python3
"""Soak test for pushgw: a fixed event rate against a running gateway (the
built-in simulators behind it), sampling the gateway's RSS and open file
descriptors, loopback only, bounded in time. Standard library only.

Usage: bench/soak.py --url http://127.0.0.1:PORT --token TOKEN --pid PID
                     [--seconds 300] [--rate 500] [--workers 8]

Prints one sample line every --interval seconds and a summary: events sent,
answers by HTTP status, RSS and descriptors at start, peak and end.
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


def sample(pid):
    rss = 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) // 1024
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return rss, fds


def event(index):
    return json.dumps({
        "event_id": f"soak-{os.getpid()}-{index}",
        "conversation": {"id": "37791233165968", "title": "🎧 Zalo - Tran Nghia"},
        "message": {"id": str(index), "text": "", "kind": "video"},
        "sender": {"id": "6872016393687471", "display_name": "Nghĩa"},
        "recipients": [
            {"platform": "apns", "token": f"{index:064x}", "badge": 3, "locale": "vi"},
            {"platform": "fcm", "token": f"soak-fcm-{index}", "badge": 3, "locale": "vi"},
        ],
    }).encode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--rate", type=float, default=500, help="events per second")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--interval", type=float, default=10)
    args = parser.parse_args()
    target = urllib.parse.urlsplit(args.url)
    if target.hostname not in ("127.0.0.1", "localhost", "::1"):
        sys.exit("soak.py: loopback targets only")

    deadline = time.monotonic() + args.seconds
    lock = threading.Lock()
    counter = {"next": 0, "statuses": {}}
    start = time.monotonic()

    def worker():
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        headers = {"Authorization": f"Bearer {args.token}", "Content-Type": "application/json"}
        while True:
            with lock:
                index = counter["next"]
                counter["next"] += 1
            due = start + index / args.rate
            now = time.monotonic()
            if due >= deadline:
                return
            if due > now:
                time.sleep(due - now)
            try:
                connection.request("POST", "/v1/notify", body=event(index), headers=headers)
                response = connection.getresponse()
                response.read()
                status = response.status
            except (OSError, http.client.HTTPException):
                connection.close()
                connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                status = "error"
            with lock:
                counter["statuses"][status] = counter["statuses"].get(status, 0) + 1

    first = sample(args.pid)
    peak = list(first)
    print(f"{'t (s)':>6} {'sent':>8} {'RSS MB':>7} {'fds':>5}")
    print(f"{0:>6} {0:>8} {first[0]:>7} {first[1]:>5}", flush=True)
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(args.workers)]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        time.sleep(args.interval)
        rss, fds = sample(args.pid)
        peak = [max(peak[0], rss), max(peak[1], fds)]
        with lock:
            done = sum(counter["statuses"].values())
        print(f"{time.monotonic() - start:>6.0f} {done:>8} {rss:>7} {fds:>5}", flush=True)
    time.sleep(2)
    last = sample(args.pid)
    total = sum(counter["statuses"].values())
    elapsed = time.monotonic() - start
    print(f"events: {total} in {elapsed:.0f} s ({total / elapsed:.0f}/s); answers: {counter['statuses']}")
    print(f"RSS MB: start {first[0]}, peak {peak[0]}, end {last[0]}; open fds: start {first[1]}, peak {peak[1]}, end {last[1]}")


if __name__ == "__main__":
    main()
