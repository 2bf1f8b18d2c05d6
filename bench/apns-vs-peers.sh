#!/usr/bin/env bash
# APNs sending benchmark, side by side in one run, loopback only:
#   servers: the in-repo strict simulator (apns-simulator) and Debian's nghttpd
#   clients: pushgw's APNsClient (1 and 4 connections), h2load (the ceiling:
#            nghttp2's own load generator, same headers and body, the same 500
#            device paths) and aioapns 4.0
# Concurrency: h2load keeps 100 streams open per connection (-m 100; more
# does not make it faster); pushgw runs 8 senders per connection, each
# sending batches of 100 (a busy gateway has many events in flight).
# Threads: on 4 connections each client runs twice per round, with one
# thread and with two (h2load -t 1 and -t 2; pushgw --loops 1 and its pool's
# default, one event loop per two connections), and its faster run is its
# figure for the round: which is faster depends on the server (two for the
# simulator's thread per connection, one for single-threaded nghttpd, on a
# box whose two cores the server shares), for both clients alike, and
# the ceiling is h2load at its best. Every run's rate is printed.
#
# Usage: bench/apns-vs-peers.sh [SECONDS] [ROUNDS]   (default 5 s per figure, 3 rounds)
# h2load and pushgw alternate, ROUNDS times each (this VM's speed drifts by
# ±20% within minutes); the table gives each one's median, then the median
# of the rounds' own ratios (each round runs the two back to back, so it is
# the figure the drift moves least). Each round's own ratio is printed too,
# with the CPU per send of each client and of the server it talks to (every
# thread, user and kernel), which drift far less than the rates. aioapns,
# far slower, runs once.
# PIN=1 puts each server on CPU 0 and every client on CPU 1 (taskset), so
# that a client's threads never take turns with the server's on one core:
# the figures then compare what each client asks of the server and of its
# own core. Unset (the default) both share the two cores as the scheduler
# decides.
# Needs: nghttp2-server nghttp2-client (apt), python3-venv; installs aioapns in a
# throwaway venv via bench/aioapns-setup.sh.
set -euo pipefail

seconds="${1:-5}"
rounds="${2:-3}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
require_tools "nghttp2-server nghttp2-client openssl" nghttpd h2load openssl
bench_setup apns-bench
results=""

python="$("$here/aioapns-setup.sh")"

# PUSHGW_BENCH_BIN and APNS_SIMULATOR_BIN: binaries already built (another
# revision's, for a before-and-after comparison); unset, this tree's.
bench="${PUSHGW_BENCH_BIN:-$root/.build/release/pushgw-bench}"
simulator="${APNS_SIMULATOR_BIN:-$root/.build/release/apns-simulator}"
if [[ -z "${PUSHGW_BENCH_BIN:-}" || -z "${APNS_SIMULATOR_BIN:-}" ]]; then
    echo "building (release)" >&2
    (cd "$root" && swift build -c release --product pushgw-bench >&2 && swift build -c release --product apns-simulator >&2)
fi

apns_throwaway_keys
nghttpd_port="$(free_port)"
simulator_port="$(free_port)"
start_nghttpd "$nghttpd_port"
start_apns_simulator "$simulator_port" "$simulator"
# With PIN=1: servers on CPU 0 (every thread, and the threads they start), clients on CPU 1.
client_cpu=()
if [[ -n "${PIN:-}" ]]; then
    require_tools util-linux taskset
    taskset -a -cp 0 "$nghttpd_pid" >/dev/null
    taskset -a -cp 0 "$simulator_pid" >/dev/null
    client_cpu=(taskset -c 1)
fi
sleep 0.5

jwt="$("$bench" jwt --key-file "$work/key.p8" --key-id "$key_id" --team-id "$team_id")"
"$bench" payload > "$work/payload.json"   # the exact body pushgw sends (816 bytes)

