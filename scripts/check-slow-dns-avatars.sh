#!/usr/bin/env bash
# Manual check (root, Linux; not part of the tests): avatars whose host
# names meet a DNS server that never answers must not hold the avatar
# download threads past their 3 s timeout. Four such avatars are asked for,
# then, 3.5 s later, a healthy one: it must come back "ok" at once, not
# "dropped: timeout" behind the four lookups.
#
# The gateway runs in a private mount namespace whose /etc/resolv.conf
# names a silent DNS server on 127.0.0.3 (the machine's own file is not
# touched); the healthy avatar is served on 127.0.0.2. Loopback only.
#
# Usage: scripts/check-slow-dns-avatars.sh [BINARY]   (default: swift build's debug pushgw)
# Needs: root (unshare -m, port 53), python3, curl, openssl.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-}"
if [[ -z "$bin" ]]; then (cd "$root" && swift build --product pushgw >&2); bin="$root/.build/debug/pushgw"; fi
work="$(mktemp -d /tmp/pushgw-slow-dns.XXXXXX)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

printf 'nameserver 127.0.0.3\noptions timeout:8 attempts:1\n' > "$work/resolv.conf"
python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.3", 53))
while True: s.recvfrom(4096)  # never answers
' & pids+=($!)
python3 -c '
import http.server, struct, zlib
def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")
class Avatar(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(png))); self.end_headers(); self.wfile.write(png)
http.server.ThreadingHTTPServer(("127.0.0.2", 18482), Avatar).serve_forever()
' & pids+=($!)
"$bin" simulators --env-file "$work/simulators.env" > /dev/null 2>&1 & pids+=($!)
for _ in $(seq 100); do [[ -s "$work/simulators.env" ]] && break; sleep 0.1; done
openssl rand -hex 32 > "$work/token"
cat > "$work/gateway.sh" <<GATEWAY
#!/usr/bin/env bash
mount --bind "$work/resolv.conf" /etc/resolv.conf || exit 1
set -a; source "$work/simulators.env"; set +a
export PUSHGW_LISTEN=127.0.0.1:18490 PUSHGW_BEARER_TOKENS_FILE="$work/token" PUSHGW_LOG_LEVEL=error
export PUSHGW_AVATAR_ALLOW_HTTP=true PUSHGW_AVATAR_ALLOW_PRIVATE_ADDRESSES=true PUSHGW_AVATAR_ALLOWED_HOSTS='127.0.0.2,*.slowdns.test'
exec "$bin"
GATEWAY
chmod +x "$work/gateway.sh"
unshare -m "$work/gateway.sh" & pids+=($!)
for _ in $(seq 100); do curl -sf http://127.0.0.1:18490/healthz > /dev/null && break; sleep 0.1; done

render() {  # avatar-url message-id
    printf '{"conversation":{"id":"c1"},"message":{"id":"%s","text":"hi"},"sender":{"id":"s1","display_name":"S","avatar_url":"%s"},"recipients":[{"platform":"fcm","token":"token-%s-abcdefgh"}]}' "$2" "$1" "$2" |
        curl -s -H "Authorization: Bearer $(cat "$work/token")" --data-binary @- http://127.0.0.1:18490/v1/render
}
for n in 1 2 3 4; do render "http://host$n.slowdns.test/a.png" "$n" > /dev/null & done
sleep 3.5
start=$(date +%s%N)
answer="$(render "http://127.0.0.2:18482/a.png" 9)"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
state="$(grep -o '"avatar":{"state":"[a-z]*","reason":[^,]*' <<<"$answer")"
echo "healthy avatar 3.5 s after four on a silent DNS server: $state, in $elapsed_ms ms"
[[ "$state" == *'"state":"ok"'* ]] || { echo "FAIL: the healthy avatar waited behind the DNS lookups" >&2; exit 1; }
echo "ok"
