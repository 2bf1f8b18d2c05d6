#!/usr/bin/env bash
# Two revisions of pushgw through the project's side-by-side benchmarks in
# one run, before then after, each beside its peer or ceiling:
#   1. the APNs client against h2load (and aioapns) on the simulator and
#      nghttpd: bench/apns-vs-peers.sh, once with each revision's binaries;
#   2. rendering against firebase-admin's encoder:
#      bench/render-vs-firebase-admin.sh, once with each;
#   3. the service, /v1/notify and /v1/render, the two gateways alternating
#      under wrk: bench/service-ab.sh BEFORE AFTER.
# The box drifts (±40% within an hour), so read each revision's ratio to its
# own peer, and the same-run A/B of the service.
#
# Usage: bench/before-after.sh [-s SECONDS] [-r ROUNDS] BEFORE AFTER
#   BEFORE, AFTER: git revisions, each built once (release, Swift runtime
#   linked statically) in a temporary worktree.
# Needs what the three scripts need (see each). Loopback only.
set -euo pipefail

seconds=5
rounds=3
while getopts "s:r:" option; do
    case "$option" in
        s) seconds="$OPTARG" ;;
        r) rounds="$OPTARG" ;;
        *) echo "usage: $0 [-s SECONDS] [-r ROUNDS] BEFORE AFTER" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ $# -ne 2 ]]; then
    echo "usage: $0 [-s SECONDS] [-r ROUNDS] BEFORE AFTER   (git revisions)" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
trees="$(mktemp -d "${TMPDIR:-/tmp}/pushgw-before-after.XXXXXX")"
cleanup() {
    for side in before after; do
        [[ -d "$trees/$side" ]] && git -C "$root" worktree remove --force "$trees/$side" >/dev/null 2>&1
    done
    git -C "$root" worktree prune
    rm -rf "$trees"
}
trap cleanup EXIT

# Each side's binaries, built once from its revision.
declare -A revision=([before]="$1" [after]="$2")
for side in before after; do
    echo "building $side (${revision[$side]}, release, static Swift runtime)" >&2
    git -C "$root" worktree add --detach --quiet "$trees/$side" "${revision[$side]}"
    (cd "$trees/$side" && swift build -c release --static-swift-stdlib >&2)
done
bin() { echo "$trees/$1/.build/release/$2"; }

for side in before after; do
    echo "== APNs client vs h2load and aioapns: $side (${revision[$side]})"
    PUSHGW_BENCH_BIN="$(bin "$side" pushgw-bench)" APNS_SIMULATOR_BIN="$(bin "$side" apns-simulator)" \
        "$here/apns-vs-peers.sh" "$seconds" "$rounds"
done
for side in before after; do
    echo "== rendering vs firebase-admin: $side (${revision[$side]})"
    PUSHGW_BENCH_BIN="$(bin "$side" pushgw-bench)" "$here/render-vs-firebase-admin.sh" "$seconds"
done
echo "== service A/B: A = before (${revision[before]}), B = after (${revision[after]})"
"$here/service-ab.sh" -r $((rounds + 1)) "$(bin before pushgw)" "$(bin after pushgw)"
