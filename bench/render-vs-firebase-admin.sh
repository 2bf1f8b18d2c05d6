#!/usr/bin/env bash
# Side-by-side render benchmark: pushgw's Swift renderer vs firebase-admin's
# message encoder (bench/firebase_admin_render.py), measured in one run.
#
# Usage: bench/render-vs-firebase-admin.sh [SECONDS]      (default 3)
#
# Steps:
#   1. a throwaway venv at ${TMPDIR:-/tmp}/pushgw-bench-venv with firebase-admin
#      (created and filled only if missing),
#   2. swift build -c release --product pushgw-bench (from the repo root),
#   3. .build/release/pushgw-bench render --seconds S, then the Python peer,
#   4. ratio fcm swift/firebase-admin.
#
# Environment:
#   PYTHON            interpreter used to create the venv (default python3)
#   PUSHGW_BENCH_BIN  use this pushgw-bench binary and skip the Swift build
#                     (for testing this script; normally unset)
set -euo pipefail

seconds="${1:-3}"
if ! [[ "$seconds" =~ ^[0-9]+([.][0-9]+)?$ ]] || [[ "$seconds" =~ ^0+([.]0+)?$ ]]; then
    echo "usage: $0 [SECONDS]  (a positive number, default 3)" >&2
    exit 2
fi

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/.." && pwd)"
venv="${TMPDIR:-/tmp}/pushgw-bench-venv"

# 1. Python venv with firebase-admin.
if [[ ! -x "$venv/bin/python" ]]; then
    echo "creating venv $venv" >&2
    if ! "${PYTHON:-python3}" -m venv "$venv" >&2; then
        echo "error: '${PYTHON:-python3} -m venv' failed (on Debian: apt-get install python3-venv)" >&2
        rm -rf "$venv"
        exit 1
    fi
fi
if ! "$venv/bin/python" -c 'import firebase_admin' 2>/dev/null; then
    echo "installing firebase-admin into $venv" >&2
    "$venv/bin/python" -m pip install -q firebase-admin >&2
fi

# 2. Swift benchmark binary.
if [[ -n "${PUSHGW_BENCH_BIN:-}" ]]; then
    swift_bin="$PUSHGW_BENCH_BIN"
    echo "using PUSHGW_BENCH_BIN=$swift_bin (Swift build skipped)" >&2
else
    echo "building pushgw-bench (release)" >&2
    (cd "$repo_root" && swift build -c release --product pushgw-bench) >&2
    swift_bin="$repo_root/.build/release/pushgw-bench"
fi
if [[ ! -x "$swift_bin" ]]; then
    echo "error: $swift_bin is missing or not executable" >&2
    exit 1
fi

# 3. Both measurements, one after the other, same duration.
swift_out="$("$swift_bin" render --seconds "$seconds")"
printf '%s\n' "$swift_out"

# Pull <N> out of "render <kind>: <N> recipients/s"; fail if the line is absent.
rate_of() {
    local label="$1" text="$2" rate
    rate="$(awk -v label="$label" '
        $0 ~ "^" label ": [0-9]+([.][0-9]+)? recipients/s" { split($0, a, ": "); split(a[2], b, " "); print b[1]; exit }
    ' <<<"$text")"
    if [[ -z "$rate" ]]; then
        echo "error: no '$label: <N> recipients/s' line in output:" >&2
        printf '%s\n' "$text" >&2
        return 1
    fi
    printf '%s\n' "$rate"
}

swift_fcm="$(rate_of "render fcm" "$swift_out")"
rate_of "render apns" "$swift_out" >/dev/null   # must be present too; reported above

py_out="$("$venv/bin/python" "$script_dir/firebase_admin_render.py" --seconds "$seconds")"
printf '%s\n' "$py_out"
py_fcm="$(rate_of "firebase-admin fcm" "$py_out")"

# 4. Ratio.
awk -v s="$swift_fcm" -v p="$py_fcm" 'BEGIN {
    if (p <= 0) { print "error: firebase-admin rate is zero" > "/dev/stderr"; exit 1 }
    printf "ratio fcm swift/firebase-admin: %.1fx\n", s / p
}'
