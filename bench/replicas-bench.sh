#!/usr/bin/env bash
# One against two against three gateway replicas on this box, side by side
# in one run (issue 24's third benchmark): sync /v1/notify with the fleet's
# Redis store, the load spread evenly over the replicas.
#
# One redis-server (127.0.0.1, no persistence, as the tests run it) and one
# `pushgw simulators` process (one APNs and one FCM simulator, as a fleet
# shares the real providers); three gateways started on them with the same
# settings, each with PUSHGW_REDIS_URL, so they share dedup, the APNs
# provider token and the queue. All three run throughout; a figure for N
# replicas drives the first N, one wrk each (one thread, CONNECTIONS / N
# connections, so the total is the same), at once, and adds their rates.
# Each round measures 1, 2 and 3 replicas in turn; round 1 is a warm-up left
# out of the medians. CPU per event from /proc/PID/stat (all threads, user
# and kernel) of all the gateways, of redis-server, and of the simulators.
# Every answer must be 200 (wrk's non-2xx count is printed when not).
#
# On one machine this shows what replicas cost, not what they add: the
# cores are shared by the replicas, Redis, the simulators and wrk.
#
# Usage: bench/replicas-bench.sh [-r ROUNDS] [-s SECONDS] [-c CONNECTIONS] [PUSHGW]
#   PUSHGW: a pushgw binary (default: this tree's release build, made with
#           --static-swift-stdlib).
#   defaults: 4 rounds (3 counted), 8 s per figure, 66 connections.
# Needs: wrk and redis-server (scripts/install-deps). Loopback only.
set -euo pipefail

rounds=4
seconds=8
connections=66
while getopts "r:s:c:" option; do
    case "$option" in
        r) rounds="$OPTARG" ;;
        s) seconds="$OPTARG" ;;
        c) connections="$OPTARG" ;;
        *) echo "usage: $0 [-r ROUNDS] [-s SECONDS] [-c CONNECTIONS] [PUSHGW]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -gt 1 ]] || ! [[ "$rounds" =~ ^[0-9]+$ && "$rounds" -ge 2 ]] || ! [[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 ]] \
    || ! [[ "$connections" =~ ^[0-9]+$ && "$connections" -ge 3 ]]; then
    echo "usage: $0 [-r ROUNDS >= 2] [-s SECONDS >= 1] [-c CONNECTIONS >= 3] [PUSHGW]" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
require_tools "wrk redis-server" wrk redis-server redis-cli
bench_setup replicas-bench

bin="$(pushgw_binary "$@")"

start_redis

"$bin" simulators --env-file "$work/simulators.env" > "$work/simulators.log" 2>&1 &
simulators_pid=$!
pids+=("$simulators_pid")
for _ in $(seq 100); do [[ -s "$work/simulators.env" ]] && break; sleep 0.1; done
[[ -s "$work/simulators.env" ]] || { echo "pushgw simulators did not start (see $work/simulators.log)" >&2; exit 1; }
token="$(openssl rand -hex 32)"
echo "$token" > "$work/tokens"

replica_ports=()
replica_pids=()
for replica in 1 2 3; do
    port="$(free_port)"
    # shellcheck disable=SC1091
    (source "$work/simulators.env"
     PUSHGW_LISTEN="127.0.0.1:$port" PUSHGW_BEARER_TOKENS_FILE="$work/tokens" PUSHGW_LOG_LEVEL=error \
         PUSHGW_REDIS_URL="redis://127.0.0.1:$redis_port" exec "$bin" > "$work/pushgw-$replica.log" 2>&1) &
    replica_pids+=("$!")
    pids+=("$!")
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { echo "replica $replica is not ready (see $work/pushgw-$replica.log)" >&2; exit 1; }
    replica_ports+=("$port")
done

ticks() { local sum=0 pid; for pid in "$@"; do sum=$((sum + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); done; echo "$sum"; }
hertz="$(getconf CLK_TCK)"

measure() {  # replicas -> "rate gateways_us redis_us simulators_us non2xx"
    local count="$1" index g0 r0 s0 g1 r1 s1 wrk_pids=()
    local per=$((connections / count))
    g0="$(ticks "${replica_pids[@]}")"; r0="$(ticks "$redis_pid")"; s0="$(ticks "$simulators_pid")"
    for index in $(seq 0 $((count - 1))); do
        PUSHGW_TOKEN="$token" wrk -t 1 -c "$per" -d "${seconds}s" -s "$here/notify.lua" \
            "http://127.0.0.1:${replica_ports[$index]}/v1/notify" > "$work/wrk-$index.out" 2>&1 &
        wrk_pids+=("$!")
    done
    wait "${wrk_pids[@]}"
    g1="$(ticks "${replica_pids[@]}")"; r1="$(ticks "$redis_pid")"; s1="$(ticks "$simulators_pid")"
    cat "$work"/wrk-[0-$((count - 1))].out | awk -v g=$((g1 - g0)) -v r=$((r1 - r0)) -v s=$((s1 - s0)) -v hz="$hertz" -v secs="$seconds" '
        /^Requests\/sec/ { rate += $2 }
        /Non-2xx/ { split($0, f, ":"); bad += f[2] }
        END {
            requests = rate * secs
            if (requests == 0) { print "0 0 0 0 " bad + 0; exit }
            printf "%d %.1f %.1f %.1f %d\n", rate, g * 1e6 / hz / requests, r * 1e6 / hz / requests, s * 1e6 / hz / requests, bad }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A results
for round in $(seq "$rounds"); do
    for count in 1 2 3; do
        rm -f "$work"/wrk-*.out
        read -r rate gateways_us redis_us simulators_us bad <<<"$(measure "$count")"
        printf 'round %d  %d replica(s): %8s events/s   gateways %6s µs/event   redis-server %5s µs/event   simulators %5s µs/event%s\n' \
            "$round" "$count" "$rate" "$gateways_us" "$redis_us" "$simulators_us" "$([[ $bad -gt 0 ]] && echo "   NON-2XX: $bad")"
        if [[ $round -gt 1 ]]; then
            results[$count.rate]+=" $rate"
            results[$count.gateways]+=" $gateways_us"
            results[$count.redis]+=" $redis_us"
            results[$count.simulators]+=" $simulators_us"
        fi
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "medians of rounds 2-$rounds:"
one="$(median <<<"${results[1.rate]}")"
for count in 1 2 3; do
    rate="$(median <<<"${results[$count.rate]}")"
    printf '%d replica(s): %8s events/s (%3.0f%% of one)   gateways %6s µs/event   redis-server %5s µs/event   simulators %5s µs/event\n' \
        "$count" "$rate" "$(awk -v a="$rate" -v b="$one" 'BEGIN { print (b > 0 ? 100 * a / b : 0) }')" \
        "$(median <<<"${results[$count.gateways]}")" "$(median <<<"${results[$count.redis]}")" "$(median <<<"${results[$count.simulators]}")"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
