#!/usr/bin/env bash
# load.sh: one load run of arena-server on loopback, as one JSON file.
#
# Usage:
#   load.sh [--prefix 'CMD PREFIX'] [--nio-takeover] [--duration S] [--connections C] [--threads T]
#           --endpoint plain|work --out FILE.json
#
# It builds nothing. The server binary is $ARENA_SERVER_BIN, or `arena-server` in the directory that
# `swift build -c release --show-bin-path` prints for this package (so build it first: `swift build -c release`).
# Steps, each with a deadline:
#   1. starts `PREFIX arena-server --host 127.0.0.1 --port 0 --seconds (duration + margin) [--nio-takeover]`
#      (PREFIX is split on spaces, e.g. 'arena exec --engine mutex --'), and reads the port from its
#      `listening HOST:PORT` line;
#   2. checks the answers of GET /plain, /work and /work?seed=7 with curl: a wrong body means no number (exit 1);
#   3. runs `wrk --latency` against the endpoint for the duration, with a Lua script whose done() prints the numbers;
#   4. checks /work again, stops the server (SIGTERM, then SIGKILL), and writes FILE.json (and wrk's own text beside
#      it, FILE.wrk.txt).
# The server stops by itself after its --seconds whatever happens here, and `timeout` bounds it too.
#
# Exit codes: 0 a clean number; 1 no clean number (a wrong body, the server died or would not start, wrk errors or
# non-2xx/3xx answers: FILE.json is still written when wrk ran, with "ok": false); 64 bad usage; 69 wrk, curl or the
# server binary missing.
set -euo pipefail

readonly here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The answers the server must give (Sources/ArenaServer/Routes.swift).
readonly plain_body='hello from arena-server'
readonly work_body='sum=6197547934 bumps=4'
readonly work_seed7_body='sum=4950221953 bumps=4'
# Deadlines, in seconds.
readonly start_deadline="${LOAD_START_DEADLINE:-30}"  # until the `listening` line
readonly curl_deadline=5                                # one check
readonly stop_deadline=10                               # from SIGTERM to exit, then SIGKILL
readonly server_margin=60                               # the server's --seconds past the wrk run

usage() {
    echo "usage: load.sh [--prefix 'CMD PREFIX'] [--nio-takeover] [--duration S] [--connections C] [--threads T] --endpoint plain|work --out FILE.json" >&2
    exit 64
}
die() {  # one line, then exit
    echo "load.sh: $2" >&2
    exit "$1"
}

