#!/usr/bin/env bash
# rounds.sh: paired rounds of load.sh, engines alternating, and the medians.
#
# Usage:
#   rounds.sh [--rounds N] [--duration S] [--connections C] [--threads T] [--endpoints 'plain work']
#             [--arena PATH] [--quiet-wait S] --out DIR ENGINE...
#   rounds.sh --summarize DIR ENGINE...
#
# ENGINE is `default` (Swift's own global executor), `nio-takeover` (the server's --nio-takeover) or any other name,
# run as `load.sh --prefix 'ARENA exec --engine NAME --'` (ARENA: --arena, or $ARENA, or `arena` on PATH).
# Each round runs every endpoint, and for each endpoint every engine back to back, in an order that turns by one
# each round (A B C, B C A, ...), so that a slow minute of the machine lands on every engine alike.
# The machine has 2 cores and other people build and test on it, so before each run it waits (at most --quiet-wait
# seconds, default 120) until the machine has been idle for 3 seconds in a row (under 0.2 cores busy), and each run's
# record says how many cores others kept busy on average while it ran ("others": the machine's busy time from
# /proc/stat less this run's own processes, server, wrk and curl, from the shell's waited-for children's times).
# Runs where others took 0.3 cores or more are contended. The figure is rough: /proc/stat counts in ticks, and the
# kernel's softirq time for the run's own loopback traffic is charged to no process, so a quiet run reads 0 to 0.15.
# Writes DIR/RUN.json for every run (load.sh's result), DIR/runs.tsv, and DIR/summary.md with the medians (of all
# clean runs, and of the quiet ones alone). `rounds.sh --summarize DIR ENGINE...` rewrites summary.md from runs.tsv.
# Exit codes: 0 every run gave a clean number; 1 some did not (they are in runs.tsv, and left out of the medians);
# 64 bad usage.
set -euo pipefail

readonly here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly tck="$(getconf CLK_TCK)"

usage() {
    echo "usage: rounds.sh [--rounds N] [--duration S] [--connections C] [--threads T] [--endpoints 'plain work'] [--arena PATH] [--quiet-wait S] --out DIR ENGINE...  |  rounds.sh --summarize DIR ENGINE..." >&2
    exit 64
}

