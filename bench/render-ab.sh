#!/usr/bin/env bash
# Two or more pushgw-bench binaries' rendering rates in one run,
# alternating: `pushgw-bench render --only PLATFORM` of A, then of B (then
# C…), ROUNDS times; each prints render-only and decode + render
# recipients/s, and the script prints every round, the medians, each
# binary's medians against A's, and the median of the rounds' own ratios
# to A (each round runs the binaries back to back, so it is the figure
# the box's drift moves least). For a change against its base on a
# box that drifts: read the medians of the same run, and the load average
# printed at the start and the end.
#
# Usage: bench/render-ab.sh [-r ROUNDS] [-s SECONDS] [-n RECIPIENTS] [-p fcm|apns] A_BIN B_BIN [C_BIN…]
#   A_BIN, B_BIN…: release pushgw-bench binaries (swift build -c release --product pushgw-bench).
set -euo pipefail

rounds=5
seconds=2
recipients=100
platform=fcm
while getopts "r:s:n:p:" option; do
    case "$option" in
        r) rounds="$OPTARG" ;;
        s) seconds="$OPTARG" ;;
        n) recipients="$OPTARG" ;;
        p) platform="$OPTARG" ;;
        *) echo "usage: $0 [-r ROUNDS] [-s SECONDS] [-n RECIPIENTS] [-p fcm|apns] A_BIN B_BIN [C_BIN…]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
usage="usage: $0 [-r ROUNDS] [-s SECONDS] [-n RECIPIENTS] [-p fcm|apns] A_BIN B_BIN [C_BIN…]"
if [[ $# -lt 2 || $# -gt 26 ]]; then
    echo "$usage" >&2
    exit 2
fi
sides=()
declare -A bin=()
for path in "$@"; do
    side="$(printf "\\$(printf '%03o' $((65 + ${#sides[@]})))")"
    sides+=("$side")
    bin[$side]="$path"
    echo "$side: $path"
done
declare -A render=() decode=() render_ratio=() decode_ratio=()
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
    for side in "${sides[@]}"; do
        out="$("${bin[$side]}" render --only "$platform" --recipients "$recipients" --seconds "$seconds")"
        r="$(awk -v p="render $platform:" 'index($0, p) == 1 {print $3}' <<<"$out")"
        d="$(awk -v p="decode+render $platform:" 'index($0, p) == 1 {print $3}' <<<"$out")"
        render[$side]+="$r "
        decode[$side]+="$d "
        if [[ $side != A ]]; then
            render_ratio[$side]+="$(awk -v b="$r" -v a="$a_render" 'BEGIN {print b / a}') "
            decode_ratio[$side]+="$(awk -v b="$d" -v a="$a_decode" 'BEGIN {print b / a}') "
        else
            a_render="$r"
            a_decode="$d"
        fi
        printf 'round %d %s: render %s, decode+render %s recipients/s\n' "$round" "$side" "$r" "$d"
    done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for side in "${sides[@]}"; do
    printf 'median %s: render %s, decode+render %s recipients/s\n' "$side" "$(median "${render[$side]}")" "$(median "${decode[$side]}")"
done
for side in "${sides[@]:1}"; do
    awk -v side="$side" -v ra="$(median "${render[A]}")" -v rb="$(median "${render[$side]}")" \
        -v da="$(median "${decode[A]}")" -v db="$(median "${decode[$side]}")" \
        'BEGIN {printf "%s / A: render %.1f%%, decode+render %.1f%%\n", side, 100 * rb / ra, 100 * db / da}'
    awk -v side="$side" -v r="$(median "${render_ratio[$side]}")" -v d="$(median "${decode_ratio[$side]}")" \
        'BEGIN {printf "%s / A, median of the rounds'"'"' ratios: render %.1f%%, decode+render %.1f%%\n", side, 100 * r, 100 * d}'
done