prefix="" takeover=0 duration=10 connections=32 threads=2 endpoint="" out=""
while (($#)); do
    case "$1" in
        --prefix) (($# >= 2)) || usage; prefix="$2"; shift 2 ;;
        --nio-takeover) takeover=1; shift ;;
        --duration) (($# >= 2)) || usage; duration="$2"; shift 2 ;;
        --connections) (($# >= 2)) || usage; connections="$2"; shift 2 ;;
        --threads) (($# >= 2)) || usage; threads="$2"; shift 2 ;;
        --endpoint) (($# >= 2)) || usage; endpoint="$2"; shift 2 ;;
        --out) (($# >= 2)) || usage; out="$2"; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) usage ;;
    esac
done
[[ "$endpoint" == plain || "$endpoint" == work ]] || usage
[[ -n "$out" ]] || usage
for n in "$duration" "$connections" "$threads"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || usage
done
((connections >= threads)) || die 64 "--connections ($connections) must be at least --threads ($threads)"

command -v wrk >/dev/null || die 69 "wrk not found: apt-get install wrk"
command -v curl >/dev/null || die 69 "curl not found: apt-get install curl"

if [[ -z "${ARENA_SERVER_BIN:-}" ]]; then
    bin_dir="$(cd "$here" && timeout 120 swift build -c release --show-bin-path)" \
        || die 69 "cannot ask swift for the bin path; set ARENA_SERVER_BIN"
    ARENA_SERVER_BIN="$bin_dir/arena-server"
fi
[[ -x "$ARENA_SERVER_BIN" ]] || die 69 "no server binary at $ARENA_SERVER_BIN: build it (cd $here && swift build -c release) or set ARENA_SERVER_BIN"

work="$(mktemp -d)"
server_pid=""
stop_server() {  # SIGTERM, wait up to stop_deadline, then SIGKILL; sets server_status
    server_status=""
    [[ -n "$server_pid" ]] || return 0
    if kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        local waited=0
        while kill -0 "$server_pid" 2>/dev/null && ((waited < stop_deadline * 10)); do
            sleep 0.1
            waited=$((waited + 1))
        done
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    server_status=0
    wait "$server_pid" 2>/dev/null || server_status=$?
    server_pid=""
}
cleanup() {
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT

# 1. The server, on port 0, under the prefix, bounded by its own --seconds and by `timeout`.
read -r -a prefix_words <<<"$prefix"
server_seconds=$((duration + server_margin))
server_args=(--host 127.0.0.1 --port 0 --seconds "$server_seconds")
((takeover)) && server_args+=(--nio-takeover)
: >"$work/server.out"  # there before the server's own redirection, so that the reader below never misses it
timeout -k 5 $((server_seconds + 20)) "${prefix_words[@]}" "$ARENA_SERVER_BIN" "${server_args[@]}" \
    >"$work/server.out" 2>"$work/server.err" </dev/null &
server_pid=$!

port=""
for ((tick = 0; tick < start_deadline * 20; tick++)); do
    line="$(grep -m1 '^listening ' "$work/server.out" || true)"
    if [[ -n "$line" ]]; then
        port="${line##*:}"
        break
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
        stop_server
        die 1 "the server exited (status $server_status) before listening: $(head -n1 "$work/server.err")"
    fi
    sleep 0.05
done
[[ "$port" =~ ^[0-9]+$ ]] || die 1 "no 'listening HOST:PORT' line from the server within ${start_deadline}s"
base="http://127.0.0.1:$port"

# 2. The answers, before any number.
check() {  # path expected
    local body
    body="$(curl -sS --fail --max-time "$curl_deadline" "$base$1" 2>&1)" || die 1 "GET $1 failed: $body"
    [[ "$body" == "$2" ]] || die 1 "GET $1 answered '$body', expected '$2': no number"
}
check /plain "$plain_body"
check /work "$work_body"
check "/work?seed=7" "$work_seed7_body"

# 3. The load. done() prints one line of JSON (latencies: wrk gives microseconds, written here as milliseconds).
cat >"$work/report.lua" <<'LUA'
done = function(summary, latency, requests)
  local e = summary.errors
  local ms = function(us) return string.format("%.3f", us / 1000) end
  io.write(string.format(
    'ARENA_JSON {"requests": %d, "duration_s": %.3f, "requests_per_s": %.1f, ' ..
    '"latency_ms": {"p50": %s, "p90": %s, "p99": %s, "p99_9": %s, "mean": %s, "max": %s}, ' ..
    '"errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, "non_2xx_3xx": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    ms(latency:percentile(50)), ms(latency:percentile(90)), ms(latency:percentile(99)),
    ms(latency:percentile(99.9)), ms(latency.mean), ms(latency.max),
    e.connect, e.read, e.write, e.timeout, e.status))
end
LUA
wrk_status=0
timeout -k 5 $((duration + 30)) wrk --latency --timeout 5s -t "$threads" -c "$connections" -d "${duration}s" \
    -s "$work/report.lua" "$base/$endpoint" >"$work/wrk.out" 2>&1 || wrk_status=$?
stats="$(sed -n 's/^ARENA_JSON //p' "$work/wrk.out")"

# 4. Still answering, then stop.
after_ok=true
after_body="$(curl -sS --max-time "$curl_deadline" "$base/work" 2>&1)" || true
[[ "$after_body" == "$work_body" ]] || after_ok=false
stop_server

[[ -n "$stats" ]] || die 1 "wrk gave no numbers (status $wrk_status): $(tail -n1 "$work/wrk.out")"
cp "$work/wrk.out" "${out%.json}.wrk.txt"

json_string() {  # a JSON string literal for $1
    local s="$1"
    s="${s//\\/\\\\}"
    s="${s//\"/\\\"}"
    printf '"%s"' "$s"
}
ok=true
problem=""
if ! [[ "$stats" =~ \"errors\":\ \{\"connect\":\ 0,\ \"read\":\ 0,\ \"write\":\ 0,\ \"timeout\":\ 0\},\ \"non_2xx_3xx\":\ 0\} ]]; then
    ok=false problem="wrk counted errors or non-2xx/3xx answers"
fi
if [[ "$after_ok" != true ]]; then
    ok=false problem="GET /work after the load answered '$after_body'"
fi
if [[ "$server_status" != 0 ]]; then
    ok=false problem="the server exited with status $server_status: $(head -n1 "$work/server.err")"
fi
executor=default
((takeover)) && executor=nio-takeover
{
    printf '{\n'
    printf '  "endpoint": "%s",\n' "$endpoint"
    printf '  "executor": "%s",\n' "$executor"
    printf '  "prefix": %s,\n' "$(json_string "$prefix")"
    printf '  "threads": %d,\n  "connections": %d,\n  "duration_s_requested": %d,\n' "$threads" "$connections" "$duration"
    printf '  "wrk": %s,\n' "$stats"
    printf '  "server_exit": %s,\n' "$server_status"
    printf '  "ok": %s,\n' "$ok"
    printf '  "problem": %s,\n' "$(json_string "$problem")"
    printf '  "host": %s,\n  "cores": %d,\n  "date": "%s"\n' "$(json_string "$(uname -n)")" "$(nproc)" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf '}\n'
} >"$out"
[[ "$ok" == true ]] || die 1 "$problem (numbers in $out)"
echo "load.sh: $endpoint ($executor${prefix:+, $prefix}): $(sed -n 's/.*"requests_per_s": \([0-9.]*\).*"p50": \([0-9.]*\).*"p99": \([0-9.]*\),.*/\1 req\/s, p50 \2 ms, p99 \3 ms/p' <<<"$stats") -> $out"
