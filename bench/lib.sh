# Shared by the bench scripts; source it after `set -euo pipefail`.
#
#   bench_setup NAME    a work directory ($work, named pushgw-NAME.XXXXXX)
#                       and a $pids list: on exit every process in $pids is
#                       stopped, the directory removed, and then
#                       bench_after_cleanup run if the script defines it
#   free_port           a free TCP port on 127.0.0.1
#   require_tools "PACKAGES" TOOL...
#                       exits, saying `apt-get install -y PACKAGES`, unless
#                       every TOOL is on $PATH (or in /usr/sbin)
#   start_gateway NAME BINARY [VAR=VALUE...]
#                       `BINARY simulators` and a gateway pointed at them,
#                       configured as for real providers (and with the
#                       settings given, such as PUSHGW_REDIS_URL=...), in
#                       $work/NAME; sets
#                       port_NAME, gateway_NAME (pid), simulators_NAME (pid);
#                       the bearer token is in $work/NAME/tokens. Returns once
#                       /healthz answers.
#   apns_throwaway_keys  an APNs key ($work/key.p8, with $key_id, $team_id,
#                       $topic) and a certificate for 127.0.0.1
#                       ($work/server.key, $work/server.crt)
#   start_nghttpd PORT  Debian's nghttpd on 127.0.0.1:PORT with that
#                       certificate (it answers every POST 404); sets
#                       nghttpd_pid
#   start_apns_simulator PORT BINARY
#                       the in-repo APNs simulator BINARY on 127.0.0.1:PORT,
#                       taking that key and topic, without Apple's one-stream
#                       window before the first JWT (h2load opens its streams
#                       before it reads the server's SETTINGS: the streams
#                       refused would count against h2load); its CA in
#                       $work/simulator-ca.pem; sets simulator_pid. Returns
#                       once the CA is written.

bench_setup() {
    work="$(mktemp -d "${TMPDIR:-/tmp}/pushgw-$1.XXXXXX")"
    pids=()
    trap bench_cleanup EXIT
}

bench_cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
    if declare -F bench_after_cleanup >/dev/null; then bench_after_cleanup; fi
}

require_tools() {
    local packages="$1" tool
    shift
    for tool in "$@"; do
        command -v "$tool" >/dev/null || [[ -x "/usr/sbin/$tool" ]] || { echo "missing $tool: apt-get install -y $packages" >&2; exit 1; }
    done
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_gateway() {
    local name="$1" bin="$2" dir="$work/$1"
    shift 2
    local settings=("$@")
    mkdir -p "$dir"
    "$bin" simulators --env-file "$dir/simulators.env" > "$dir/simulators.log" 2>&1 &
    local simulators=$!
    pids+=("$simulators")
    for _ in $(seq 100); do [[ -s "$dir/simulators.env" ]] && break; sleep 0.1; done
    [[ -s "$dir/simulators.env" ]] || { echo "pushgw simulators did not start (see $dir/simulators.log)" >&2; return 1; }
    local port token
    port="$(free_port)"
    token="$(openssl rand -hex 32)"
    echo "$token" > "$dir/tokens"
    # shellcheck disable=SC1091
    (source "$dir/simulators.env"
     PUSHGW_LISTEN="127.0.0.1:$port" PUSHGW_BEARER_TOKENS_FILE="$dir/tokens" PUSHGW_LOG_LEVEL=error \
         exec env ${settings[@]+"${settings[@]}"} "$bin" > "$dir/pushgw.log" 2>&1) &
    local gateway=$!
    pids+=("$gateway")
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || { echo "pushgw did not start (see $dir/pushgw.log)" >&2; return 1; }
    printf -v "port_$name" '%s' "$port"
    printf -v "gateway_$name" '%s' "$gateway"
    printf -v "simulators_$name" '%s' "$simulators"
}

apns_throwaway_keys() {
    key_id=ABC123DEFG
    team_id=DEF123GHIJ
    topic=com.example.pushgw
    openssl ecparam -name prime256v1 -genkey -noout -out "$work/ec.pem" 2>/dev/null
    openssl pkcs8 -topk8 -nocrypt -in "$work/ec.pem" -out "$work/key.p8"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/server.key" \
        -out "$work/server.crt" -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
}

start_apns_simulator() {
    "$2" --port "$1" --team-id "$team_id" --key-id "$key_id" --public-key "$work/key.p8" \
        --topic "$topic" --ca-out "$work/simulator-ca.pem" --no-limit-streams-until-auth >/dev/null 2>&1 &
    simulator_pid=$!
    pids+=("$simulator_pid")
    for _ in $(seq 50); do [[ -s "$work/simulator-ca.pem" ]] && break; sleep 0.1; done
    [[ -s "$work/simulator-ca.pem" ]] || { echo "apns-simulator did not start" >&2; return 1; }
}

start_nghttpd() {
    mkdir -p "$work/htdocs"
    /usr/sbin/nghttpd -a 127.0.0.1 --htdocs="$work/htdocs" "$1" "$work/server.key" "$work/server.crt" >/dev/null 2>&1 &
    nghttpd_pid=$!
    pids+=("$nghttpd_pid")
}

# The pushgw binary to measure: the one given ($1), else this tree's release
# build with the Swift runtime linked statically (built here). Needs $root.
pushgw_binary() {
    if [[ $# -eq 1 ]]; then
        printf '%s\n' "$1"
        return
    fi
    (cd "$root" && swift build -c release --static-swift-stdlib --product pushgw >&2)
    printf '%s/pushgw\n' "$(cd "$root" && swift build -c release --static-swift-stdlib --show-bin-path)"
}

# Starts a redis-server on a free loopback port, without persistence, its
# files in $work; sets redis_port and redis_pid, and waits for its PONG.
start_redis() {
    redis_port="$(free_port)"
    redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --dir "$work" \
        --daemonize no --logfile "$work/redis.log" > /dev/null 2>&1 &
    redis_pid=$!
    pids+=("$redis_pid")
    for _ in $(seq 100); do redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
}
