#!/usr/bin/env bash
# The one-command report: conformance matrix, benchmarks on every engine with the native C floor beside them, plots,
# and results/<date>-<host>/report.md tying them together.
#
#   scripts/report.sh [--quick | --full] [--out DIR] [--conformance FILE] [--scratch-path BUILD]
#
# --quick (the default) finishes within about 5 minutes on 2 cores after the release build; --full is the reference run (every size,
# 8 rounds, threads up to 16, conformance repeated 3 times, and instructions per operation under callgrind).
# --conformance FILE takes the matrix from FILE, the run record (run.json) `arena conform --out DIR` wrote on this
# same build, instead of running it again (CI hands over its quiet `arena conform`); a fail or timeout in it fails
# the report as one here would. --scratch-path BUILD builds and runs arena in BUILD instead of .build (CI makes its
# release build in a folder of its own, beside the README's test build). Everything lands in DIR's run record
# (run.json), and every file is made from it.
# The run is built in DIR.partial and renamed to DIR when complete, so DIR only ever holds a whole report. Exit 0
# when every rule held and every point has a number, 1 when something failed (the report is still written and says
# what), 64 on a usage error, 69 when a package is missing and this is not root.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/report.sh [--quick | --full] [--out DIR] [--conformance FILE] [--scratch-path BUILD]" >&2; exit 64; }
mode=quick
out=""
conformance=""
scratch=.build
while (($#)); do
    case "$1" in
        --quick) mode=quick ;;
        --full) mode=full ;;
        --out) (($# >= 2)) || usage; out=$2; shift ;;
        --out=*) out=${1#--out=} ;;
        --conformance) (($# >= 2)) || usage; conformance=$2; shift ;;
        --conformance=*) conformance=${1#--conformance=} ;;
        --scratch-path) (($# >= 2)) || usage; scratch=$2; shift ;;
        --scratch-path=*) scratch=${1#--scratch-path=} ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "scripts/report.sh: unknown argument '$1'" >&2; usage ;;
    esac
    shift
done
out=${out:-results/$(date +%F)-$(hostname -s)}
[[ -n "$out" && "$out" != "/" && -n "$scratch" ]] || usage
if [[ -n "$conformance" && ! -s "$conformance" ]]; then
    echo "scripts/report.sh: --conformance: no run record in '$conformance' (missing or empty)" >&2
    usage
fi

step() { printf '\n== %s (%s)\n' "$1" "$(date +%T)" >&2; }

bash scripts/require-packages.sh
command -v swift >/dev/null || { echo "scripts/report.sh: swift is not on PATH" >&2; exit 69; }

step "release build"
swift build -c release --scratch-path "$scratch"
arena=$scratch/release/arena

work="$out.partial"
rm -rf "$work"
mkdir -p "$work"
status=0

if [[ $mode == full ]]; then
    bench_flags=()
    floor_flags=()
    conform_flags=(--repeat 3)
else
    bench_flags=(--quick)
    floor_flags=(--quick)
    # Two rules per core at once: most of a rule's time is its sleeps and its child's start (docs/ARCHITECTURE.md).
    conform_flags=(--jobs $((2 * $(nproc))))
fi

if [[ -n "$conformance" ]]; then
    step "conformance matrix, from $conformance"
    # The folder's record starts from the one given: its matrix stays, the benchmarks below join it. A failed rule in
    # it fails the report through `arena report --strict` at the end.
    cp "$conformance" "$work/run.json"
    conform_note="\`arena conform\` before this script (its record given with --conformance)"
else
    step "conformance matrix, every engine"
    "$arena" conform "${conform_flags[@]}" --out "$work" || status=1
    conform_note="\`arena conform${conform_flags[*]:+ ${conform_flags[*]}}\`"
fi

step "native C floor (Google Benchmark, $mode)"
bash scripts/native/run.sh "$work/c-floor.json" "${floor_flags[@]}" || status=1

step "arena bench all ($mode), with the C floor"
floor_option=()
[[ -s "$work/c-floor.json" ]] && floor_option=(--floor "$work/c-floor.json")
"$arena" bench all "${bench_flags[@]}" --out "$work" "${floor_option[@]}" || status=1

if [[ $mode == full ]]; then
    # Instructions per operation of the single-threaded paths under callgrind: repeatable where the times above are
    # not. Left out of --quick, which CI runs close to its time limit.
    step "instructions per operation (callgrind)"
    "$arena" instructions --out "$work" || status=1
fi

step "plots"
"$arena" plot "$work" || status=1

step "report.md and every file, from the run record"
instructions_note=""
if [[ $mode == full ]]; then instructions_note="; instructions per operation: \`arena instructions\`"; fi
# --strict: exit 1 when the record holds a failed rule or a point without a number (the files are written anyway).
"$arena" report "$work" --strict \
    --note "Made by \`scripts/report.sh --$mode\` on $(date +%F) at commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)." \
    --note "Conformance: ${conform_note}; benchmarks: \`arena bench all${bench_flags[*]:+ ${bench_flags[*]}} --floor c-floor.json\`; C floor: \`scripts/native/run.sh${floor_flags[*]:+ ${floor_flags[*]}}\`; plots: \`arena plot\`${instructions_note}." \
    || status=1

rm -rf "$out"
mv "$work" "$out"
echo "report: $out/report.md" >&2
exit $status
