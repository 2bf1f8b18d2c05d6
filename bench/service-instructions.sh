#!/usr/bin/env bash
# Instructions per request of the whole gateway process (every thread, user
# space), counted by valgrind's callgrind: a figure that does not drift with
# the box, unlike a rate (±40% within an hour here), so a change of a few
# percent shows. Side by side in the same run with the same exchange served
# by libmicrohttpd alone in C (bench/mhd-hello.c: the library's own share,
# the floor of any server built on it).
#
# Each request is sent one after another on one kept-alive connection
# (bench/sequential_client.py, every answer checked), N and then 3N of them;
# the figure is (count for 3N - count for N) / 2N, which cancels start-up and
# warm-up. /v1/notify sends for real to the strict simulators (one APNs and
# one FCM device, a fresh event_id each), which run natively in their own
# process and are not counted.
#
# Caveat: valgrind counts each repetition of a `rep stos` as an instruction,
# so libmicrohttpd's zeroing of a connection's 16 KiB memory pool between
# requests counts as about 16,000 for every server here (it takes a few
# hundred cycles); compare the columns, not the figures with a CPU's.
#
# Usage: bench/service-instructions.sh [-n N] [A [B]]
#   A, B: a git revision (built in a temporary worktree) or a pushgw binary;
#   none: the working tree. Default N: 500.
# Needs: valgrind gcc libmicrohttpd-dev (apt-get install -y valgrind gcc libmicrohttpd-dev). Loopback only.
set -euo pipefail

count=500
while getopts "n:" option; do
    case "$option" in
        n) count="$OPTARG" ;;
        *) echo "usage: $0 [-n N] [A [B]]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -gt 2 ]] || ! [[ "$count" =~ ^[0-9]+$ && "$count" -ge 1 ]]; then
    echo "usage: $0 [-n N >= 1] [A [B]]   (A, B: git revision or pushgw binary; none: the working tree)" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
require_tools "valgrind gcc libmicrohttpd-dev" valgrind callgrind_control gcc
bench_setup service-instructions
bench_after_cleanup() { git -C "$root" worktree prune; }
event="$root/fixtures/payloads/seed-chat-sdk.event.json"

# valgrind 3.19 gives up on the Swift runtime's debug info: every binary is
# measured as a copy without it.
binary_for() {  # name spec
    local built
    if [[ -z "$2" ]]; then
        echo "building $1 (working tree)" >&2
        (cd "$root" && swift build -c release --static-swift-stdlib --product pushgw >&2)
        built="$(cd "$root" && swift build -c release --static-swift-stdlib --show-bin-path)/pushgw"
    elif [[ -x "$2" && ! -d "$2" ]]; then
        built="$2"
    else
        local tree="$work/tree-$1"
        git -C "$root" worktree add --detach --quiet "$tree" "$2" >&2
        echo "building $1 ($2)" >&2
        (cd "$tree" && swift build -c release --static-swift-stdlib --product pushgw >&2)
        built="$(cd "$tree" && swift build -c release --static-swift-stdlib --show-bin-path)/pushgw"
    fi
    objcopy --strip-debug "$built" "$work/pushgw-$1"
    echo "$work/pushgw-$1"
}

