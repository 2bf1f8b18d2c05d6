#!/usr/bin/env bash
# Throwaway venv with aioapns 4.0 for bench/aioapns_send.py (the aioapns peer of
# pushgw's APNs HTTP/2 client benchmark). Idempotent: creates the venv only if
# it is missing and installs only if the pinned aioapns is not already there.
#
# Usage: bench/aioapns-setup.sh          prints the venv's python path on stdout
#                                        (progress goes to stderr)
#
# Environment:
#   PUSHGW_AIOAPNS_VENV  venv directory (default /tmp/pushgw-aioapns-venv)
#   PYTHON               interpreter used to create the venv (default python3)
#
# aioapns_send.py patches aioapns internals documented at its top, so the
# version is pinned to the one it was written against.
set -euo pipefail

aioapns_version="4.0"
venv="${PUSHGW_AIOAPNS_VENV:-/tmp/pushgw-aioapns-venv}"
python="$venv/bin/python"

if [[ ! -x "$python" ]]; then
    echo "creating venv $venv" >&2
    rm -rf "$venv"
    if ! "${PYTHON:-python3}" -m venv "$venv" >&2; then
        echo "error: '${PYTHON:-python3} -m venv' failed (on Debian: apt-get install python3-venv)" >&2
        rm -rf "$venv"
        exit 1
    fi
fi

installed="$("$python" -c 'from importlib.metadata import version; print(version("aioapns"))' 2>/dev/null || true)"
if [[ "$installed" != "$aioapns_version" ]]; then
    echo "installing aioapns==$aioapns_version into $venv${installed:+ (found $installed)}" >&2
    "$python" -m pip install -q --disable-pip-version-check "aioapns==$aioapns_version" >&2
    "$python" -c 'import aioapns, h2, jwt' >&2
fi

printf '%s\n' "$python"