summarize_only=0 rounds=3 duration=10 connections=32 threads=2 endpoints="plain work" arena="${ARENA:-arena}" quiet_wait=120 out=""
engines=()
while (($#)); do
    case "$1" in
        --rounds) (($# >= 2)) || usage; rounds="$2"; shift 2 ;;
        --duration) (($# >= 2)) || usage; duration="$2"; shift 2 ;;
        --connections) (($# >= 2)) || usage; connections="$2"; shift 2 ;;
        --threads) (($# >= 2)) || usage; threads="$2"; shift 2 ;;
        --endpoints) (($# >= 2)) || usage; endpoints="$2"; shift 2 ;;
        --arena) (($# >= 2)) || usage; arena="$2"; shift 2 ;;
        --quiet-wait) (($# >= 2)) || usage; quiet_wait="$2"; shift 2 ;;
        --out) (($# >= 2)) || usage; out="$2"; shift 2 ;;
        --summarize) (($# >= 2)) || usage; out="$2"; summarize_only=1; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) usage ;;
        *) engines+=("$1"); shift ;;
    esac
done
[[ -n "$out" ]] && ((${#engines[@]})) || usage
for n in "$rounds" "$duration" "$connections" "$threads"; do [[ "$n" =~ ^[1-9][0-9]*$ ]] || usage; done
[[ "$quiet_wait" =~ ^[0-9]+$ ]] || usage
read -r -a endpoint_list <<<"$endpoints"
for e in "${endpoint_list[@]}"; do [[ "$e" == plain || "$e" == work ]] || usage; done
mkdir -p "$out"

# The binary once, not once per run.
if ((!summarize_only)) && [[ -z "${ARENA_SERVER_BIN:-}" ]]; then
    ARENA_SERVER_BIN="$(cd "$here" && timeout 120 swift build -c release --show-bin-path)/arena-server"
fi
export ARENA_SERVER_BIN

busy_ticks() {  # the machine's busy CPU time so far (user, nice, system, irq, softirq, steal), in clock ticks
    awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}
children_ticks() {  # this shell's waited-for children's CPU time so far (their waited-for children included)
    awk '{ print $16 + $17 }' "/proc/$$/stat"
}
now_ms() { date +%s%3N; }
wait_quiet() {  # until 3 idle seconds in a row, or quiet_wait seconds
    local waited=0 quiet=0 before after
    while ((quiet < 3 && waited < quiet_wait)); do
        before="$(busy_ticks)"
        sleep 1
        after="$(busy_ticks)"
        if (((after - before) * 5 < tck)); then quiet=$((quiet + 1)); else quiet=0; fi
        waited=$((waited + 1))
    done
}

((summarize_only)) || printf 'round\tendpoint\tengine\tok\trequests_per_s\tp50_ms\tp99_ms\tothers_cores\tfile\n' >"$out/runs.tsv"
failures=0
n=${#engines[@]}
((summarize_only)) && rounds=0
for ((round = 1; round <= rounds; round++)); do
    for endpoint in "${endpoint_list[@]}"; do
        for ((k = 0; k < n; k++)); do
            engine="${engines[$(((k + round - 1) % n))]}"
            args=(--endpoint "$endpoint" --duration "$duration" --connections "$connections" --threads "$threads")
            case "$engine" in
                default) ;;
                nio-takeover) args+=(--nio-takeover) ;;
                *) args+=(--prefix "$arena exec --engine $engine --") ;;
            esac
            file="$out/r${round}-${endpoint}-${engine}.json"
            wait_quiet
            busy0="$(busy_ticks)" ours0="$(children_ticks)" t0="$(now_ms)"
            ok=true
            "$here/load.sh" "${args[@]}" --out "$file" || ok=false
            busy1="$(busy_ticks)" ours1="$(children_ticks)" t1="$(now_ms)"
            others="$(awk -v b=$((busy1 - busy0)) -v o=$((ours1 - ours0)) -v t=$((t1 - t0)) -v tck="$tck" \
                'BEGIN { x = (b - o) / tck / (t / 1000); printf "%.2f", x < 0 ? 0 : x }')"
            rps="" p50="" p99=""
            if [[ -f "$file" ]]; then
                rps="$(sed -n 's/.*"requests_per_s": \([0-9.]*\).*/\1/p' "$file")"
                p50="$(sed -n 's/.*"p50": \([0-9.]*\).*/\1/p' "$file")"
                p99="$(sed -n 's/.*"p99": \([0-9.]*\),.*/\1/p' "$file")"
                grep -q '"ok": true' "$file" || ok=false
            fi
            [[ "$ok" == true ]] || failures=$((failures + 1))
            printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$endpoint" "$engine" "$ok" "$rps" "$p50" "$p99" \
                "$others" "$(basename "$file")" >>"$out/runs.tsv"
        done
    done
done

# Medians per endpoint and engine: over all clean runs, and over the quiet ones (others under 0.3 cores).
summarize() {  # tsv endpoint engine -> one table row
    awk -F'\t' -v ep="$2" -v en="$3" '
        function median(a, m,   i, j, t) {
            for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
            return m % 2 ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
        }
        function cell(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
        NR > 1 && $2 == ep && $3 == en && $4 == "true" {
            m++; r[m] = $5; p[m] = $6; q[m] = $7
            each = each (m > 1 ? ", " : "") sprintf("%.0f%s", $5, $8 >= 0.3 ? "*" : "")
            if ($8 < 0.3) { k++; qr[k] = $5; qp[k] = $6; qq[k] = $7 }
        }
        END {
            printf "| %s | %s | %d | %s | %s | %s | %d | %s | %s | %s | %s |\n", ep, en, m,
                m ? cell(median(r, m), "%.0f") : "-", m ? cell(median(p, m), "%.3f") : "-", m ? cell(median(q, m), "%.3f") : "-",
                k, k ? cell(median(qr, k), "%.0f") : "-", k ? cell(median(qp, k), "%.3f") : "-", k ? cell(median(qq, k), "%.3f") : "-",
                m ? each : "-"
        }' "$1"
}
{
    echo "# arena-server: paired rounds"
    echo
    if ((summarize_only)); then
        echo "From $out/runs.tsv, $(date -u +%Y-%m-%dT%H:%MZ)."
    else
        echo "$rounds rounds of ${duration}s, wrk -t$threads -c$connections, on $(uname -n) ($(nproc) cores), $(date -u +%Y-%m-%dT%H:%MZ)."
    fi
    echo "Medians over all clean runs, then over the quiet ones only: runs during which other processes kept under 0.3"
    echo "cores busy on average (runs.tsv, others_cores). In the last column, * marks a contended run."
    echo
    echo "| endpoint | engine | runs | requests/s | p50 ms | p99 ms | quiet runs | requests/s | p50 ms | p99 ms | requests/s, each run |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    for endpoint in "${endpoint_list[@]}"; do
        for engine in "${engines[@]}"; do
            summarize "$out/runs.tsv" "$endpoint" "$engine"
        done
    done
} >"$out/summary.md"
cat "$out/summary.md"
((failures == 0)) || { echo "rounds.sh: $failures run(s) gave no clean number (see $out/runs.tsv)" >&2; exit 1; }
