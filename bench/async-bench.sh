#!/usr/bin/env bash
# The async queue on the fleet's Redis store (issue 24's second benchmark):
# how fast `POST /v1/notify?mode=async` queues events (answers 202), beside
# sync notify on the same gateway in the same run, and how long a queued
# event takes to reach the providers at a fixed rate (p50/p99).
#
# One gateway with PUSHGW_REDIS_URL pointing at a redis-server the script
# starts on 127.0.0.1 (no persistence, as the tests run it), its own
# `pushgw simulators` process, configured as for real providers. Each event
# (bench/notify.lua: a fresh event_id, one APNs and one FCM device):
#
# - rate: each round runs wrk on sync notify, then on async notify, then
#   waits until the queue is empty again (XLEN of the apps' streams: each
#   event is deleted from its stream once acknowledged),
#   so every round starts from an empty queue and the async figure is the
#   rate of 202s while the same gateway's consumer sends what was queued.
#   The time to empty the queue gives the rate the consumer keeps up
#   (events queued / (wrk's seconds + drain seconds)). Round 1 is a warm-up
#   left out of the medians.
# - latency: bench/async_latency.py sends at each fixed rate (two sending
#   and four polling kept-alive connections) and times each event from its
#   POST until GET /v1/events/{event_id} first answers "done" (an upper bound on
#   queue-to-provider latency: the status is "done" after the send, the
#   record and the acknowledgement, and it is seen up to one poll sweep
#   late). It prints how far its sender fell behind the schedule: above
#   100 ms the rate was not held (a busy box, or the client saturated).
#
# Usage: bench/async-bench.sh [-r ROUNDS] [-s SECONDS] [-c CONNECTIONS] [-R "RATES"] [-l SECONDS] [PUSHGW]
#   PUSHGW: a pushgw binary (default: this tree's release build, made with
#           --static-swift-stdlib).
#   defaults: 4 rounds (3 counted), 8 s per rate figure, 64 connections,
#             fixed rate 200 events/s for 10 s (-R "200 1000" for both).
# Needs: wrk, redis-server, python3 (scripts/install-deps). Loopback only.
set -euo pipefail

rounds=4
seconds=8
connections=64
rates="200"
latency_seconds=10
usage="usage: $0 [-r ROUNDS >= 2] [-s SECONDS] [-c CONNECTIONS] [-R \"RATES\"] [-l SECONDS] [PUSHGW]"
while getopts "r:s:c:R:l:" option; do
    case "$option" in
        r) rounds="$OPTARG" ;;
        s) seconds="$OPTARG" ;;
        c) connections="$OPTARG" ;;
        R) rates="$OPTARG" ;;
        l) latency_seconds="$OPTARG" ;;
        *) echo "$usage" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -gt 1 ]] || ! [[ "$rounds" =~ ^[0-9]+$ && "$rounds" -ge 2 ]] || ! [[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 ]]; then
    echo "$usage" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
require_tools "wrk redis-server python3" wrk redis-server redis-cli python3
bench_setup async-bench

bin="$(pushgw_binary "$@")"

start_redis

start_gateway g "$bin" PUSHGW_REDIS_URL="redis://127.0.0.1:$redis_port"
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port_g/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port_g/readyz" >/dev/null || { echo "the gateway is not ready on the store" >&2; exit 1; }
token="$(cat "$work/g/tokens")"
event="$root/fixtures/payloads/seed-chat-sdk.event.json"

queue_length() {  # events queued and not yet acknowledged (XDEL follows each XACK), all apps
    local key sum=0
    for key in $(redis-cli -p "$redis_port" --scan --pattern '*:events'); do
        sum=$((sum + $(redis-cli -p "$redis_port" xlen "$key")))
    done
    echo "$sum"
}

run_wrk() {  # path -> "rate non2xx"
    PUSHGW_TOKEN="$token" PUSHGW_EVENT="$event" PUSHGW_PATH="$1" \
        wrk -t 2 -c "$connections" -d "${seconds}s" -s "$here/notify.lua" "http://127.0.0.1:$port_g/v1/notify" 2>&1 \
        | awk '/^Requests\/sec/ { rate = $2 } /Non-2xx/ { split($0, f, ":"); bad = f[2] + 0 } END { printf "%d %d\n", rate, bad }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A results
for round in $(seq "$rounds"); do
    read -r sync_rate sync_bad <<<"$(run_wrk /v1/notify)"
    read -r async_rate async_bad <<<"$(run_wrk '/v1/notify?mode=async')"
    drain_start="$(date +%s.%N)"
    for _ in $(seq 1200); do [[ "$(queue_length)" == 0 ]] && break; sleep 0.05; done
    left="$(queue_length)"
    drain="$(awk -v a="$drain_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
    kept="$(awk -v r="$async_rate" -v s="$seconds" -v d="$drain" 'BEGIN { printf "%d", r * s / (s + d) }')"
    printf 'round %d  sync %7s events/s   async queued %7s events/s (202)   queue emptied %5s s later: sent %7s events/s%s%s\n' \
        "$round" "$sync_rate" "$async_rate" "$drain" "$kept" \
        "$([[ $sync_bad -gt 0 || $async_bad -gt 0 ]] && echo "   NON-2XX: $sync_bad sync, $async_bad async")" \
        "$([[ $left != 0 ]] && echo "   QUEUE NOT EMPTY: $left")"
    if [[ $round -gt 1 ]]; then
        results[sync]+=" $sync_rate"
        results[async]+=" $async_rate"
        results[kept]+=" $kept"
    fi
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "medians of rounds 2-$rounds:"
printf 'sync notify %s events/s   async queued (202) %s events/s   async sent (queue emptied) %s events/s\n' \
    "$(median <<<"${results[sync]}")" "$(median <<<"${results[async]}")" "$(median <<<"${results[kept]}")"
echo
echo "queued to done (POST start to the first GET /v1/events/{id} answering done; ms):"
for rate in $rates; do
    line="$(PUSHGW_TOKEN="$token" python3 "$here/async_latency.py" "$port_g" "$rate" "$latency_seconds" "$event")" || {
        echo "at $rate events/s: failed ($line)" >&2; exit 1; }
    echo "at $rate events/s: $line"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
