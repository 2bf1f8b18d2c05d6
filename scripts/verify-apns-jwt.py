#!/usr/bin/env python3
"""Verify an APNs provider token (ES256 JWT) with PyJWT, independently of pushgw.

Optional interop check, not run by CI. Needs PyJWT and cryptography, e.g.:

    python3 -m venv /tmp/jwt-venv
    /tmp/jwt-venv/bin/pip install pyjwt cryptography
    /tmp/jwt-venv/bin/python scripts/verify-apns-jwt.py TOKEN_FILE PUBLIC_KEY.pem

TOKEN_FILE holds the compact JWT ("-" reads standard input); PUBLIC_KEY.pem
is the SubjectPublicKeyInfo PEM (ES256SigningKey.publicKeyPEM).
Exits 0 and prints the header and claims when the token is valid.
"""

import argparse
import json
import re
import sys

import jwt  # PyJWT

APPLE_ID = re.compile(r"^[A-Z0-9]{10}$")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("token_file", help='file with the compact JWT, or "-" for stdin')
    parser.add_argument("public_key_pem", help="SubjectPublicKeyInfo PEM file")
    args = parser.parse_args()

    token = (sys.stdin.read() if args.token_file == "-" else open(args.token_file).read()).strip()
    with open(args.public_key_pem) as handle:
        public_key = handle.read()

    problems = []
    header = jwt.get_unverified_header(token)
    if header != {"alg": "ES256", "kid": header.get("kid")} or not APPLE_ID.match(str(header.get("kid"))):
        problems.append(f"header is not exactly {{alg: ES256, kid: <10 chars A-Z0-9>}}: {header}")

    try:
        # iat is checked as a number by PyJWT; APNs tokens carry no exp or aud.
        claims = jwt.decode(
            token,
            public_key,
            algorithms=["ES256"],
            options={"require": ["iss", "iat"], "verify_iat": True},
        )
    except jwt.InvalidTokenError as error:
        print(f"INVALID: {type(error).__name__}: {error}")
        return 1

    if set(claims) != {"iss", "iat"}:
        problems.append(f"claims are not exactly iss and iat: {sorted(claims)}")
    if not APPLE_ID.match(str(claims.get("iss"))):
        problems.append(f"iss is not 10 chars A-Z0-9: {claims.get('iss')!r}")
    if type(claims.get("iat")) is not int:
        problems.append(f"iat is not a JSON integer: {claims.get('iat')!r}")

    print("header:", json.dumps(header))
    print("claims:", json.dumps(claims))
    print("PyJWT", jwt.__version__)
    if problems:
        for problem in problems:
            print("PROBLEM:", problem)
        return 1
    print("OK: signature verified with ES256")
    return 0


if __name__ == "__main__":
    sys.exit(main())
