#!/usr/bin/env bash
# Soak: the gateway in demo mode (built-in simulators) under a fixed event
# rate for a bounded time, RSS and open descriptors sampled. Loopback only.
# Usage: bench/soak.sh [SECONDS] [EVENTS_PER_SECOND]     (default 300 s, 500/s)
set -euo pipefail
seconds="${1:-300}"
rate="${2:-500}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/pushgw-soak.XXXXXX")"
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$root" && swift build -c release --product pushgw >&2)
token="$(openssl rand -hex 32)"
echo "$token" > "$work/tokens"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
PUSHGW_LISTEN="127.0.0.1:$port" PUSHGW_BEARER_TOKENS_FILE="$work/tokens" PUSHGW_LOG_LEVEL=error \
    "$root/.build/release/pushgw" > "$work/pushgw.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
python3 "$root/bench/soak.py" --url "http://127.0.0.1:$port" --token "$token" --pid "$pid" --seconds "$seconds" --rate "$rate"
kill -TERM "$pid"
wait "$pid" && echo "gateway exited cleanly after SIGTERM"
