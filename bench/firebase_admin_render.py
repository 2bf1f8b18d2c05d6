#!/usr/bin/env python3
"""Benchmark peer for pushgw: firebase-admin rendering the same FCM v1 message.

For one chat event (the seed case below) this builds, per recipient, the
``firebase_admin.messaging.Message`` that pushgw renders, and turns it into the
HTTP request body bytes exactly the way firebase-admin does inside
``messaging.send``:

    messaging.send(message)
      -> _MessagingService.send(message, dry_run=False)
      -> _MessagingService._message_data(message, dry_run)
           == {'message': _MessagingService.encode_message(message)}
           (encode_message == _MessagingService.JSON_ENCODER.default(message),
            JSON_ENCODER being a firebase_admin._messaging_encoder.MessageEncoder)
      -> JsonHttpClient.body('post', url, json=data)  (requests)
      -> requests.models.PreparedRequest.prepare_body:
           requests.compat.json.dumps(data, allow_nan=False).encode('utf-8')

``render_body`` below performs the same three steps with the same objects and
stops before the HTTP layer. ``--verify`` proves it: it runs the real
``messaging.send`` against an app with a stub credential and a transport
adapter that captures the request instead of sending it, and checks that the
captured body is byte-identical to ``render_body``'s output.

No network is used at all: every socket connect and DNS lookup in this process
raises, and the measured path never creates a firebase App or credential.

Output (stdout, exactly one line):
    firebase-admin fcm: <N> recipients/s (Python <x.y.z>, firebase-admin <version>)
"""

from __future__ import annotations

import argparse
import platform
import socket
import sys
import time
import warnings


# --- no network, ever -------------------------------------------------------

class NetworkForbidden(RuntimeError):
    pass


def _forbid_network() -> None:
    """Make every outbound connection or name lookup in this process fail loudly."""

    def refuse(*_args, **_kwargs):
        raise NetworkForbidden("firebase_admin_render.py must not use the network")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]
    socket.gethostbyname = refuse  # type: ignore[assignment]
    socket.gethostbyname_ex = refuse  # type: ignore[assignment]


_forbid_network()

import firebase_admin  # noqa: E402  (imported after the network guard on purpose)
from firebase_admin import messaging  # noqa: E402
from firebase_admin.messaging import _MessagingService  # noqa: E402
from requests.compat import json as requests_json  # noqa: E402  (what requests uses for json=)

# firebase-admin >= 7.x deprecates Message.token in favour of Message.fid and
# calls warnings.warn on every Message(token=...). The call still runs (and is
# measured); we only keep it from printing.
warnings.filterwarnings("ignore", message=r"Message\.token is deprecated", category=DeprecationWarning)


# --- the seed event ---------------------------------------------------------

CONVERSATION_ID = "37791233165968"
TITLE = "🎧 Zalo - Tran Nghia"
MESSAGE_ID = "537"
KIND = "video"
TEXT = ""
BODY = "Nghĩa: Bạn nhận được video"
SENDER_ID = "6872016393687471"
SENDER_NAME = "Nghĩa"
AVATAR = ("https://thumb-i-1.piscale.com/64x64/smart/100001/"
          "c1cb0279-8286-40b8-9082-66f8593316c2/IMG_6546.jpeg")
TOKEN_PREFIX = "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1"
BADGE = 3
SOUND = "default"
IS_RTF = "false"
TTL_SECONDS = 86400


class EventParts:
    """The parts of the message that are the same for every recipient of one event.

    They are built once per event (as a gateway using firebase-admin would) and
    shared by every recipient's Message; everything that can differ per
    recipient (token, badge, and so the Aps/APNSPayload/APNSConfig around the
    badge) is built per recipient in ``build_message``.
    """

    def __init__(self) -> None:
        self.data = {
            "title": TITLE,
            "text": TEXT,
            "sender_id": SENDER_ID,
            "sender_name": SENDER_NAME,
            "avatar_url": AVATAR,
            "is_rtf": IS_RTF,
            "ps_thread_id": CONVERSATION_ID,
            "ps_message_id": MESSAGE_ID,
        }
        self.notification = messaging.Notification(title=TITLE, body=BODY)
        self.android = messaging.AndroidConfig(
            collapse_key=CONVERSATION_ID,
            priority="high",
            ttl=TTL_SECONDS,
        )
        self.notifee_options = {
            "ios": {
                "communicationInfo": {
                    "conversationId": CONVERSATION_ID,
                    "messageId": MESSAGE_ID,
                    "sender": {
                        "id": SENDER_ID,
                        "displayName": SENDER_NAME,
                        "avatar": AVATAR,
                    },
                    "groupName": TITLE,
                }
            }
        }


def build_message(ev: EventParts, token: str, badge: int, target: str = "token") -> messaging.Message:
    """One recipient's Message, through the public firebase-admin API only."""
    apns = messaging.APNSConfig(
        payload=messaging.APNSPayload(
            aps=messaging.Aps(
                badge=badge,
                sound=SOUND,
                category="communications",
                content_available=True,
                mutable_content=True,
            ),
            notifee_options=ev.notifee_options,  # -> APNSPayload.custom_data
        )
    )
    if target == "fid":
        return messaging.Message(
            data=ev.data, notification=ev.notification, android=ev.android, apns=apns, fid=token)
    return messaging.Message(
        data=ev.data, notification=ev.notification, android=ev.android, apns=apns, token=token)


