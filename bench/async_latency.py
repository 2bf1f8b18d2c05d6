#!/usr/bin/env python3
"""Queues events with POST /v1/notify?mode=async at a fixed rate on one
kept-alive connection per sending thread to 127.0.0.1:PORT, and times each from the start of
its POST until GET /v1/events/{event_id} first answers "done" with every
device "sent", for bench/async-bench.sh.

  async_latency.py PORT RATE SECONDS EVENT_FILE

The gateway keeps no time of delivery, and the simulators none a client can
read, so the end of each event is what a caller can see: the status poll.
That makes each figure an upper bound on queue-to-provider latency: it
takes in the consumer's send, the dedup record and the acknowledgement
(all done before "done") and up to one poll sweep, whose period is printed.
Four polling threads (POLLERS) each poll their share of the events not yet
done, one GET after another on a connection of their own, then sleep 1 ms. Sends are paced against a clock
(a late send is not made up by a burst of them), so the rate is fixed.

Prints one line: sent, done, p50, p90, p99, max (ms), poll sweep (ms), how
far behind its schedule the sender fell at most (ms; above 100 ms a warning
says the rate was not held), and the times the server closed the sending /
polling connection (the request is made again on a new one; a POST with the
same event_id, so never queued twice). The gateway closes a kept-alive
connection whose next request does not come within its request timeout
(10 s), so a thread that waits that long finds its connection closed.
One Python process makes every request: at high rates, or on a busy box,
the poll sweep grows with the backlog it polls (each GET of an
event not yet done is a request), so a saturated client measures its own
backlog; the send lag and the sweep say when that happened. It exits 1 when an answer is not 202, an event ends other than "done" with
every device "sent", or an event is not done 10 s after the last send.
"""
import http.client
import json
import os
import sys
import threading
import time
import uuid

# Polling threads, each with its own kept-alive connection and its share of
# the events (by index): their requests wait on the network, not on each
# other, so the polls keep up with a rate one connection could not.
POLLERS = 4
# Sending threads, each with its own kept-alive connection, taking turns
# through the schedule: one connection's round trips cannot keep 1,000
# events/s on a busy box.
SENDERS = 2


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
    reconnects = [0, 0]  # sending connection, polling connection
    lag = [0.0]  # the latest a send started after its time

    def poll(share: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        deadline = None
        while True:
            with lock:
                waiting = [(event_id, start) for event_id, start in started.items()
                           if int(event_id.rsplit("-", 1)[1]) % POLLERS == share]
            if not waiting and sending_done.is_set():
                return
            sweep_start = time.monotonic()
            for event_id, start in waiting:
                if sending_done.is_set():
                    # Checked per GET, not per sweep: a sweep over a long
                    # backlog must not run past the deadline.
                    deadline = deadline or time.monotonic() + 10
                    if time.monotonic() > deadline:
                        failures.append(f"{len(waiting)} events not done 10 s after the last send")
                        return
                for attempt in range(2):
                    try:
                        connection.request("GET", "/v1/events/" + event_id, headers=headers)
                        response = connection.getresponse()
                        answer = response.read()
                        break
                    except (http.client.HTTPException, ConnectionError):
                        # Closed by the server (a kept-alive connection idle
                        # past its request timeout): again on a new one.
                        if attempt == 1:
                            raise
                        with lock:
                            reconnects[1] += 1
                        connection.close()
                        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
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
                    with lock:
                        latencies.append(now - start)
            with lock:
                sweeps[0] += 1
                sweeps[1] += time.monotonic() - sweep_start
            time.sleep(0.001)

    pollers = [threading.Thread(target=poll, args=(share,)) for share in range(POLLERS)]
    for poller in pollers:
        poller.start()
    count = int(rate * seconds)
    begin = time.monotonic()
    sending = [SENDERS]

    def send(share: int) -> None:
        """Sends events share, share + SENDERS, … each at its time."""
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = dict(event)
        try:
            for index in range(share, count, SENDERS):
                due = begin + index / rate
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                else:
                    with lock:
                        lag[0] = max(lag[0], -delay)
                mine["event_id"] = f"{prefix}-{index}"
                body = json.dumps(mine, ensure_ascii=False).encode("utf-8")
                start = time.monotonic()
                with lock:
                    started[mine["event_id"]] = start
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
                        with lock:
                            reconnects[0] += 1
                        connection.close()
                        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                if response.status != 202:
                    failures.append(f"POST answer {response.status}: {answer[:300]!r}")
                    with lock:
                        started.pop(mine["event_id"], None)
                    break
        except Exception as error:  # noqa: BLE001 - reported, and the pollers are let go
            failures.append(f"POST failed: {error!r}")
            with lock:
                started.pop(mine["event_id"], None)
        finally:
            with lock:
                sending[0] -= 1
                if sending[0] == 0:
                    sending_done.set()

    senders = [threading.Thread(target=send, args=(share,)) for share in range(SENDERS)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    elapsed = time.monotonic() - begin
    for poller in pollers:
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
          f"p99 {at(0.99):.1f} max {1000 * latencies[-1]:.1f} sweep {sweep:.1f} send lag max {1000 * lag[0]:.1f} "
          f"reconnects {reconnects[0]}/{reconnects[1]}")
    if lag[0] > 0.1:
        print(f"the client fell {1000 * lag[0]:.0f} ms behind its schedule: not a fixed rate of {rate:g} events/s "
              "(the box or this client is saturated; the figures are not at that rate)", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
