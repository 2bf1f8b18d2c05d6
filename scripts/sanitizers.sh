#!/usr/bin/env bash
# Sanitizer runs (issue "Proof under faults and hostile input", item 3):
#
#   scripts/sanitizers.sh tsan    the whole test suite under ThreadSanitizer
#   scripts/sanitizers.sh asan    the whole test suite under AddressSanitizer
#   scripts/sanitizers.sh leaks   pushgw --demo built with AddressSanitizer, under
#                                 LeakSanitizer, fed a bounded loopback load, then SIGTERM
#   scripts/sanitizers.sh probe   two small programs reproducing the known false
#                                 positives below
#   scripts/sanitizers.sh all     all four, one after the other (the default)
#
# Each is slow on 2 cores: run them one at a time. Logs and extracted reports
# go to $OUT (default /tmp/pushgw-sanitizers); build trees to /tmp/{tsan,asan,lsan}-build
# (override with TSAN_BUILD, ASAN_BUILD, LSAN_BUILD). The load only goes to 127.0.0.1.
#
# Known false positives: every ThreadSanitizer report so far is a "Swift access
# race" (or "data race") whose two accesses are both inside Mutex.withLock.
# Swift's Synchronization.Mutex on Linux hands the lock over with futex system
# calls that ThreadSanitizer does not intercept, so it sees no happens-before
# edge between two critical sections. `probe` reproduces it: a counter changed
# only under a Mutex is reported, and its final value is exact.
#
# LeakSanitizer reports 12 "direct leaks" of 40 bytes in the demo's FCM
# simulator, all allocated once by the static `FCMMessageSchema` globals
# (`..._WZ` initializers): the boxes of the `indirect enum Kind` `.object`
# cases. The globals live as long as the process; the pointers to the boxes
# carry the enum's case tag in their spare bits, which LeakSanitizer does not
# take for pointers. 480 bytes whatever the load; `probe` reproduces it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

OUT=${OUT:-/tmp/pushgw-sanitizers}
TSAN_BUILD=${TSAN_BUILD:-/tmp/tsan-build}
ASAN_BUILD=${ASAN_BUILD:-/tmp/asan-build}
LSAN_BUILD=${LSAN_BUILD:-/tmp/lsan-build}
REQUESTS=${REQUESTS:-2000}
PORT=${PORT:-18480}
mkdir -p "$OUT"

# Prints each sanitizer report (WARNING/ERROR … SUMMARY) of log $1 into $2, and a count.
extract_reports() {
    awk '/^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer))/{p=1} p{print} /^SUMMARY: /{if(p){print "-----"}; p=0}' "$1" > "$2"
    echo "$(grep -c '^SUMMARY: ' "$2" || true) report(s) in $2"
}

run_tsan() {
    echo "== ThreadSanitizer: swift test (log $OUT/tsan-test.log)"
    swift build --build-tests --sanitize=thread -Xswiftc -DPUSHGW_TSAN --scratch-path "$TSAN_BUILD" 2>&1 | tail -1
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
        swift test --skip-build --sanitize=thread -Xswiftc -DPUSHGW_TSAN --scratch-path "$TSAN_BUILD" > "$OUT/tsan-test.log" 2>&1 || true
    grep -E "^\s+Executed [0-9]+ tests" "$OUT/tsan-test.log" | tail -1 || true
    extract_reports "$OUT/tsan-test.log" "$OUT/tsan-reports.txt"
}

run_asan() {
    echo "== AddressSanitizer: swift test (log $OUT/asan-test.log)"
    swift build --build-tests --sanitize=address --scratch-path "$ASAN_BUILD" 2>&1 | tail -1
    # Leaks are checked on the service itself (`leaks`); the test process keeps
    # simulators, URLSession and XCTest state alive until exit by design.
    # The quarantine is kept at 8 MB: FaultMatrixTests bounds the process's
    # memory growth over 600 events at 64 MB, and freed memory waiting in
    # the default 256 MB quarantine counts as growth (65–104 MB seen; 1–5 MB
    # in a normal build).
    ASAN_OPTIONS="detect_leaks=0 quarantine_size_mb=8 ${ASAN_OPTIONS:-}" \
        swift test --skip-build --sanitize=address --scratch-path "$ASAN_BUILD" > "$OUT/asan-test.log" 2>&1 || true
    grep -E "^\s+Executed [0-9]+ tests" "$OUT/asan-test.log" | tail -1 || true
    extract_reports "$OUT/asan-test.log" "$OUT/asan-reports.txt"
}

