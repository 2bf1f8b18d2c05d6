#!/usr/bin/env bash
# The HTTP service under wrk, side by side with nginx `return 200` (the
# ceiling of a static answer on this box), loopback only, everything on one
# machine. Reports requests/s, latency, CPU per request (the server's own,
# every thread, user and kernel; and the whole box's: client, kernel and
# server, so that 2 cores / the box's figure is the rate at full load) and
# pushgw's peak RSS. The CPU figures show where a rate gap comes from: the
# box's share drifts with the machine, the server's share much less. The
# last column counts how often the server's threads were preempted per
# request: on a shared box the slower side is the bottleneck, the load
# generator waits on it, and each answer wakes a wrk thread that takes the
# server's CPU (two context switches the faster servers rarely pay).
#
# pushgw is built as it is deployed (release, Swift runtime and Foundation
# linked statically) and configured for its providers exactly as for real
# ones; the providers are the built-in strict simulators, run in their own
# process by `pushgw simulators`, so the RSS measured is the gateway's own.
#
# Usage: bench/service-vs-nginx.sh [SECONDS] [CONNECTIONS]    (default 10 s, 64)
# Needs: wrk nginx gcc libmicrohttpd-dev (apt-get install -y wrk nginx-light gcc libmicrohttpd-dev)
set -euo pipefail

seconds="${1:-10}"
connections="${2:-64}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
require_tools "wrk nginx-light" wrk nginx
bench_setup service-bench

echo "building (release, static Swift runtime)" >&2
(cd "$root" && swift build -c release --static-swift-stdlib --product pushgw >&2)
bin="$(cd "$root" && swift build -c release --static-swift-stdlib --show-bin-path)/pushgw"

nginx_port="$(free_port)"
start_gateway main "$bin"
pushgw_port="$port_main"
pushgw_pid="$gateway_main"
token="$(cat "$work/main/tokens")"
sleep 0.5

# The same exchange without pushgw's work: pushgw's own /v1/render answer to
# the seed event, served as fixed bytes to the same POST by nginx and by
# libmicrohttpd in C. What pushgw costs above these rows is its own CPU per
# request (auth, decode, render, report), not the HTTP library's.
event="$root/fixtures/payloads/seed-chat-sdk.event.json"
curl -sf -H "Authorization: Bearer $token" -H 'Content-Type: application/json' --data-binary "@$event" \
    -o "$work/render-answer.json" "http://127.0.0.1:$pushgw_port/v1/render"
python3 - "$work/render-answer.json" "$work/render-answer.nginx" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
if "$" in text:
    sys.exit("the render answer holds a '$', which nginx would read as a variable")
open(sys.argv[2], "w", encoding="utf-8").write("'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'")
PY

mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<CONF
worker_processes auto;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $work/nginx;
    server {
        listen 127.0.0.1:$nginx_port;
        location = /v1/render { default_type application/json; return 200 $(cat "$work/render-answer.nginx"); }
        location / { return 200 '{"ok":true}'; }
    }
}
CONF
/usr/sbin/nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
nginx_pid=$!
pids+=("$nginx_pid")

# libmicrohttpd alone, in C, configured like pushgw's HTTP layer: the
# library's own ceiling, so pushgw's cost above it is visible; once with
# /healthz's answer, once with the render answer.
gcc -O2 -o "$work/mhd-hello" "$here/mhd-hello.c" -lmicrohttpd
mhd_port="$(free_port)"
"$work/mhd-hello" "$mhd_port" &
mhd_pid=$!
pids+=("$mhd_pid")
mhd_render_port="$(free_port)"
"$work/mhd-hello" "$mhd_render_port" "$work/render-answer.json" &
mhd_render_pid=$!
pids+=("$mhd_render_pid")
for port in "$nginx_port" "$mhd_port" "$mhd_render_port"; do
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
done
for port in "$nginx_port" "$mhd_render_port"; do
    curl -sf --data-binary "@$event" "http://127.0.0.1:$port/v1/render" | cmp -s - "$work/render-answer.json" \
        || { echo "the server on port $port does not answer the render bytes" >&2; exit 1; }
done

