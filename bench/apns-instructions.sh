#!/usr/bin/env bash
# Instructions per request of the APNs client, pushgw's against h2load's,
# on 1 and 4 connections, counted by valgrind's callgrind (every thread of
# the client, user space): a figure that does not drift with the shared
# box, unlike a rate. The server is Debian's nghttpd on 127.0.0.1 with a
# throwaway certificate (not counted; it answers every POST with a 404
# page), or with --server simulator the in-repo APNs simulator (not
# counted; it answers 200 with an apns-id, the path a gateway mostly
# takes). Headers, body, JWT and the 500 device paths are those of
# bench/apns-vs-peers.sh: `pushgw-bench apns --count N` (8 senders per
# connection, batches of 100) against `h2load -n N -m 100`.
#
# Each client runs for N and for 3N requests; the figure is
# (count at 3N - count at N) / 2N, which cancels start-up (key, rendering,
# handshake) and warm-up. With --calls, it also prints the calls per
# request to retain/release, malloc/free and a few others, from the same
# callgrind output (the `calls=` lines under each `cfn=`).
#
# Usage: bench/apns-instructions.sh [-n N] [--calls] [--only pushgw|h2load] [--server nghttpd|simulator]
#                                    [--keep DIR] [BINARY]
#   --keep DIR: the callgrind outputs are moved there (for callgrind_annotate).
#   BINARY: a pushgw-bench linked with --static-swift-stdlib (default: this
#   tree's, built so first). Default N: 20000: about half a minute per
#   client and connection count here, about two minutes in all.
# swift_retain's count includes the retains swift_bridgeObjectRetain makes
# (a string or array with heap storage); swift_release's likewise.
# Needs: valgrind nghttp2-server nghttp2-client openssl binutils (objcopy).
# valgrind 3.19 cannot read the Swift runtime's debug info: the binary is
# linked with the Swift libraries in it and measured from a copy without
# debug info (objcopy --strip-debug). Loopback only.
set -euo pipefail

count=20000
calls=0
only=""
keep=""
server=nghttpd
binary=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -n) count="$2"; shift 2 ;;
        --calls) calls=1; shift ;;
        --only) only="$2"; shift 2 ;;
        --keep) keep="$2"; shift 2 ;;
        --server) server="$2"; shift 2 ;;
        -*) echo "usage: $0 [-n N] [--calls] [--only pushgw|h2load] [--server nghttpd|simulator] [--keep DIR] [BINARY]" >&2; exit 2 ;;
        *) binary="$1"; shift ;;
    esac
done
if ! [[ "$count" =~ ^[0-9]+$ && "$count" -ge 100 && "$count" -le 1000000 ]] || ! [[ "$only" =~ ^(|pushgw|h2load)$ ]] \
    || ! [[ "$server" =~ ^(nghttpd|simulator)$ ]] || [[ -n "$keep" && ! -d "$keep" ]]; then
    echo "usage: $0 [-n N, 100..1000000] [--calls] [--only pushgw|h2load] [--server nghttpd|simulator] [--keep DIR] [BINARY]" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
require_tools "valgrind nghttp2-server nghttp2-client openssl binutils" valgrind nghttpd h2load openssl objcopy
bench_setup apns-instructions

if [[ -z "$binary" ]]; then
    (cd "$root" && swift build -c release --static-swift-stdlib --product pushgw-bench >&2)
    binary="$(cd "$root" && swift build -c release --static-swift-stdlib --show-bin-path)/pushgw-bench"
fi
objcopy --strip-debug "$binary" "$work/pushgw-bench"
bench="$work/pushgw-bench"

apns_throwaway_keys
port="$(free_port)"
origin="https://127.0.0.1:$port"
if [[ $server == nghttpd ]]; then
    start_nghttpd "$port"
    ca="$work/server.crt"
    sleep 0.5
else
    (cd "$root" && swift build -c release --product apns-simulator >&2)
    start_apns_simulator "$port" "$root/.build/release/apns-simulator"
    ca="$work/simulator-ca.pem"
