#!/usr/bin/env python3
"""Web push messages made by well-known implementations, for the tests.

Reads one JSON request on standard input and writes one JSON answer:

    {"p256dh": "<base64url>", "auth": "<base64url>",
     "messages": [{"plaintext": "<base64url>", "rs": 4096}, ...],
     "tokens": [{"header": {...}, "claims": {...}}, ...],
     "py_vapid_claims": {...}}

    {"bodies": ["<base64url>", ...],          # http_ece aes128gcm (RFC 8291)
     "vapid_public_key": "<base64url>",       # the VAPID key, uncompressed point
     "tokens": ["<JWT>", ...],                # ES256 over exactly the given header
                                              # and claims (cryptography), so tests
                                              # can make invalid ones
     "py_vapid_authorization": "vapid t=...,k=..."}   # py_vapid's Vapid02

Every message gets a fresh sender key and salt, as RFC 8291 requires.
"""
import base64
import json
import sys

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from py_vapid import Vapid02


def b64u_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def b64u_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def jwt(private_key, header: dict, claims: dict) -> str:
    signing_input = (
        b64u_encode(json.dumps(header, separators=(",", ":")).encode())
        + "."
        + b64u_encode(json.dumps(claims, separators=(",", ":")).encode())
    )
    der = private_key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    return signing_input + "." + b64u_encode(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def main() -> None:
    request = json.load(sys.stdin)
    answer = {}
    if "p256dh" in request:
        receiver = b64u_decode(request["p256dh"])
        auth = b64u_decode(request["auth"])
        bodies = []
        for message in request.get("messages", []):
            sender = ec.generate_private_key(ec.SECP256R1())
            body = http_ece.encrypt(
                b64u_decode(message["plaintext"]),
                private_key=sender,
                dh=receiver,
                auth_secret=auth,
                rs=message.get("rs", 4096),
                version="aes128gcm",
            )
            bodies.append(b64u_encode(body))
        answer["bodies"] = bodies
    vapid = Vapid02()
    vapid.generate_keys()
    answer["vapid_public_key"] = b64u_encode(
        vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )
    answer["tokens"] = [
        jwt(vapid.private_key, token.get("header", {"typ": "JWT", "alg": "ES256"}), token["claims"])
        for token in request.get("tokens", [])
    ]
    if "py_vapid_claims" in request:
        answer["py_vapid_authorization"] = vapid.sign(request["py_vapid_claims"])["Authorization"]
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