rate() { awk '/^Requests\/sec/ { print int($2) }'; }
latency() { awk '/^ +Latency/ { print $2 }'; }
# CPU time in clock ticks: of the processes given (every thread, user and
# kernel), and of the whole box (every state but idle and iowait).
ticks_of() { local total=0 pid; for pid in "$@"; do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); done; echo "$total"; }
box_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
# Times the scheduler took the CPU from the processes' threads while they
# could still run (involuntary context switches, every thread).
preemptions_of() {
    local pid; for pid in "$@"; do cat /proc/"$pid"/task/*/status; done | awk '/^nonvoluntary_ctxt_switches/ { n += $2 } END { print n + 0 }'
}
hz="$(getconf CLK_TCK)"
run() {  # name url script|"" server-pid...
    local name="$1" url="$2" script="$3" out before box_before after box_after requests preempted_before preempted_after
    shift 3
    before="$(ticks_of "$@")"; box_before="$(box_ticks)"; preempted_before="$(preemptions_of "$@")"
    if [[ -n "$script" ]]; then
        out="$(PUSHGW_TOKEN="$token" PUSHGW_EVENT="$event" \
            wrk -t 2 -c "$connections" -d "${seconds}s" -s "$script" "$url" 2>&1)"
    else
        out="$(wrk -t 2 -c "$connections" -d "${seconds}s" "$url" 2>&1)"
    fi
    after="$(ticks_of "$@")"; box_after="$(box_ticks)"; preempted_after="$(preemptions_of "$@")"
    requests="$(awk '/requests in/ { print $1 }' <<<"$out")"
    # CPU per request, in microseconds: the server's own, and the whole box's
    # (client, kernel and server: at full load, 2 cores / this = the rate);
    # and how often the server was preempted per request.
    printf '%-34s %10s req/s   avg latency %-9s server CPU %5s us/req   box CPU %5s us/req   server preempted %6s /req\n' \
        "$name" "$(rate <<<"$out")" "$(latency <<<"$out")" \
        "$(awk -v t=$((after - before)) -v r="$requests" -v hz="$hz" 'BEGIN { printf "%.1f", t * 1e6 / hz / r }')" \
        "$(awk -v t=$((box_after - box_before)) -v r="$requests" -v hz="$hz" 'BEGIN { printf "%.1f", t * 1e6 / hz / r }')" \
        "$(awk -v n=$((preempted_after - preempted_before)) -v r="$requests" 'BEGIN { printf "%.3f", n / r }')"
    grep -E "Non-2xx|Socket errors" <<<"$out" || true
}

idle_rss="$(awk '/VmRSS/ { printf "%.1f", $2/1024 }' /proc/$pushgw_pid/status)"
nginx_pids=("$nginx_pid" $(pgrep -P "$nginx_pid"))  # the master and its workers
run "nginx return 200" "http://127.0.0.1:$nginx_port/" "" "${nginx_pids[@]}"
run "libmicrohttpd C, same answer" "http://127.0.0.1:$mhd_port/healthz" "" "$mhd_pid"
run "pushgw GET /healthz" "http://127.0.0.1:$pushgw_port/healthz" "" "$pushgw_pid"
run "nginx, render answer to the POST" "http://127.0.0.1:$nginx_port/v1/render" "$here/render.lua" "${nginx_pids[@]}"
run "libmicrohttpd C, render answer" "http://127.0.0.1:$mhd_render_port/v1/render" "$here/render.lua" "$mhd_render_pid"
run "pushgw POST /v1/render" "http://127.0.0.1:$pushgw_port/v1/render" "$here/render.lua" "$pushgw_pid"
run "pushgw POST /v1/notify (apns+fcm)" "http://127.0.0.1:$pushgw_port/v1/notify" "$here/notify.lua" "$pushgw_pid"
# Every notify must have been a fresh event: a duplicate is answered from the
# dedup window without sending, which would flatter the rate.
events="$(curl -sf "http://127.0.0.1:$pushgw_port/metrics" | awk -F'[{}" ]+' '/^pushgw_events_total/ { printf "%s %s, ", $3, $4 }')"
printf '%-34s %s\n' "pushgw events by outcome" "${events%, }"
printf '%-34s %10s MB\n' "pushgw RSS idle" "$idle_rss"
printf '%-34s %10s MB\n' "pushgw peak RSS (VmHWM)" "$(awk '/VmHWM/ { printf "%.1f", $2/1024 }' /proc/$pushgw_pid/status)"
printf '%-34s %10s MB\n' "pushgw RSS after the runs" "$(awk '/VmRSS/ { printf "%.1f", $2/1024 }' /proc/$pushgw_pid/status)"