fi
jwt="$("$bench" jwt --key-file "$work/key.p8" --key-id "$key_id" --team-id "$team_id")"
"$bench" payload > "$work/payload.json"
for index in $(seq 0 499); do printf '%s/3/device/%064x\n' "$origin" "$index"; done > "$work/uris.txt"

# Runs one client under callgrind; prints the output file's name.
profile() {  # client connections requests
    local out="$work/callgrind.$1.$2.$3"
    if [[ $1 == pushgw ]]; then
        timeout 1800 valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" apns --origin "$origin" \
            --ca-file "$ca" --key-file "$work/key.p8" --key-id "$key_id" --team-id "$team_id" --topic "$topic" \
            --connections "$2" --concurrency $(( 8 * $2 )) --batch 100 --seconds 600 --count "$3" > "$out.log" 2>&1
        grep -q "^apns: .*($3 completed" "$out.log" || { echo "pushgw-bench did not complete $3 requests:" >&2; cat "$out.log" >&2; exit 1; }
    else
        timeout 1800 valgrind --tool=callgrind --callgrind-out-file="$out" h2load -n "$3" -c "$2" -m 100 -t 1 \
            -d "$work/payload.json" -i "$work/uris.txt" \
            -H "authorization: bearer $jwt" -H "apns-topic: $topic" -H "apns-push-type: alert" -H "apns-priority: 10" \
            -H "apns-expiration: 0" -H "apns-id: 6b2a4c8e-1f3d-4e5a-9b7c-0d1e2f3a4b5c" \
            -H "apns-collapse-id: 37791233165968:537" > "$out.log" 2>&1
        grep -q "requests: $3 total, $3 started, $3 done" "$out.log" || { echo "h2load did not complete $3 requests:" >&2; cat "$out.log" >&2; exit 1; }
    fi
    echo "$out"
}

# The total instruction count of a callgrind output.
total() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }

# Calls per request to each function of interest: (calls at 3N - calls at N) / 2N.
call_table() {  # output-at-N output-at-3N
    python3 - "$1" "$2" "$count" <<'EOF'
import re, sys
def calls(path):
    names, counts, callee = {}, {}, None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("fn=", "cfn=")):
                # Names are compressed: "(id) name" the first time, "(id)" after,
                # in one table for callers and callees.
                text = line.split("=", 1)[1].rstrip("\n")
                m = re.match(r"\((\d+)\)(?: (.*))?$", text)
                if m:
                    if m.group(2) is not None: names[m.group(1)] = m.group(2)
                    text = names.get(m.group(1))
                if line.startswith("cfn="): callee = text
            elif line.startswith("calls=") and callee is not None:
                counts[callee] = counts.get(callee, 0) + int(line[6:].split()[0])
                callee = None
    return counts
low, high, n = calls(sys.argv[1]), calls(sys.argv[2]), int(sys.argv[3])
watched = ["swift_retain", "swift_release", "swift_bridgeObjectRetain", "swift_bridgeObjectRelease",
           "swift_allocObject", "swift_deallocObject", "malloc", "free", "realloc", "calloc", "posix_memalign",
           "aligned_alloc",
           "swift_beginAccess", "memcpy", "memmove"]
for name in watched:
    per = (high.get(name, 0) - low.get(name, 0)) / (2 * n)
    print(f"    {name:45s} {per:8.2f}")
EOF
}

results=""
for client in pushgw h2load; do
    [[ -z "$only" || "$only" == "$client" ]] || continue
    for connections in 1 4; do
        low="$(profile "$client" "$connections" "$count")"
        high="$(profile "$client" "$connections" $(( 3 * count )))"
        per=$(( ($(total "$high") - $(total "$low")) / (2 * count) ))
        line="$(printf '%-8s %d connection(s): %8d instructions per request' "$client" "$connections" "$per")"
        echo "$line" >&2
        results+="$line"$'\n'
        if (( calls )); then
            table="$(call_table "$low" "$high")"
            echo "$table" >&2
            results+="    calls per request:"$'\n'"$table"$'\n'
        fi
        if [[ -n "$keep" ]]; then mv "$low" "$high" "$keep/"; else rm -f "$low" "$high"; fi
    done
done
printf '\n(server %s, N = %d; (count at 3N - count at N) / 2N)\n%s' "$server" "$count" "$results"
