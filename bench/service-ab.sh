#!/usr/bin/env bash
# Two builds of the gateway side by side in one run: the same-run A/B behind
# BENCHMARKS.md's "before and after" tables. The box's speed drifts by up to
# ±40% within an hour, so a change is measured against its base with wrk
# alternating between the two, not against figures from another run.
#
# Each side is a gateway plus its own `pushgw simulators` process, on its own
# ports, configured as for real providers (the simulators' printed
# environment), release build with the Swift runtime linked statically. Each
# round runs wrk on A then on B: /v1/notify (bench/notify.lua: a fresh
# event_id per request, one APNs and one FCM device), /v1/render (the seed
# event) and /healthz. CPU comes from /proc/PID/stat (every thread, user and
# kernel time) of the gateway and of its simulators, per request. Round 1 is
# a warm-up and left out of the medians.
#
# Usage: bench/service-ab.sh [-r ROUNDS] [-s SECONDS] [-c CONNECTIONS] A B
#   A, B: a git revision (built in a temporary worktree) or the path of a
#         pushgw binary already built.
#   defaults: 4 rounds (3 counted), 8 s per figure, 64 connections.
# Needs: wrk (apt-get install -y wrk). Loopback only.
set -euo pipefail

rounds=4
seconds=8
connections=64
while getopts "r:s:c:" option; do
    case "$option" in
        r) rounds="$OPTARG" ;;
        s) seconds="$OPTARG" ;;
        c) connections="$OPTARG" ;;
        *) echo "usage: $0 [-r ROUNDS] [-s SECONDS] [-c CONNECTIONS] A B" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -ne 2 ]] || ! [[ "$rounds" =~ ^[0-9]+$ && "$rounds" -ge 2 ]] || ! [[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 ]]; then
    echo "usage: $0 [-r ROUNDS >= 2] [-s SECONDS >= 1] [-c CONNECTIONS] A B   (A, B: git revision or pushgw binary)" >&2
    exit 2
fi
command -v wrk >/dev/null || { echo "missing wrk: apt-get install -y wrk" >&2; exit 1; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
bench_setup service-ab
# The revisions' worktrees live under $work: once it is removed, pruning
# unregisters them.
bench_after_cleanup() { git -C "$root" worktree prune; }

# A revision is built in a worktree of its own; a binary is used as it is.
binary_for() {  # name spec
    if [[ -x "$2" && ! -d "$2" ]]; then
        echo "$2"
        return
    fi
    local tree="$work/tree-$1"
    git -C "$root" worktree add --detach --quiet "$tree" "$2" >&2
    echo "building $1 ($2)" >&2
    (cd "$tree" && swift build -c release --static-swift-stdlib --product pushgw >&2)
    echo "$(cd "$tree" && swift build -c release --static-swift-stdlib --show-bin-path)/pushgw"
}

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hertz="$(getconf CLK_TCK)"

measure() {  # side kind -> "rate gateway_us simulators_us"
    local side="$1" kind="$2"
    local port_var="port_$side" gateway_var="gateway_$side" simulators_var="simulators_$side"
    local port="${!port_var}" gateway="${!gateway_var}" simulators="${!simulators_var}"
    local url="http://127.0.0.1:$port" script=()
    case "$kind" in
        notify) url+="/v1/notify"; script=(-s "$here/notify.lua") ;;
        render) url+="/v1/render"; script=(-s "$here/render.lua") ;;
        healthz) url+="/healthz" ;;
    esac
    local g0 s0 g1 s1 out
    g0="$(ticks "$gateway")"; s0="$(ticks "$simulators")"
    out="$(PUSHGW_TOKEN="$(cat "$work/$side/tokens")" PUSHGW_EVENT="$root/fixtures/payloads/seed-chat-sdk.event.json" \
        wrk -t 2 -c "$connections" -d "${seconds}s" "${script[@]}" "$url" 2>&1)"
    g1="$(ticks "$gateway")"; s1="$(ticks "$simulators")"
    awk -v out="$out" -v g=$((g1 - g0)) -v s=$((s1 - s0)) -v hz="$hertz" -v secs="$seconds" 'BEGIN {
        n = split(out, lines, "\n"); rate = 0
        for (i = 1; i <= n; i++) if (lines[i] ~ /^Requests\/sec/) { split(lines[i], f, " "); rate = f[2] }
        requests = rate * secs
        if (requests == 0) { print "0 0 0"; exit }
        printf "%d %.1f %.1f\n", rate, g * 1e6 / hz / requests, s * 1e6 / hz / requests }'
}

bin_a="$(binary_for a "$1")"
bin_b="$(binary_for b "$2")"
start_gateway a "$bin_a"
start_gateway b "$bin_b"
sleep 0.5

declare -A results
for round in $(seq "$rounds"); do
    for kind in notify render healthz; do
        for side in a b; do
            read -r rate gateway_us simulators_us <<<"$(measure "$side" "$kind")"
            printf 'round %d  %-7s %s: %8s req/s   gateway %6s µs/req   simulators %6s µs/req\n' \
                "$round" "$kind" "$side" "$rate" "$gateway_us" "$simulators_us"
            if [[ $round -gt 1 ]]; then
                results[$kind.$side.rate]+=" $rate"
                results[$kind.$side.gateway]+=" $gateway_us"
                results[$kind.$side.simulators]+=" $simulators_us"
            fi
        done
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "medians of rounds 2-$rounds (A = $1, B = $2):"
for kind in notify render healthz; do
    for measure in rate gateway simulators; do
        [[ $kind == notify || $measure != simulators ]] || continue
        a="$(median <<<"${results[$kind.a.$measure]}")"
        b="$(median <<<"${results[$kind.b.$measure]}")"
        unit="µs/req"; [[ $measure == rate ]] && unit="req/s"
        awk -v k="$kind" -v m="$measure" -v a="$a" -v b="$b" -v u="$unit" 'BEGIN {
            printf "%-8s %-11s A %10s  B %10s %-7s (B/A %.2f)\n", k, m, a, b, u, (a > 0 ? b / a : 0) }'
    done
done