run_leaks() {
    echo "== LeakSanitizer: pushgw --demo under $REQUESTS notify requests (log $OUT/lsan-pushgw.log)"
    swift build --product pushgw -Xswiftc -sanitize=address --scratch-path "$LSAN_BUILD" 2>&1 | tail -1
    local binary
    binary="$(swift build --product pushgw -Xswiftc -sanitize=address --scratch-path "$LSAN_BUILD" --show-bin-path)/pushgw"
    ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}" LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp ${LSAN_OPTIONS:-}" \
        PUSHGW_LISTEN="127.0.0.1:$PORT" "$binary" --demo > "$OUT/lsan-pushgw.out" 2> "$OUT/lsan-pushgw.log" &
    local pid=$!
    local token=""
    for _ in $(seq 1 300); do
        token=$(grep -o 'Authorization: Bearer [0-9a-zA-Z_-]*' "$OUT/lsan-pushgw.out" 2>/dev/null | head -1 | cut -d' ' -f3 || true)
        [[ -n "$token" ]] && curl -fs "http://127.0.0.1:$PORT/healthz" > /dev/null 2>&1 && break
        kill -0 "$pid" 2>/dev/null || { echo "pushgw exited early"; tail -20 "$OUT/lsan-pushgw.log"; return 1; }
        sleep 0.2
    done
    [[ -n "$token" ]] || { echo "no token printed"; kill -TERM "$pid"; return 1; }
    local load=0
    python3 - "$PORT" "$token" "$REQUESTS" fixtures/payloads/seed-chat-sdk.event.json <<'PY' | tee "$OUT/lsan-load.txt" || load=$?
import http.client, json, socket, sys, threading, collections
port, token, total, event_file = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
seed = json.load(open(event_file))
seed["sender"].pop("avatar_url", None)  # stay on this machine: no avatar fetch
statuses = collections.Counter()
lock = threading.Lock()

def worker(first, step):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for number in range(first, total, step):
        event = dict(seed, event_id=f"leak-{number}")
        body = json.dumps(event).encode()
        try:
            connection.request("POST", "/v1/notify", body, {"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            status = "error"
        with lock:
            statuses[status] += 1
    connection.close()

threads = [threading.Thread(target=worker, args=(index, 4)) for index in range(4)]
for thread in threads: thread.start()
for thread in threads: thread.join()

# A few hostile requests on the same process, so their paths are leak-checked too.
hostile = collections.Counter()
cases = [
    b"POST /v1/notify HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token.encode() + b"\r\nContent-Length: 65537\r\n\r\n{",
    b"POST /v1/notify HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}}",
    b"POST /v1/notify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET /heal\x00thz HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n",
]
for round in range(20):
    for case in cases:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as raw:
            try:
                raw.sendall(case)
                answer = raw.recv(64)
                hostile[answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/") else "closed"] += 1
            except socket.timeout:
                hostile["timeout"] += 1
            except OSError:
                hostile["reset"] += 1
print("notify:", dict(statuses))
print("hostile:", dict(hostile))
sys.exit(0 if statuses.get(200, 0) == total else 1)
PY
    kill -TERM "$pid"
    local status=0
    wait "$pid" || status=$?
    echo "pushgw exit status $status (0: clean; 1: AddressSanitizer's exit code, here for leaks)"
    extract_reports "$OUT/lsan-pushgw.log" "$OUT/lsan-reports.txt"
    grep -E "^SUMMARY: AddressSanitizer: [0-9]+ byte" "$OUT/lsan-pushgw.log" || echo "no leak summary: nothing leaked"
    return "$load"
}

run_probe() {
    echo "== ThreadSanitizer and Synchronization.Mutex (log $OUT/tsan-probe.log)"
    local dir
    dir=$(mktemp -d)
    cat > "$dir/probe.swift" <<'SWIFT'
import Foundation
import Synchronization

let counter = Mutex<[Int]>([0])   // changed only inside withLock
let group = DispatchGroup()
for _ in 0..<2 {
    group.enter()
    Thread.detachNewThread {
        for _ in 0..<200_000 { counter.withLock { $0[0] += 1 } }
        group.leave()
    }
}
group.wait()
print("final value", counter.withLock { $0[0] }, "(exactly 400000: no update was lost)")
SWIFT
    swiftc -O -sanitize=thread "$dir/probe.swift" -o "$dir/probe"
    "$dir/probe" > "$OUT/tsan-probe.log" 2>&1 || true
    grep -E "final value|^SUMMARY" "$OUT/tsan-probe.log" || true

    echo "== LeakSanitizer and a static holding indirect enum payloads (log $OUT/lsan-probe.log)"
    cat > "$dir/leak.swift" <<'SWIFT'
struct Schema: Sendable {
    var name: String
    var fields: [String: Kind]
}
indirect enum Kind: Sendable {   // several payload cases: the case tag rides in the box pointer
    case string
    case choice(typeName: String, values: Set<String>)
    case object(Schema)
}
enum Schemas {   // process-lifetime globals, as FCMMessageSchema's
    static let inner = Schema(name: "inner", fields: ["a": .string])
    static let outer = Schema(name: "outer", fields: ["x": .object(inner), "z": .choice(typeName: "t", values: ["a"])])
}
print("fields", Schemas.outer.fields.count)
SWIFT
    swiftc -Onone -sanitize=address "$dir/leak.swift" -o "$dir/leak" 2> /dev/null
    ASAN_OPTIONS=detect_leaks=1 "$dir/leak" > "$OUT/lsan-probe.log" 2>&1 || true
    grep -E "^SUMMARY" "$OUT/lsan-probe.log" || echo "no leak reported"
    rm -rf "$dir"
}

case "${1:-all}" in
    tsan) run_tsan ;;
    asan) run_asan ;;
    leaks) run_leaks ;;
    probe) run_probe ;;
    all) run_probe; run_tsan; run_asan; run_leaks ;;
    *) echo "usage: $0 [tsan|asan|leaks|probe|all]" >&2; exit 2 ;;
esac