# The exact callables messaging.send goes through (resolved once, like a method lookup).
_encode_message = _MessagingService.encode_message
_dumps = requests_json.dumps


def render_body(message: messaging.Message) -> bytes:
    """Message -> request body bytes, the way _MessagingService.send + requests do it."""
    data = {"message": _encode_message(message)}  # _MessagingService._message_data(message, False)
    body = _dumps(data, allow_nan=False)  # requests.models.PreparedRequest.prepare_body
    if not isinstance(body, bytes):
        body = body.encode("utf-8")
    return body


def make_tokens(n: int) -> list[str]:
    return [f"{TOKEN_PREFIX}{i:06d}" for i in range(n)]


def measure(seconds: float, target: str, pool: int = 4096, check_every: int = 64) -> tuple[int, float, int]:
    """Render recipients for about `seconds`; returns (recipients, elapsed, bytes)."""
    ev = EventParts()
    tokens = make_tokens(pool)
    # Warm-up, not counted.
    for t in tokens[:256]:
        render_body(build_message(ev, t, BADGE, target))

    count = 0
    total_bytes = 0
    i = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while True:
        for _ in range(check_every):
            total_bytes += len(render_body(build_message(ev, tokens[i], BADGE, target)))
            i += 1
            if i == pool:
                i = 0
        count += check_every
        now = clock()
        if now >= deadline:
            break
    return count, now - start, total_bytes


# --- verification of the code path against the real messaging.send -----------

def verify(target: str) -> None:
    """Run the real messaging.send offline and compare its body with render_body's."""
    import google.oauth2.credentials
    import requests
    from firebase_admin import credentials

    class StubCredential(credentials.Base):
        """A credential that already holds a (fake) token, so nothing is ever fetched."""

        def get_credential(self):
            return google.oauth2.credentials.Credentials(token="stub-access-token")

    captured: list[requests.PreparedRequest] = []

    class CaptureAdapter(requests.adapters.BaseAdapter):
        def send(self, request, **_kwargs):
            captured.append(request)
            resp = requests.Response()
            resp.status_code = 200
            resp._content = b'{"name": "projects/pushgw-bench/messages/0:1"}'
            resp.headers["Content-Type"] = "application/json"
            resp.request = request
            resp.url = request.url
            return resp

        def close(self):
            pass

    app = firebase_admin.initialize_app(
        StubCredential(), options={"projectId": "pushgw-bench"}, name="pushgw-bench-verify")
    try:
        service = messaging._get_messaging_service(app)
        # Replace the adapter firebase-admin mounted for FCM (longest prefix wins in requests).
        service._client.session.mount("https://fcm.googleapis.com", CaptureAdapter())
        ev = EventParts()
        token = make_tokens(1)[0]
        name = messaging.send(build_message(ev, token, BADGE, target), app=app)
        assert name == "projects/pushgw-bench/messages/0:1", name
        assert len(captured) == 1, captured
        sent = captured[0].body
        mine = render_body(build_message(ev, token, BADGE, target))
        if sent != mine:
            print("verify: MISMATCH", file=sys.stderr)
            print("  messaging.send: " + repr(sent), file=sys.stderr)
            print("  render_body:    " + repr(mine), file=sys.stderr)
            sys.exit(1)
        print(f"verify: messaging.send body == render_body body ({len(mine)} bytes), "
              f"POST {captured[0].url}", file=sys.stderr)
    finally:
        firebase_admin.delete_app(app)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0,
                    help="how long to measure (default 3)")
    ap.add_argument("--show", action="store_true",
                    help="print one sample encoded body to stderr")
    ap.add_argument("--verify", action="store_true",
                    help="check (offline) that the body is byte-identical to messaging.send's")
    ap.add_argument("--target", choices=("token", "fid"), default="token",
                    help="Message field for the recipient: token (wire field pushgw renders; "
                         "deprecated in firebase-admin 7.x) or fid (default token)")
    args = ap.parse_args(argv)
    if not args.seconds > 0:
        ap.error("--seconds must be > 0")

    if args.verify:
        verify(args.target)
    if args.show:
        sample = render_body(build_message(EventParts(), make_tokens(1)[0], BADGE, args.target))
        sys.stderr.write(sample.decode("utf-8") + "\n")
        sys.stderr.flush()

    count, elapsed, total_bytes = measure(args.seconds, args.target)
    rate = count / elapsed
    if args.show:
        print(f"({count} recipients in {elapsed:.3f} s, {total_bytes / count:.0f} bytes/body)",
              file=sys.stderr)
    print(f"firebase-admin fcm: {rate:.0f} recipients/s "
          f"(Python {platform.python_version()}, firebase-admin {firebase_admin.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
