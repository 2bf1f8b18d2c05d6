#!/usr/bin/env bash
# Direct web push sends/s: pushgw's sender (pushgw-bench webpush: RFC 8291
# encryption per message, the origin's cached VAPID JWT) on one core against
# the in-repo web push simulator, beside pywebpush (bench/webpush_send.py)
# sending the same plaintext to the same simulator, in one run.
#
# Usage: bench/webpush-vs-pywebpush.sh [SECONDS]      (default 5)
#
# Two simulators, each in its own process on the other core: one over
# HTTP/2, one over HTTP/1.1 (pywebpush speaks HTTP/1.1 only, through
# requests). pushgw sends to both (to the HTTP/1.1 one through its libcurl
# fallback), pywebpush to the HTTP/1.1 one. Client on CPU 0, simulators on
# CPU 1 (taskset).
#
# Needs pywebpush (pinned in scripts/python-requirements.txt) in the
# project's venv, ${XDG_CACHE_HOME:-~/.cache}/pushgw/venv.
#
# Environment:
#   PUSHGW_BENCH_BIN  use this pushgw-bench binary and skip the Swift build
set -euo pipefail

seconds="${1:-5}"
if ! [[ "$seconds" =~ ^[0-9]+([.][0-9]+)?$ ]] || [[ "$seconds" =~ ^0+([.]0+)?$ ]]; then
    echo "usage: $0 [SECONDS]  (a positive number, default 5)" >&2
    exit 2
fi
script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/.." && pwd)"
# shellcheck source=lib.sh
source "$script_dir/lib.sh"
python="${XDG_CACHE_HOME:-$HOME/.cache}/pushgw/venv/bin/python"
if ! "$python" -c 'import pywebpush' 2>/dev/null; then
    echo "error: pywebpush is not in $python's venv: run its pip install -r scripts/python-requirements.txt" >&2
    exit 1
fi
bin="${PUSHGW_BENCH_BIN:-}"
if [[ -z "$bin" ]]; then
    (cd "$repo_root" && swift build -c release --product pushgw-bench >&2)
    bin="$repo_root/.build/release/pushgw-bench"
fi

bench_setup webpush
mkdir -p "$work/h2" "$work/h1"
taskset -c 1 "$bin" webpush-simulator --dir "$work/h2" & pids+=($!)
taskset -c 1 "$bin" webpush-simulator --dir "$work/h1" --http11 yes & pids+=($!)
for dir in "$work/h2" "$work/h1"; do
    for _ in $(seq 100); do [[ -s "$dir/origin" ]] && break; sleep 0.1; done
    [[ -s "$dir/origin" ]] || { echo "error: the simulator in $dir did not start" >&2; exit 1; }
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
taskset -c 0 "$bin" webpush --dir "$work/h2" --seconds "$seconds" --concurrency 4 --batch 25
cp "$work/h2/plaintext.json" "$work/h1/plaintext.json"
taskset -c 0 "$bin" webpush --dir "$work/h1" --seconds "$seconds" --concurrency 4 --batch 25
taskset -c 0 "$python" "$script_dir/webpush_send.py" "$work/h1" "$seconds"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
