#!/usr/bin/env bash
# A real server under load on each engine that can be Swift's global executor: builds Examples/HummingbirdServer's
# `arena-server` (release) and runs its rounds.sh with every variant, for `arena report DIR --server OUT` to join.
#
#   scripts/server-load.sh --arena PATH --out DIR [--rounds N] [--duration S] [--quiet-wait S] [--engines 'A B']
#
# --arena       the arena whose `arena exec` installs each engine (its libArenaGlobalExecutor.so beside it: a release
#               build's, so that the engines are measured as built for use)
# --out         rounds.sh's folder (runs.tsv, a JSON per run, summary.md); remade
# --rounds      paired rounds (default 3); --duration: each run's seconds (default 10); --quiet-wait: rounds.sh's
#               wait for an idle machine before each run (default 120)
# --engines     the variants, in this order (default: `swift`, the server unmodified on Swift's default executor,
#               then every engine `arena list --engines` names that `arena exec` accepts, then NIO's own takeover,
#               `nio-takeover`); an engine that cannot serve is left out with its one line on stderr
# Needs wrk and curl (scripts/require-packages.sh wrk curl installs them as root). The server's first build compiles
# Hummingbird 2 and SwiftNIO; later ones take seconds.
# Exit codes: 0 every run gave a clean number; 1 a build failed or a run gave none (its row in runs.tsv says why);
# 64 bad usage; 69 wrk or curl missing.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "scripts/server-load.sh: ${1:+$1; }usage: scripts/server-load.sh --arena PATH --out DIR [--rounds N] [--duration S] [--quiet-wait S] [--engines 'A B']" >&2
    exit 64
}
arena="" out="" rounds=3 duration=10 quiet_wait=120 engines=""
while (($#)); do
    case "$1" in
        --arena) (($# >= 2)) || usage; arena=$2; shift ;;
        --out) (($# >= 2)) || usage; out=$2; shift ;;
        --rounds) (($# >= 2)) || usage; rounds=$2; shift ;;
        --duration) (($# >= 2)) || usage; duration=$2; shift ;;
        --quiet-wait) (($# >= 2)) || usage; quiet_wait=$2; shift ;;
        --engines) (($# >= 2)) || usage; engines=$2; shift ;;
        -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage "unknown argument '$1'" ;;
    esac
    shift
done
[[ -n "$arena" && -x "$arena" ]] || usage "--arena: '$arena' is not an executable"
[[ -n "$out" && "$out" != / ]] || usage "--out is required"
for tool in wrk curl; do
    command -v "$tool" >/dev/null || { echo "scripts/server-load.sh: $tool not found: apt-get install $tool (or scripts/require-packages.sh wrk curl as root)" >&2; exit 69; }
done
arena=$(cd "$(dirname "$arena")" && pwd)/$(basename "$arena")

if [[ -z "$engines" ]]; then
    engines="swift"
    for engine in $("$arena" list --engines); do
        [[ $engine == swift ]] && continue
        # 64: the engine cannot serve (its one line says why); anything else but 0 is this machine's fault (69: no
        # libArenaGlobalExecutor.so beside arena).
        code=0
        "$arena" exec --engine "$engine" -- true || code=$?
        case $code in
            0) engines+=" $engine" ;;
            64) ;;
            *) echo "scripts/server-load.sh: '$arena exec --engine $engine -- true' exited $code" >&2; exit 1 ;;
        esac
    done
    engines+=" nio-takeover"
fi

server=Examples/HummingbirdServer
start=$SECONDS
(cd "$server" && nice -n 15 swift build -c release --product arena-server) >&2 ||
    { echo "scripts/server-load.sh: $server does not build" >&2; exit 1; }
export ARENA_SERVER_BIN="$(cd "$server" && swift build -c release --show-bin-path)/arena-server"
echo "server-load: arena-server built in $((SECONDS - start)) s; variants: $engines" >&2

rm -rf "$out"
start=$SECONDS
# shellcheck disable=SC2086 # the variants, one word each
"$server/rounds.sh" --rounds "$rounds" --duration "$duration" --quiet-wait "$quiet_wait" --arena "$arena" --out "$out" $engines
echo "server-load: the rounds took $((SECONDS - start)) s" >&2