# Runs a client (its output in $work/out) and prints its CPU and the
# server's, in clock ticks / seconds: "CLIENT_SECONDS SERVER_TICKS".
measured() {  # server-pid command...
    local server="$1" before after TIMEFORMAT='%U %S'
    shift
    before="$(awk '{ print $14 + $15 }' "/proc/$server/stat")"
    local status=0
    { time "$@" > "$work/out" 2> "$work/err" || status=$?; } 2> "$work/time"
    after="$(awk '{ print $14 + $15 }' "/proc/$server/stat")"
    # A client that fails says why here (its rate then reads 0).
    if (( status != 0 )); then echo "${*:1:3} exited with status $status: $(tail -c 600 "$work/err")" >&2; fi
    echo "$(awk '{ print $1 + $2 }' "$work/time") $((after - before))"
}
# "RATE CLIENT_US SERVER_US": sends per second, and the client's and the
# server's CPU per send in microseconds (every thread, user and kernel).
per_send() {  # rate sends client-seconds server-ticks
    awk -v rate="$1" -v n="$2" -v c="$3" -v t="$4" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%d %.2f %.2f\n", rate, c * 1e6 / n, t * 1e6 / hz / n }'
}
h2load_rate() {  # origin ca connections server-pid threads
    local count=$(( 30000 * seconds )) cpu
    # The devices pushgw-bench renders: 64 hex digits, the index at the end.
    for index in $(seq 0 499); do printf '%s/3/device/%064x\n' "$1" "$index"; done > "$work/uris.txt"
    cpu="$(measured "$4" "${client_cpu[@]}" h2load -n "$count" -c "$3" -m 100 -t "$5" -D "$seconds" -d "$work/payload.json" -i "$work/uris.txt" \
        -H "authorization: bearer $jwt" -H "apns-topic: $topic" -H "apns-push-type: alert" -H "apns-priority: 10" \
        -H "apns-expiration: 0" -H "apns-id: 6b2a4c8e-1f3d-4e5a-9b7c-0d1e2f3a4b5c" \
        -H "apns-collapse-id: 37791233165968:537")"
    # shellcheck disable=SC2086
    per_send "$(awk '/^finished in/ { gsub(",", "", $4); print int($4) }' "$work/out")" \
        "$(awk '/^requests:/ { print $6 }' "$work/out")" $cpu
}
pushgw_rate() {  # origin ca connections server-pid loops (0: the pool's own, one per two connections)
    local cpu
    cpu="$(measured "$4" "${client_cpu[@]}" "$bench" apns --origin "$1" --ca-file "$2" --key-file "$work/key.p8" --key-id "$key_id" \
        --team-id "$team_id" --topic "$topic" --connections "$3" --loops "$5" --concurrency $(( 8 * $3 )) --batch 100 \
        --seconds "$seconds")"
    # shellcheck disable=SC2086
    per_send "$(awk '{ print $2 }' "$work/out")" "$(sed -n 's/.*(\([0-9]*\) completed.*/\1/p' "$work/out")" $cpu
}
aioapns_rate() {  # origin ca
    "${client_cpu[@]}" "$python" "$here/aioapns_send.py" --origin "$1" --ca-file "$2" --key-file "$work/key.p8" --key-id "$key_id" \
        --team-id "$team_id" --topic "$topic" --count 1000000 --concurrency 100 --connections 1 --seconds "$seconds" \
        --payload-file "$work/payload.json" \
        | awk '{ print $2 }'
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

for server in simulator nghttpd; do
    if [[ $server == simulator ]]; then origin="https://127.0.0.1:$simulator_port"; ca="$work/simulator-ca.pem"; server_pid=$simulator_pid
    else origin="https://127.0.0.1:$nghttpd_port"; ca="$work/server.crt"; server_pid=$nghttpd_pid; fi
    h1s=""; h4s=""; p1s=""; p4s=""; r1s=""; r4s=""; h4t1s=""; h4t2s=""; p4t1s=""; p4t2s=""
    for round in $(seq "$rounds"); do
        read -r h1 h1c h1s_cpu < <(h2load_rate "$origin" "$ca" 1 "$server_pid" 1)
        read -r p1 p1c p1s_cpu < <(pushgw_rate "$origin" "$ca" 1 "$server_pid" 0)
        # 4 connections: one thread, then two, for each client (see the top).
        read -r h4t1 h4t1c h4t1s_cpu < <(h2load_rate "$origin" "$ca" 4 "$server_pid" 1)
        read -r p4t1 p4t1c p4t1s_cpu < <(pushgw_rate "$origin" "$ca" 4 "$server_pid" 1)
        read -r h4t2 h4t2c h4t2s_cpu < <(h2load_rate "$origin" "$ca" 4 "$server_pid" 2)
        read -r p4t2 p4t2c p4t2s_cpu < <(pushgw_rate "$origin" "$ca" 4 "$server_pid" 0)
        if (( h4t1 >= h4t2 )); then h4=$h4t1 h4c=$h4t1c h4s_cpu=$h4t1s_cpu; else h4=$h4t2 h4c=$h4t2c h4s_cpu=$h4t2s_cpu; fi
        if (( p4t1 >= p4t2 )); then p4=$p4t1 p4c=$p4t1c p4s_cpu=$p4t1s_cpu; else p4=$p4t2 p4c=$p4t2c p4s_cpu=$p4t2s_cpu; fi
        h1s+=" $h1"; h4s+=" $h4"; p1s+=" $p1"; p4s+=" $p4"; h4t1s+=" $h4t1"; h4t2s+=" $h4t2"; p4t1s+=" $p4t1"; p4t2s+=" $p4t2"
        # Each round's own ratio, in tenths of a percent (h2load and pushgw ran back to back).
        # A round where h2load failed (rate 0) has no ratio.
        if (( h1 > 0 )); then r1s+=" $(( 1000 * p1 / h1 ))"; fi
        if (( h4 > 0 )); then r4s+=" $(( 1000 * p4 / h4 ))"; fi
        awk -v p1="$p1" -v p4="$p4" -v h1="$h1" -v h4="$h4" -v s="$server" -v r="$round" 'BEGIN {
            printf "%-28s round %d: h2load %d / %d, pushgw %d / %d (%.0f%% / %.0f%%)\n", s, r, h1, h4, p1, p4, h1 ? 100*p1/h1 : 0, h4 ? 100*p4/h4 : 0 }'
        printf '%-28s          4 conn, 1 / 2 threads: h2load %d / %d, pushgw %d / %d\n' "" "$h4t1" "$h4t2" "$p4t1" "$p4t2"
        printf '%-28s          CPU us/send, 1 / 4 conn: client h2load %s / %s, pushgw %s / %s; server with h2load %s / %s, with pushgw %s / %s\n' \
            "" "$h1c" "$h4c" "$p1c" "$p4c" "$h1s_cpu" "$h4s_cpu" "$p1s_cpu" "$p4s_cpu"
    done
    a1="$(aioapns_rate "$origin" "$ca")"
    results+="$server $(median <<<"$h1s") $(median <<<"$h4s") $(median <<<"$p1s") $(median <<<"$p4s") $a1 $(median <<<"$r1s") $(median <<<"$r4s")"
    results+=" $(median <<<"$h4t1s") $(median <<<"$h4t2s") $(median <<<"$p4t1s") $(median <<<"$p4t2s")"$'\n'
