#!/usr/bin/env bash
# Builds and runs the native C floor (floor.cpp), writing Google Benchmark JSON to OUT.json.
#
# Usage: scripts/native/run.sh OUT.json [--quick] [--repetitions N] [--min-time S] [--threads 1,2,4,8]
#                              [-- extra Google Benchmark flags, e.g. --benchmark_filter=apply]
#
# Defaults: 5 repetitions, 0.2 s minimum time, threads 1,2,4,8,16. --quick means 3 repetitions, 0.05 s, threads
# 1,2,4,8 and the quick apply points (as `arena bench --quick`); explicit flags override it. The JSON is written to a
# temporary file beside OUT.json and moved into place, so a reader never sees half a file; the binary's console table
# goes to stderr.
#
# Nothing may hang: the binary's waits have no deadline of their own (a wedged libdispatch would block in
# dispatch_sync_f, which no timeout can interrupt), so the whole run is killed after --budget seconds (default 600
# quick, 3600 full), reported, and nothing is written.
#
# C_FLOOR=PATH runs that binary instead of building one (the bundle carries it built; scripts/bundle.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: run.sh OUT.json [--quick] [--repetitions N] [--min-time S] [--threads 1,2,4,8] [--budget S] [-- benchmark flags]"
bad() { printf 'run.sh: %s (%s)\n' "$1" "$usage" >&2; exit 64; }

[[ $# -ge 1 ]] || bad "missing OUT.json"
out="$1"
shift
[[ -n "$out" && "$out" != -* ]] || bad "the first argument must be the output file, not '$out'"

quick=0
repetitions=""
min_time=""
threads=""
budget=""
extra=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) quick=1; shift ;;
        --repetitions) [[ $# -ge 2 ]] || bad "--repetitions needs a value"; repetitions="$2"; shift 2 ;;
        --repetitions=*) repetitions="${1#*=}"; shift ;;
        --min-time) [[ $# -ge 2 ]] || bad "--min-time needs a value"; min_time="$2"; shift 2 ;;
        --min-time=*) min_time="${1#*=}"; shift ;;
        --threads) [[ $# -ge 2 ]] || bad "--threads needs a value"; threads="$2"; shift 2 ;;
        --threads=*) threads="${1#*=}"; shift ;;
        --budget) [[ $# -ge 2 ]] || bad "--budget needs a value"; budget="$2"; shift 2 ;;
        --budget=*) budget="${1#*=}"; shift ;;
        --) shift; extra=("$@"); break ;;
        *) bad "unknown argument '$1'" ;;
    esac
done

if [[ $quick -eq 1 ]]; then
    : "${repetitions:=3}" "${min_time:=0.05}" "${threads:=1,2,4,8}" "${budget:=600}"
else
    : "${repetitions:=5}" "${min_time:=0.2}" "${threads:=1,2,4,8,16}" "${budget:=3600}"
fi
[[ "$budget" =~ ^[1-9][0-9]*$ ]] || bad "--budget must be a positive number of whole seconds, not '$budget'"
[[ "$repetitions" =~ ^[1-9][0-9]*$ ]] || bad "--repetitions must be a positive integer, not '$repetitions'"
# Google Benchmark 1.7.1 takes --benchmark_min_time as a plain double of seconds; it rejects "0.2s" (1.8 syntax).
[[ "$min_time" =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] || bad "--min-time must be seconds as a number, not '$min_time'"
[[ "$threads" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || bad "--threads must be a list like 1,2,4,8, not '$threads'"

out_dir="$(dirname "$out")"
[[ -d "$out_dir" ]] || bad "no directory '$out_dir' for the output file"

if [[ -n "${C_FLOOR:-}" ]]; then
    [[ -x "$C_FLOOR" ]] || { printf 'run.sh: C_FLOOR=%s is not an executable file\n' "$C_FLOOR" >&2; exit 69; }
    binary="$C_FLOOR"
else
    binary="$("$here/build.sh" | tail -n 1)"
fi

own=(--threads="$threads")
[[ $quick -eq 1 ]] && own+=(--quick)

tmp="$(mktemp "$out_dir/.$(basename "$out").XXXXXX")"
trap 'rm -f "$tmp"' EXIT
chmod "$(printf '%o' $(( 0666 & ~$(umask) )))" "$tmp"  # mktemp makes it 0600; the result should read like any file
printf 'run.sh: %s %s, %s repetitions, min time %s s -> %s\n' \
    "$binary" "${own[*]}" "$repetitions" "$min_time" "$out" >&2
# Aggregates are kept beside every repetition (no --benchmark_report_aggregates_only).
status=0
timeout --kill-after=10 "$budget" "$binary" "${own[@]}" \
    --benchmark_repetitions="$repetitions" \
    --benchmark_min_time="$min_time" \
    --benchmark_out="$tmp" \
    --benchmark_out_format=json \
    ${extra[@]+"${extra[@]}"} >&2 || status=$?
if [[ $status -eq 124 || $status -eq 137 ]]; then
    echo "run.sh: the native floor did not finish within $budget s and was stopped; nothing written" >&2
    exit 1
elif [[ $status -ne 0 ]]; then
    echo "run.sh: the native floor exited with status $status; nothing written" >&2
    exit 1
fi
mv -f "$tmp" "$out"
trap - EXIT
printf '%s\n' "$out"