names=()
specs=()
if [[ $# -eq 0 ]]; then names=(pushgw); specs=(""); fi
if [[ $# -ge 1 ]]; then names+=(A); specs+=("$1"); fi
if [[ $# -ge 2 ]]; then names+=(B); specs+=("$2"); fi
binaries=()
for index in "${!names[@]}"; do binaries+=("$(binary_for "${names[$index]}" "${specs[$index]}")"); done

# The providers: one simulators process for every side, never counted.
"${binaries[0]}" simulators --env-file "$work/simulators.env" > "$work/simulators.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -s "$work/simulators.env" ]] && break; sleep 0.1; done
[[ -s "$work/simulators.env" ]] || { echo "pushgw simulators did not start (see $work/simulators.log)" >&2; exit 1; }
openssl rand -hex 32 > "$work/tokens"
export PUSHGW_TOKEN
PUSHGW_TOKEN="$(cat "$work/tokens")"

# Starts `$@` under callgrind, with the environment `VAR=value` words in
# $counted_env added, and waits for PORT to answer /healthz; sets $counted
# (its pid) and $dumps (the prefix of its dump files).
counted_env=()
start_counted() {  # name port command...
    local name="$1" port="$2"
    shift 2
    dumps="$work/callgrind-$name"
    env "${counted_env[@]}" valgrind --tool=callgrind --callgrind-out-file="$dumps" "$@" > "$work/$name.log" 2>&1 &
    counted=$!
    pids+=("$counted")
    for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return; sleep 0.2; done
    echo "$name did not start under valgrind (see $work/$name.log)" >&2
    exit 1
}

# Instructions counted while sending N requests: zero, send, dump, read the newest dump's total.
counted_while() {  # n port path [event]
    callgrind_control -z "$counted" >/dev/null
    python3 "$here/sequential_client.py" "$2" "$1" "$3" ${4:+"$4"} || { echo "the requests to $3 failed" >&2; exit 1; }
    callgrind_control -d "$counted" >/dev/null
    sleep 0.5
    awk '/^totals:/ { print $2 }' "$(ls -t "$dumps".* | head -1)"
}

per_request() {  # port path [event]
    python3 "$here/sequential_client.py" "$1" 100 "$2" ${3:+"$3"} >/dev/null  # warm
    local once thrice
    once="$(counted_while "$count" "$@")"
    thrice="$(counted_while $((3 * count)) "$@")"
    echo $(((thrice - once) / (2 * count)))
}

# The simulators' printed settings (`export NAME=value` lines, no quoting needed: temporary paths and URLs).
mapfile -t gateway_env < <(sed -n 's/^export //p' "$work/simulators.env")
declare -A figures
stop_counted() { kill "$counted" 2>/dev/null || true; wait "$counted" 2>/dev/null || true; }

for index in "${!names[@]}"; do
    name="${names[$index]}"
    port="$(free_port)"
    echo "counting $name" >&2
    counted_env=("${gateway_env[@]}" "PUSHGW_LISTEN=127.0.0.1:$port" "PUSHGW_BEARER_TOKENS_FILE=$work/tokens" PUSHGW_LOG_LEVEL=error)
    start_counted "$name" "$port" "${binaries[$index]}"
    counted_env=()
    [[ -f "$work/render-answer.json" ]] || curl -sf -H "Authorization: Bearer $PUSHGW_TOKEN" --data-binary "@$event" \
        -o "$work/render-answer.json" "http://127.0.0.1:$port/v1/render"
    figures[$name,healthz]="$(per_request "$port" /healthz)"
    figures[$name,render]="$(per_request "$port" /v1/render "$event")"
    figures[$name,notify]="$(per_request "$port" /v1/notify "$event")"
    stop_counted
done

echo "counting libmicrohttpd alone (C)" >&2
gcc -O2 -o "$work/mhd-hello" "$here/mhd-hello.c" -lmicrohttpd
for answer in healthz render; do
    port="$(free_port)"
    if [[ $answer == healthz ]]; then
        start_counted "mhd-$answer" "$port" "$work/mhd-hello" "$port"
        figures[mhd,healthz]="$(per_request "$port" /healthz)"
    else
        start_counted "mhd-$answer" "$port" "$work/mhd-hello" "$port" "$work/render-answer.json"
        figures[mhd,render]="$(per_request "$port" /v1/render "$event")"
    fi
    stop_counted
done

printf '\ninstructions per request (callgrind, %d and %d requests)\n' "$count" $((3 * count))
printf '%-28s %14s %14s %14s\n' "" "/healthz" "/v1/render" "/v1/notify"
printf '%-28s %14s %14s %14s\n' "libmicrohttpd alone (C)" "${figures[mhd,healthz]}" "${figures[mhd,render]}" "-"
for index in "${!names[@]}"; do
    name="${names[$index]}"
    label="pushgw${specs[$index]:+ $name (${specs[$index]})}"
    printf '%-28s %14s %14s %14s\n' "${label:0:28}" "${figures[$name,healthz]}" "${figures[$name,render]}" "${figures[$name,notify]}"
done
