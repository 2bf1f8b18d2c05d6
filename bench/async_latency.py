#!/usr/bin/env python3
"""Queues events with POST /v1/notify?mode=async at a fixed rate on one
kept-alive connection to 127.0.0.1:PORT, and times each from the start of
its POST until GET /v1/events/{event_id} first answers "done" with every
device "sent", for bench/async-bench.sh.

  async_latency.py PORT RATE SECONDS EVENT_FILE

The gateway keeps no time of delivery, and the simulators none a client can
read, so the end of each event is what a caller can see: the status poll.
That makes each figure an upper bound on queue-to-provider latency: it
takes in the consumer's send, the dedup record and the acknowledgement
(all done before "done") and up to one poll sweep, whose period is printed.
A second thread polls every event not yet done, one GET after another on
its own connection, then sleeps 1 ms. Sends are paced against a clock
(a late send is not made up by a burst of them), so the rate is fixed.

Prints one line: sent, done, p50, p90, p99, max (ms), poll sweep (ms), the
times the server closed the sending connection (the POST is sent again on a
new one, with the same event_id), and
exits 1 when an answer is not 202, an event ends other than "done" with
every device "sent", or an event is not done 10 s after the last send.
"""
import http.client
import json
import os
import sys
import threading
import time
import uuid


def main() -> int:
    port, rate, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    event = json.load(open(sys.argv[4], encoding="utf-8"))
    headers = {"Authorization": "Bearer " + os.environ.get("PUSHGW_TOKEN", ""), "Content-Type": "application/json"}
    prefix = uuid.uuid4().hex
    started: dict[str, float] = {}
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    sending_done = threading.Event()
    sweeps = [0, 0.0]  # count, total seconds

    def poll() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        deadline = None
        while True:
            with lock:
                waiting = list(started.items())
            if not waiting and sending_done.is_set():
                return
            if sending_done.is_set():
                deadline = deadline or time.monotonic() + 10
                if time.monotonic() > deadline:
                    failures.append(f"{len(waiting)} events not done 10 s after the last send")
                    return
            sweep_start = time.monotonic()
            for event_id, start in waiting:
                connection.request("GET", "/v1/events/" + event_id, headers=headers)
                response = connection.getresponse()
                answer = response.read()
                now = time.monotonic()
                if response.status != 200:
                    continue  # 404 until the answer to the POST is sent
                status = json.loads(answer)
                if status.get("status") == "queued":
                    continue
                with lock:
                    del started[event_id]
                if status.get("status") != "done" or any(r.get("status") != "sent" for r in status.get("results", [])):
                    failures.append(f"{event_id}: {answer[:300]!r}")
                else:
                    latencies.append(now - start)
            sweeps[0] += 1
            sweeps[1] += time.monotonic() - sweep_start
            time.sleep(0.001)

    poller = threading.Thread(target=poll)
    poller.start()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    count = int(rate * seconds)
    reconnects = 0
    begin = time.monotonic()
    try:
        for index in range(count):
            due = begin + index / rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            event["event_id"] = f"{prefix}-{index}"
            body = json.dumps(event, ensure_ascii=False).encode("utf-8")
            start = time.monotonic()
            with lock:
                started[event["event_id"]] = start
            for attempt in range(2):
                try:
                    connection.request("POST", "/v1/notify?mode=async", body=body, headers=headers)
                    response = connection.getresponse()
                    answer = response.read()
                    break
                except (http.client.HTTPException, ConnectionError):
                    # The server closed the kept-alive connection: again on a
                    # new one (the same event_id, so never queued twice).
                    if attempt == 1:
                        raise
                    reconnects += 1
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            if response.status != 202:
                failures.append(f"POST answer {response.status}: {answer[:300]!r}")
                with lock:
                    started.pop(event["event_id"], None)
                break
    except Exception as error:  # noqa: BLE001 - reported, and the poller is let go
        failures.append(f"POST failed: {error!r}")
        with lock:
            started.pop(event["event_id"], None)
    finally:
        sending_done.set()
    elapsed = time.monotonic() - begin
    poller.join()
    for failure in failures[:5]:
        print(failure, file=sys.stderr)
    if not latencies:
        return 1
    latencies.sort()

    def at(fraction: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(fraction * len(latencies)))]

    sweep = 1000 * sweeps[1] / sweeps[0] + 1 if sweeps[0] else 0
    print(f"sent {count} in {elapsed:.1f}s done {len(latencies)} p50 {at(0.5):.1f} p90 {at(0.9):.1f} "
          f"p99 {at(0.99):.1f} max {1000 * latencies[-1]:.1f} sweep {sweep:.1f} reconnects {reconnects}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
