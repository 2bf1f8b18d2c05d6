#!/usr/bin/env bash
# Sync /v1/notify with the fleet's Redis store against without it, side by
# side in one run (issue 24's first benchmark: the target is at least 70% of
# the rate without the store).
#
# One pushgw binary, two gateways, each with its own `pushgw simulators`
# process and ports, configured as for real providers: A with the
# in-process dedup window, B with PUSHGW_REDIS_URL pointing at a
# redis-server the script starts on 127.0.0.1 (no persistence, as the tests
# run it). Each event (bench/notify.lua: a fresh event_id, one APNs and one
# FCM device) costs B one claim script and one record script, pipelined on
# its event loop's connection. Each round runs wrk on A then on B; round 1
# is a warm-up left out of the medians. CPU per request from /proc/PID/stat
# (all threads, user and kernel) of the gateway, and of redis-server for B.
# Every answer must be 200 (wrk's non-2xx count is printed when not).
#
# Usage: bench/store-ab.sh [-r ROUNDS] [-s SECONDS] [-c CONNECTIONS] [PUSHGW]
#   PUSHGW: a pushgw binary (default: this tree's release build, made with
#           --static-swift-stdlib).
#   defaults: 4 rounds (3 counted), 8 s per figure, 64 connections.
# Needs: wrk and redis-server (scripts/install-deps). Loopback only.
set -euo pipefail

rounds=4
seconds=8
connections=64
while getopts "r:s:c:" option; do
    case "$option" in
        r) rounds="$OPTARG" ;;
        s) seconds="$OPTARG" ;;
        c) connections="$OPTARG" ;;
        *) echo "usage: $0 [-r ROUNDS] [-s SECONDS] [-c CONNECTIONS] [PUSHGW]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -gt 1 ]] || ! [[ "$rounds" =~ ^[0-9]+$ && "$rounds" -ge 2 ]] || ! [[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 ]]; then
    echo "usage: $0 [-r ROUNDS >= 2] [-s SECONDS >= 1] [-c CONNECTIONS] [PUSHGW]" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
require_tools "wrk redis-server" wrk redis-server redis-cli
bench_setup store-ab

bin="$(pushgw_binary "$@")"

start_redis

start_gateway a "$bin"
start_gateway b "$bin" PUSHGW_REDIS_URL="redis://127.0.0.1:$redis_port"
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port_b/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port_b/readyz" >/dev/null || { echo "gateway B is not ready on the store" >&2; exit 1; }

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hertz="$(getconf CLK_TCK)"

measure() {  # side -> "rate gateway_us redis_us non2xx"
    local side="$1"
    local port_var="port_$side" gateway_var="gateway_$side"
    local port="${!port_var}" gateway="${!gateway_var}"
    local g0 r0 g1 r1 out
    g0="$(ticks "$gateway")"; r0="$(ticks "$redis_pid")"
    out="$(PUSHGW_TOKEN="$(cat "$work/$side/tokens")" PUSHGW_EVENT="$root/fixtures/payloads/seed-chat-sdk.event.json" \
        wrk -t 2 -c "$connections" -d "${seconds}s" -s "$here/notify.lua" "http://127.0.0.1:$port/v1/notify" 2>&1)"
    g1="$(ticks "$gateway")"; r1="$(ticks "$redis_pid")"
    [[ $side == a ]] && r1="$r0"
    awk -v out="$out" -v g=$((g1 - g0)) -v r=$((r1 - r0)) -v hz="$hertz" -v secs="$seconds" 'BEGIN {
        n = split(out, lines, "\n"); rate = 0; bad = 0
        for (i = 1; i <= n; i++) {
            if (lines[i] ~ /^Requests\/sec/) { split(lines[i], f, " "); rate = f[2] }
            if (lines[i] ~ /Non-2xx/) { split(lines[i], f, ":"); bad = f[2] + 0 }
        }
        requests = rate * secs
        if (requests == 0) { print "0 0 0 " bad; exit }
        printf "%d %.1f %.1f %d\n", rate, g * 1e6 / hz / requests, r * 1e6 / hz / requests, bad }'
}

declare -A results
for round in $(seq "$rounds"); do
    for side in a b; do
        read -r rate gateway_us redis_us bad <<<"$(measure "$side")"
        label="without store"; [[ $side == b ]] && label="with Redis   "
        printf 'round %d  notify %s: %8s events/s   gateway %6s µs/event   redis-server %6s µs/event%s\n' \
            "$round" "$label" "$rate" "$gateway_us" "$redis_us" "$([[ $bad -gt 0 ]] && echo "   NON-2XX: $bad")"
        if [[ $round -gt 1 ]]; then
            results[$side.rate]+=" $rate"
            results[$side.gateway]+=" $gateway_us"
            results[$side.redis]+=" $redis_us"
        fi
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a="$(median <<<"${results[a.rate]}")"
b="$(median <<<"${results[b.rate]}")"
echo
echo "medians of rounds 2-$rounds:"
awk -v a="$a" -v b="$b" 'BEGIN { printf "notify events/s      without store %8s   with Redis %8s   (with / without %.0f%%)\n", a, b, (a > 0 ? 100 * b / a : 0) }'
printf 'gateway µs/event     without store %8s   with Redis %8s\n' "$(median <<<"${results[a.gateway]}")" "$(median <<<"${results[b.gateway]}")"
printf 'redis-server µs/event                           with Redis %8s\n' "$(median <<<"${results[b.redis]}")"
keys="$(redis-cli -p "$redis_port" dbsize)"
echo "keys in Redis at the end: $keys (records of the window; claims are released)"
