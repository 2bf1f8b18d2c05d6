#!/usr/bin/env python3
"""Benchmark peer for pushgw's APNs HTTP/2 client: aioapns sending the same alert.

aioapns (PyPI ``aioapns``, the APNs engine of the Matrix push gateway Sygnal)
sends N token-authenticated (ES256 JWT) alert notifications, C at a time, to a
local HTTP/2 server given by ``--origin``, each to a distinct 64-hex device
token, with ``PAYLOAD`` and the request fields set in ``run`` (apns-push-type
alert, apns-priority 10, apns-expiration now+1h, apns-collapse-id, apns-id).
Written against aioapns 4.0 (``bench/aioapns-setup.sh`` installs it into a
throwaway venv); any other version is refused unless ``--any-version``.

Usage:
    aioapns_send.py --origin https://127.0.0.1:PORT --ca-file CA.pem \\
        --key-file key.p8 --key-id ABC123DEFG --team-id DEF123GHIJ \\
        --topic com.example.pushgw --count N [--concurrency C] \\
        [--connections K] [--seconds S]

Output (stdout, exactly one line):
    aioapns: <rate> notifications/s (<ok> ok, <failed> failed, aioapns <version>, Python <x.y.z>)
rate = responses received (any HTTP status) / elapsed seconds, where elapsed
runs from the first send (connection set-up, TLS handshake and the JWT
signature included) to the last response. ``ok`` counts 200 responses;
``failed`` counts every other response plus sends that raised (no response:
those are not in the rate; with any such, a note goes to stderr). The run
stops after ``--count`` sends or at ``--seconds``, whichever comes first:
at the deadline no new send starts and the ones still in flight are abandoned.

Only loopback origins are accepted (127.0.0.0/8, ::1, localhost).

WHAT IS PATCHED, AND WHY (everything else is aioapns 4.0 as installed)
======================================================================
aioapns's public API is used as is: ``aioapns.APNs(key=<.p8 text>, key_id=,
team_id=, topic=, use_sandbox=False, max_connections=K,
max_connection_attempts=, ssl_context=, err_func=)``, ``NotificationRequest``,
``PushType.ALERT``, ``APNs.send_notification``. Three things are changed, all
from this script, in this process only (the installed files are not touched):

1. Host and port: two class constants.
   ``aioapns.connection.APNsProductionClientProtocol.APNS_SERVER`` (normally
   "api.push.apple.com") := the --origin host, and ``...APNS_PORT`` (inherited,
   normally 443) := the --origin port. ``APNsKeyConnectionPool`` dials exactly
   ``(protocol_class.APNS_SERVER, protocol_class.APNS_PORT)``, and
   use_sandbox=False selects that class. The same constant is what aioapns
   sends as the ``host`` request header, so the server sees ``host: 127.0.0.1``.

2. TLS trust: NOT patched; aioapns 4.0 takes ``ssl_context=`` in its public
   API. The context passed is what aioapns builds by default
   (``ssl.create_default_context()``) except that it trusts only --ca-file
   (``create_default_context(cafile=...)``), plus ALPN "h2". Certificate and
   host-name verification stay on (CERT_REQUIRED, check_hostname; asserted
   below); the name checked is the --origin host (SNI = the dialled host).
   ALPN: aioapns never offers it (Apple's servers speak HTTP/2 without it);
   nghttpd, like any RFC 9113 server, closes a TLS connection that did not
   offer "h2" ("Client did not advertise HTTP/2 protocol").

3. Response shape: ``aioapns.connection.H2Connection`` (the module-level name
   aioapns's ``H2Protocol.__init__`` instantiates) := ``APNsShapedH2Connection``
   below, a subclass of h2's ``H2Connection``. aioapns 4.0 can only consume
   APNs's exact response shape, and a generic server such as nghttpd (404,
   text/html body, no apns-id) makes it fail: it matches a response to its
   request by the ``apns-id`` response header (with none, a 200 is "unknown
   notification" and its send never returns), and it ``json.loads`` every DATA
   chunk of a non-200 inside ``data_received`` (an HTML body raises there and
   asyncio kills the connection). The subclass reshapes what h2 hands to
   aioapns into what APNs itself sends, and changes nothing on the wire:
     - a response without ``apns-id`` gets the one its request was sent with;
     - a 200's DATA events are dropped (APNs's 200 has no body);
     - a non-200's body is delivered as one DATA event at stream end: the
       server's own body if it is a JSON object with "reason" (what APNs
       sends), else ``{"reason": "HTTP <status> from a non-APNs server"}``;
     - once per connection, right after the preface, the connection-level
       receive window is opened to the HTTP/2 maximum (2^31-1). aioapns 4.0
       never calls h2's ``acknowledge_received_data`` (open upstream PR
       Fatal1ty/aioapns#75), so every response body it receives shrinks that
       window for good; with nghttpd's 148-byte 404 bodies one connection
       would stall after ~440 responses (65,535 bytes). 2^31-1 bytes lasts for
       ~14 million such responses. No per-response acknowledgement is added.
   Against a server that already answers like APNs (apns-id echoed, 200 with
   no body, JSON reason on errors) the first three are no-ops. The cost is a
   few dict operations per response (about 1% of this process's CPU time
   under cProfile against nghttpd's 404s).

Not changed: aioapns's request building (headers incl. the JWT, json.dumps of
the payload), its stream/connection pool, its futures, the asyncio event loop
(the default one; no uvloop). aioapns's per-failure ``logger.error`` is
replaced by the public ``err_func`` hook (a no-op) so 404s are not logged one
line each. Unless --verbose, the "aioapns" logger goes to ERROR and to a
handler that keeps its first 3 distinct messages, printed to stderr only if
some sends raised.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import ipaddress
import json
import logging
import os
import platform
import ssl
import sys
import uuid
from importlib import metadata
from urllib.parse import urlsplit

EXPECTED_AIOAPNS = "4.0"

PAYLOAD = {
    "aps": {
        "alert": {"title": "Nghĩa", "body": "Bạn nhận được video"},
        "sound": "default",
        "badge": 3,
        "thread-id": "37791233165968",
        "category": "communications",
        "content-available": 1,
        "mutable-content": 1,
    }
}
TIME_TO_LIVE = 3600            # -> apns-expiration: now + 1 h
COLLAPSE_ID = "37791233165968"  # -> apns-collapse-id (the conversation)
PRIORITY = 10                   # -> apns-priority: 10


def die(message: str, code: int = 2) -> None:
    print(f"aioapns_send.py: {message}", file=sys.stderr)
    sys.exit(code)


# --- arguments ---------------------------------------------------------------

def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Send N APNs notifications with aioapns to a local HTTP/2 server "
                    "and print the rate (see the module docstring).")
    p.add_argument("--origin", required=True, help="https://127.0.0.1:PORT (loopback only)")
    p.add_argument("--ca-file", required=True, help="PEM CA (or self-signed cert) to trust")
    p.add_argument("--key-file", required=True, help="APNs auth key (.p8, EC P-256 PKCS#8 PEM)")
    p.add_argument("--key-id", required=True)
    p.add_argument("--team-id", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--count", type=int, required=True, help="notifications to send (N)")
    p.add_argument("--concurrency", type=int, default=100,
                   help="concurrent send_notification calls (C, default 100)")
    p.add_argument("--connections", type=int, default=1,
                   help="aioapns max_connections (K, default 1). aioapns opens another "
                        "connection only while every open one is at the server's "
                        "MAX_CONCURRENT_STREAMS, so K is an upper bound")
    p.add_argument("--seconds", type=float, default=60.0,
                   help="time limit (default 60); stop early when it runs out")
    p.add_argument("--max-connection-attempts", type=int, default=1,
                   help="aioapns max_connection_attempts (default 1: a failed send is "
                        "counted, not retried after aioapns's 1 s sleep)")
    p.add_argument("--payload-file", default=None,
                   help="JSON payload to send (default: the built-in seed payload); "
                        "bench/apns-vs-peers.sh passes the body pushgw renders, so every client sends the same bytes")
    p.add_argument("--any-version", action="store_true",
                   help=f"run with an aioapns other than {EXPECTED_AIOAPNS}")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="aioapns logging at INFO and run details, on stderr")
    a = p.parse_args(argv)
    for name in ("count", "concurrency", "connections", "max_connection_attempts"):
        if getattr(a, name) < 1:
            die(f"--{name.replace('_', '-')} must be at least 1")
    if not a.seconds > 0:
        die("--seconds must be positive")
    return a


def loopback_origin(origin: str) -> tuple[str, int]:
    parts = urlsplit(origin)
    if parts.scheme != "https" or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment or parts.username:
        die(f"--origin must look like https://127.0.0.1:PORT, got {origin!r}")
    host = parts.hostname
    try:
        port = parts.port or 443
    except ValueError:
        die(f"bad port in --origin {origin!r}")
    if host != "localhost":
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            die(f"refusing non-loopback origin {origin!r} (127.0.0.0/8, ::1 or localhost only)")
    return host, port


# --- patch 3: APNs-shaped responses (see the module docstring) ----------------

def make_shaped_connection_class(h2_connection_class):
    from h2.events import DataReceived, ResponseReceived, StreamEnded, StreamReset

    max_window = 2**31 - 1

    def data_event(stream_id: int, data: bytes):
        try:
            return DataReceived(stream_id=stream_id, data=data, flow_controlled_length=0)
        except TypeError:  # older h2: events take no constructor arguments
            event = DataReceived()
            event.stream_id, event.data, event.flow_controlled_length = stream_id, data, 0
            return event

    synthesized: dict[bytes, bytes] = {}  # status -> stand-in APNs error body

    def apns_error_body(status: bytes, body: bytes) -> bytes:
        if body[:1] == b"{":
            try:
                parsed = json.loads(body)
                if isinstance(parsed, dict) and parsed.get("reason"):
                    return bytes(body)
            except ValueError:
                pass
        stand_in = synthesized.get(status)
        if stand_in is None:
            reason = f"HTTP {status.decode('latin-1')} from a non-APNs server"
            stand_in = synthesized[status] = json.dumps({"reason": reason}).encode()
        return stand_in

    class APNsShapedH2Connection(h2_connection_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._sent_apns_ids: dict[int, str] = {}            # stream -> apns-id sent
            self._error_bodies: dict[int, tuple[bytes, bytearray]] = {}  # non-200 streams
            self._ok_streams: set[int] = set()                 # 200 streams (body dropped)

        def initiate_connection(self):
            super().initiate_connection()
            increment = max_window - self.inbound_flow_control_window
            if increment > 0:
                self.increment_flow_control_window(increment)

        def send_headers(self, stream_id, headers, *args, **kwargs):
            for name, value in headers:
                if name == "apns-id":
                    self._sent_apns_ids[stream_id] = value
                    break
            return super().send_headers(stream_id, headers, *args, **kwargs)

        def receive_data(self, data):
            shaped = []
            for event in super().receive_data(data):
                kind = type(event)
                if kind is ResponseReceived:
                    stream_id = event.stream_id
                    sent_id = self._sent_apns_ids.pop(stream_id, None)
                    status = b""
                    has_id = False
                    for name, value in event.headers:
                        if name == b":status":
                            status = value
                        elif name == b"apns-id":
                            has_id = True
                    if not has_id and sent_id is not None:
                        event.headers = list(event.headers) + [(b"apns-id", sent_id.encode())]
                    if status == b"200":
                        self._ok_streams.add(stream_id)
                    else:
                        self._error_bodies[stream_id] = (status, bytearray())
                    shaped.append(event)
                elif kind is DataReceived:
                    stream_id = event.stream_id
                    pending = self._error_bodies.get(stream_id)
                    if pending is not None:
                        pending[1].extend(event.data)
                    elif stream_id not in self._ok_streams:
                        shaped.append(event)  # not a response we track: leave it alone
                elif kind is StreamEnded:
                    stream_id = event.stream_id
                    pending = self._error_bodies.pop(stream_id, None)
                    if pending is not None:
                        shaped.append(data_event(stream_id, apns_error_body(*pending)))
                    self._ok_streams.discard(stream_id)
                    shaped.append(event)
                else:
                    if kind is StreamReset:
                        self._sent_apns_ids.pop(event.stream_id, None)
                        self._error_bodies.pop(event.stream_id, None)
                        self._ok_streams.discard(event.stream_id)
                    shaped.append(event)
            return shaped

    return APNsShapedH2Connection


# --- the run ----------------------------------------------------------------

def device_token(index: int) -> str:
    return hashlib.sha256(b"pushgw-bench-token-%d" % index).hexdigest()  # 64 hex


async def run(args) -> tuple[int, int, int, float, list[str], int, bool]:
    from aioapns import APNs, NotificationRequest, PushType

    ssl_context = ssl.create_default_context(cafile=args.ca_file)
    ssl_context.set_alpn_protocols(["h2"])
    assert ssl_context.verify_mode == ssl.CERT_REQUIRED and ssl_context.check_hostname

    async def ignore_error(_request, _result) -> None:  # public err_func hook
        return None

    with open(args.key_file, encoding="ascii") as f:
        key_pem = f.read()  # aioapns 4.0 takes the key text, not a path
    apns = APNs(
        key=key_pem,
        key_id=args.key_id,
        team_id=args.team_id,
        topic=args.topic,
        use_sandbox=False,
        max_connections=args.connections,
        max_connection_attempts=args.max_connection_attempts,
        ssl_context=ssl_context,
        err_func=ignore_error,
    )

    loop = asyncio.get_running_loop()
    count = args.count
    payload = PAYLOAD
    if args.payload_file:
        with open(args.payload_file, "rb") as handle:
            payload = json.loads(handle.read())
    next_index = 0
    ok = failed_responses = raised = 0
    errors: list[str] = []
    start = loop.time()
    deadline = start + args.seconds
    last_response = start
    max_open = 0

    async def worker() -> None:
        nonlocal next_index, ok, failed_responses, raised, last_response, max_open
        while next_index < count and loop.time() < deadline:
            index = next_index
            next_index += 1
            request = NotificationRequest(
                device_token=device_token(index),
                message=payload,
                notification_id=str(uuid.uuid4()),
                time_to_live=TIME_TO_LIVE,
                priority=PRIORITY,
                collapse_key=COLLAPSE_ID,
                push_type=PushType.ALERT,
            )
            try:
                result = await apns.send_notification(request)
            except Exception as e:  # no response (connection failed/closed, ...)
                raised += 1
                text = f"{type(e).__name__}: {e}".rstrip(": ")
                if len(errors) < 3 and text not in errors:
                    errors.append(text)
                continue
            last_response = loop.time()
            if result.is_successful:
                ok += 1
            else:
                failed_responses += 1
            open_now = len(apns.pool.connections)
            if open_now > max_open:
                max_open = open_now

    tasks = [asyncio.ensure_future(worker()) for _ in range(min(args.concurrency, count))]
    _done, pending = await asyncio.wait(tasks, timeout=args.seconds)
    cut = bool(pending)
    end = loop.time() if cut else last_response
    counted = ok, failed_responses, raised  # what finished in time; the rest is abandoned
    # Close the connections first: aioapns then fails the sends still in flight
    # with ConnectionClosed and their workers stop (the deadline has passed).
    # Cancelling them first would make aioapns's connection_lost call
    # set_exception on cancelled futures (InvalidStateError noise).
    apns.pool.close()
    if pending:
        _done, pending = await asyncio.wait(pending, timeout=1.0)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)
    await asyncio.sleep(0)
    return (*counted, max(end - start, 1e-9), errors, max_open, cut)


class FirstErrors(logging.Handler):
    """Keeps the first few distinct messages logged to it (aioapns's ERRORs)."""

    def __init__(self, keep: int = 3) -> None:
        super().__init__(logging.ERROR)
        self.keep = keep
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.messages) < self.keep:
            message = record.getMessage()
            if message not in self.messages:
                self.messages.append(message)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    host, port = loopback_origin(args.origin)
    for path in (args.ca_file, args.key_file):
        if not os.path.isfile(path):
            die(f"no such file: {path}")

    try:
        import aioapns.connection as connection
    except ImportError:
        die("aioapns is not installed in this Python (run bench/aioapns-setup.sh and use "
            "the python it prints)", 1)
    version = metadata.version("aioapns")
    if version != EXPECTED_AIOAPNS and not args.any_version:
        die(f"aioapns {version} installed, this script is written against "
            f"{EXPECTED_AIOAPNS} (--any-version to run anyway)", 1)

    # patch 1: where aioapns dials (and its host header)
    connection.APNsProductionClientProtocol.APNS_SERVER = host
    connection.APNsProductionClientProtocol.APNS_PORT = port
    # patch 3: APNs-shaped responses from a generic HTTP/2 server
    connection.H2Connection = make_shaped_connection_class(connection.H2Connection)
    # (patch 2, trust, goes through the public ssl_context= argument in run())

    logging.basicConfig(stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    aioapns_logger = logging.getLogger("aioapns")
    first_errors = FirstErrors()
    if args.verbose:
        aioapns_logger.setLevel(logging.INFO)
    else:  # keep aioapns's first few distinct ERROR lines for the note below
        aioapns_logger.setLevel(logging.ERROR)
        aioapns_logger.propagate = False
        aioapns_logger.addHandler(first_errors)

    ok, failed_responses, raised, elapsed, errors, max_open, cut = asyncio.run(run(args))

    responses = ok + failed_responses
    rate = responses / elapsed
    if raised:
        print(f"aioapns_send.py: {raised} sends raised instead of getting a response "
              f"(counted as failed, not in the rate); first: {'; '.join(errors)}",
              file=sys.stderr)
        for message in first_errors.messages:
            print(f"  aioapns logged: {message}", file=sys.stderr)
    if args.verbose:
        print(f"aioapns_send.py: {responses} responses in {elapsed:.3f} s, "
              f"{'stopped by --seconds' if cut else 'all sends finished'}, "
              f"concurrency {args.concurrency}, connections open (max seen) {max_open} "
              f"of max_connections {args.connections}", file=sys.stderr)
    print(f"aioapns: {rate:.0f} notifications/s ({ok} ok, {failed_responses + raised} failed, "
          f"aioapns {version}, Python {platform.python_version()})")
    return 0 if responses else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
