#!/usr/bin/env bash
# Fuzzes event decoding and rendering with libFuzzer for a bounded time.
#
#   scripts/fuzz.sh [SECONDS] [JOBS]      (defaults: 60 seconds, 1 job)
#
# Builds the PayloadFuzzer target with libFuzzer and AddressSanitizer, seeds a
# fresh working corpus under ${TMPDIR:-/tmp} from fixtures/payloads (events,
# and configurations for the configuration reader) and fixtures/fuzz-regressions,
# and fuzzes within SECONDS and 2 GiB, with fuzz/event.dict. Exits 0 when
# nothing broke; on a crash or a broken invariant, minimizes the input, prints
# the reproducer's path and exits 1 (2 when the build or setup fails).
#
# Environment:
#   FUZZ_BUILD_DIR         scratch path of the sanitizer build (default .build/fuzz)
#   FUZZ_CORPUS            a corpus folder to grow and keep instead of a fresh one
#   FUZZ_MINIMIZE_SECONDS  time to minimize a crashing input (default 60; 0 skips it)
#   FUZZ_MAX_LEN           largest input generated, in bytes (default 16384)
#   FUZZ_SEED, FUZZ_RUNS   a fixed seed and number of executions (still bounded by
#                          SECONDS): the same inputs every time, as CI runs it
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)

seconds=${1:-60}
jobs=${2:-1}
if ! [[ $seconds =~ ^[0-9]+$ && $seconds -ge 1 && $jobs =~ ^[0-9]+$ && $jobs -ge 1 ]]; then
    echo "usage: scripts/fuzz.sh [SECONDS >= 1] [JOBS >= 1]" >&2
    exit 2
fi
build_dir=${FUZZ_BUILD_DIR:-$repo/.build/fuzz}
minimize_seconds=${FUZZ_MINIMIZE_SECONDS:-60}
max_len=${FUZZ_MAX_LEN:-16384}

work=$(mktemp -d "${TMPDIR:-/tmp}/pushgw-fuzz.XXXXXX")
corpus=${FUZZ_CORPUS:-$work/corpus}
artifacts=$work/artifacts
mkdir -p "$corpus" "$artifacts"

# 1. Build. SwiftPM's --sanitize=fuzzer makes the link use libFuzzer's main;
# the -Xswiftc flag comes last and wins, so that Swift code is compiled (and
# linked) with both libFuzzer's coverage and AddressSanitizer (two separate
# -sanitize= flags would keep only the last). PUSHGW_FUZZ leaves out the
# target's own @main.
echo "fuzz: building PayloadFuzzer (release, libFuzzer + AddressSanitizer) in $build_dir"
build=(swift build -c release --scratch-path "$build_dir" --product PayloadFuzzer
       --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DPUSHGW_FUZZ)
if ! "${build[@]}" >"$work/build.log" 2>&1; then
    grep -v 'Cannot export local symbol' "$work/build.log" | tail -40 >&2
    echo "fuzz: the build failed (full log: $work/build.log)" >&2
    exit 2
fi
fuzzer=$build_dir/release/PayloadFuzzer

# 2. Seeds: every golden event and configuration, and every past finding.
shopt -s nullglob
seeds=(fixtures/payloads/*.event.json fixtures/payloads/*.config.json fixtures/fuzz-regressions/*.bin)
cp "${seeds[@]}" "$corpus/"
echo "fuzz: ${#seeds[@]} seeds in $corpus; artifacts go to $artifacts"

# 3. Fuzz. Swift's own crash reporter is turned off so that libFuzzer and
# AddressSanitizer report the crash and save the input.
export SWIFT_BACKTRACE=enable=no
options=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20
         -max_len="$max_len" -dict=fuzz/event.dict -artifact_prefix="$artifacts/" -print_final_stats=1)
if [[ $jobs -gt 1 ]]; then options+=(-fork="$jobs"); fi
if [[ -n ${FUZZ_SEED:-} ]]; then options+=(-seed="$FUZZ_SEED"); fi
if [[ -n ${FUZZ_RUNS:-} ]]; then options+=(-runs="$FUZZ_RUNS"); fi
echo "fuzz: running for ${seconds}s with $jobs job(s): $fuzzer ${options[*]} $corpus"
status=0
"$fuzzer" "${options[@]}" "$corpus" >"$work/fuzz.log" 2>&1 || status=$?

# The progress lines say how far it got: the last one, and the final stats.
grep -E '^#[0-9]+' "$work/fuzz.log" | tail -1 || true
grep -E '^stat::' "$work/fuzz.log" || true

crashes=("$artifacts"/*)
if [[ $status -eq 0 && ${#crashes[@]} -eq 0 ]]; then
    echo "fuzz: no crash and no broken invariant in ${seconds}s (log: $work/fuzz.log, corpus: $corpus)"
    exit 0
fi

# 4. A finding: say what broke, shrink the input, and point at both files.
echo "fuzz: FAILED (libFuzzer exit status $status); log: $work/fuzz.log" >&2
grep -m1 -E 'invariant .* broken|Fatal error|ERROR: (libFuzzer|AddressSanitizer)|Slowest unit' "$work/fuzz.log" >&2 || true
grep -A12 -m1 -E '^==[0-9]+==ERROR' "$work/fuzz.log" >&2 || true
for crash in "${crashes[@]}"; do
    echo "fuzz: reproducer: $crash" >&2
    echo "fuzz:   run it again: SWIFT_BACKTRACE=enable=no PUSHGW_FUZZ_STRICT=1 $fuzzer $crash" >&2
    if [[ $minimize_seconds -gt 0 && $crash == */crash-* ]]; then
        # Shrink without drifting to another bug: only the invariant this input
        # breaks is enforced (none at all for a plain crash, which then must
        # recur by itself).
        invariant=$(PUSHGW_FUZZ_STRICT=1 "$fuzzer" "$crash" 2>&1 | grep -m1 -o -E 'invariant [a-z0-9-]+ broken' |
            cut -d' ' -f2 || true)
        minimized=$crash.min
        PUSHGW_FUZZ_ONLY=${invariant:-none} "$fuzzer" -minimize_crash=1 -max_total_time="$minimize_seconds" \
            -timeout=20 -exact_artifact_path="$minimized" "$crash" >"$work/minimize.log" 2>&1 || true
        if [[ -s $minimized ]]; then
            echo "fuzz:   minimized ($(wc -c <"$minimized") bytes): $minimized" >&2
            crash=$minimized
        fi
    fi
    # The input itself, so that a CI log is enough to recover it.
    if [[ $(wc -c <"$crash") -le 8192 ]]; then
        echo "fuzz:   input (base64): $(base64 -w0 "$crash")" >&2
    fi
done
exit 1
