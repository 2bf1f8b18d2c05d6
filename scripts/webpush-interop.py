#!/usr/bin/env python3
"""Web push checked by other implementations than pushgw's.

Run by the WebPush tests from the virtual environment scripts/install-deps
makes (http_ece, py_vapid, cryptography; scripts/python-requirements.txt).
Each command reads one JSON object from the file named on the command line
(binary values in base64url) and prints one JSON object; a check that
fails prints why on standard error and exits 1.

  decrypt        {body, private_key, auth} -> {plaintext}
                 http_ece opens an aes128gcm message as the subscription's
                 browser would (private_key: the raw 32-byte P-256 scalar).
  encrypt        {plaintext, p256dh, auth} -> {body}
                 http_ece encrypts for a subscription, with its own fresh
                 sender key and salt.
  verify-vapid   {authorization, audience, subject, now} -> {header, claims}
                 py_vapid checks the JWT's ES256 signature with the public
                 key of the header's k; then the header and claims RFC 8292
                 asks for are checked here.
  vapid-public   {private_key} or {private_key_pem} -> {public_key}
                 py_vapid derives the public key of a VAPID private key.
"""

import base64
import json
import re
import sys

import http_ece
import py_vapid
import py_vapid.jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64u_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64u_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def private_key_from_raw(raw):
    return ec.derive_private_key(int.from_bytes(b64u_decode(raw), "big"), ec.SECP256R1())


def decrypt(request):
    plaintext = http_ece.decrypt(
        b64u_decode(request["body"]),
        private_key=private_key_from_raw(request["private_key"]),
        auth_secret=b64u_decode(request["auth"]),
        version="aes128gcm",
    )
    return {"plaintext": b64u_encode(plaintext)}


def encrypt(request):
    import os

    sender = ec.generate_private_key(ec.SECP256R1())
    body = http_ece.encrypt(
        b64u_decode(request["plaintext"]),
        salt=os.urandom(16),
        private_key=sender,
        dh=b64u_decode(request["p256dh"]),
        auth_secret=b64u_decode(request["auth"]),
        version="aes128gcm",
    )
    return {"body": b64u_encode(body)}


AUTHORIZATION = re.compile(r"^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$")


def verify_vapid(request):
    match = AUTHORIZATION.match(request["authorization"])
    if not match:
        raise Failure("not 'vapid t=<JWT>, k=<key>': " + request["authorization"])
    token, key = match.groups()
    # Checks the raw R||S ES256 signature with the key from k; raises on a bad one.
    claims = py_vapid.jwt.decode(token, key)
    header = json.loads(b64u_decode(token.split(".")[0]))
    problems = []
    if header != {"typ": "JWT", "alg": "ES256"}:
        problems.append("header %r is not {typ: JWT, alg: ES256}" % header)
    if set(claims) != {"aud", "exp", "sub"}:
        problems.append("claims %r are not exactly aud, exp, sub" % sorted(claims))
    if claims.get("aud") != request["audience"]:
        problems.append("aud %r is not %r" % (claims.get("aud"), request["audience"]))
    if claims.get("sub") != request["subject"]:
        problems.append("sub %r is not %r" % (claims.get("sub"), request["subject"]))
    exp, now = claims.get("exp"), request["now"]
    if not isinstance(exp, int) or not now < exp <= now + 24 * 3600:
        problems.append("exp %r is not within 24 h after %d" % (exp, now))
    if len(b64u_decode(key)) != 65:
        problems.append("k is not a 65-byte uncompressed point")
    if problems:
        raise Failure("; ".join(problems))
    return {"header": header, "claims": claims}


def vapid_public(request):
    if "private_key_pem" in request:
        vapid = py_vapid.Vapid.from_pem(request["private_key_pem"].encode("ascii"))
    else:
        vapid = py_vapid.Vapid.from_raw(request["private_key"].encode("ascii"))
    point = vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {"public_key": b64u_encode(point)}


class Failure(Exception):
    pass


COMMANDS = {"decrypt": decrypt, "encrypt": encrypt, "verify-vapid": verify_vapid, "vapid-public": vapid_public}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in COMMANDS:
        print("usage: webpush-interop.py {%s} REQUEST.json" % ",".join(COMMANDS), file=sys.stderr)
        return 2
    with open(sys.argv[2]) as handle:
        request = json.load(handle)
    try:
        answer = COMMANDS[sys.argv[1]](request)
    except Exception as error:  # every failure is the check's verdict
        print("%s: %s: %s" % (sys.argv[1], type(error).__name__, error), file=sys.stderr)
        return 1
    json.dump(answer, sys.stdout, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