done

printf '\n%-28s %-10s %12s %12s   (medians of %s rounds; 4 conn: in each round the faster of 1 and 2 threads)\n' \
    server client "1 conn /s" "4 conn /s" "$rounds"
while read -r server h1 h4 p1 p4 a1 r1 r4 h4t1 h4t2 p4t1 p4t2; do
    [[ -n "$server" ]] || continue
    printf '%-28s %-10s %12s %12s\n' "$server" h2load "$h1" "$h4"
    printf '%-28s %-10s %12s %12s\n' "$server" pushgw "$p1" "$p4"
    printf '%-28s %-10s %12s %12s\n' "$server" aioapns "$a1" "-"
    awk -v p1="$p1" -v p4="$p4" -v h1="$h1" -v h4="$h4" -v a1="$a1" -v s="$server" 'BEGIN {
        printf "%-28s pushgw/h2load: %.0f%% (1 conn), %.0f%% (4 conn); pushgw/aioapns: %.1fx (1 conn)\n", s, h1 ? 100*p1/h1 : 0, h4 ? 100*p4/h4 : 0, a1 ? p1/a1 : 0 }'
    awk -v r1="$r1" -v r4="$r4" -v s="$server" 'BEGIN {
        printf "%-28s median of the rounds\047 own ratios: %.0f%% (1 conn), %.0f%% (4 conn)\n", s, r1 / 10, r4 / 10 }'
    printf '%-28s 4 conn by threads (medians), 1 / 2: h2load %s / %s, pushgw %s / %s\n' "$server" "$h4t1" "$h4t2" "$p4t1" "$p4t2"
done <<<"$results"
