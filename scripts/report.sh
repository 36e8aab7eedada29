#!/usr/bin/env bash
# The one-command report: conformance matrix, benchmarks on every engine with the native C floor beside them, plots,
# and results/<date>-<host>/report.md tying them together.
#
#   scripts/report.sh [--quick | --full] [--out DIR] [--conformance FILE] [--scratch-path BUILD] [--root ROOT] [--strict]
#
# --quick (the default) finishes within about 5 minutes on 2 cores after the release build; --full is the reference run (every size,
# the time of 8 rounds a point, threads up to 16, conformance repeated 3 times, and instructions per operation under callgrind).
# It measures with the bundle's folder (scripts/bundle.sh --folder: arena with the Swift standard library linked in,
# the C floor, and the `run` script that runs the matrix, the floor, every workload and the instructions), then
# plots and reports here: the report and the bundle a user runs elsewhere measure alike, by one script.
# --conformance FILE takes the matrix from FILE, the run record (run.json) `arena conform --out DIR` wrote on this
# same build, instead of running it again (CI hands over its quiet `arena conform`); a fail or timeout in it fails
# the report as one here would. --scratch-path BUILD builds arena in BUILD instead of .build (CI makes its release
# build in a folder of its own, beside the README's test build); the build links the standard library in
# (--static-swift-stdlib), so a folder built without it compiles again. --root ROOT runs the bundle under chroot in
# ROOT, a root file system with nothing but a shell and the C runtime in it (CI makes one with debootstrap's minbase
# to show the bundle needs nothing else; root only), and copies its results out. Everything lands in DIR's run
# record (run.json), and every file is made from it.
# The run is built in DIR.partial and renamed to DIR when complete, so DIR only ever holds a whole report. Exit 0
# when every rule held and every point has a number, or what failed is a reference's documented deviation (report.md
# names it as the reference's own, with its finding); 1 when anything else failed, or with --strict anything at all
# (the report is still written and says what); 64 on a usage error, 69 when a package is missing and this is not root.
set -euo pipefail
cd "$(dirname "$0")/.."

# usage [WHAT]: one line on stderr, exit 64.
usage() {
    echo "scripts/report.sh: ${1:+$1; }usage: scripts/report.sh [--quick | --full] [--out DIR] [--conformance FILE] [--scratch-path BUILD] [--root ROOT] [--strict]" >&2
    exit 64
}
mode=quick
out=""
conformance=""
scratch=.build
root=""
strict=()
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
        --root) (($# >= 2)) || usage; root=$2; shift ;;
        --root=*) root=${1#--root=} ;;
        --strict) strict=(--strict) ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage "unknown argument '$1'" ;;
    esac
    shift
done
out=${out:-results/$(date +%F)-$(hostname -s)}
[[ -n "$out" && "$out" != "/" && -n "$scratch" ]] || usage
[[ -z "$conformance" || -s "$conformance" ]] || usage "--conformance: no run record in '$conformance' (missing or empty)"
[[ -z "$root" || -x "$root/bin/sh" ]] || usage "--root: '$root' is not a root file system (no bin/sh in it)"

step() { printf '\n== %s (%s)\n' "$1" "$(date +%T)" >&2; }

bash scripts/require-packages.sh
command -v swift >/dev/null || { echo "scripts/report.sh: swift is not on PATH" >&2; exit 69; }

step "release build, and the bundle's folder"
bundle=$(bash scripts/bundle.sh --folder --scratch-path "$scratch" | tail -n 1)
arena=$scratch/release/arena

work="$out.partial"
rm -rf "$work"
mkdir -p "$work"

# The bundle's run: the matrix (or the one given), the C floor, every workload with the floor beside it, and, in a
# full run, instructions per operation under callgrind (left out of --quick, which CI runs close to its time limit).
run_flags=(--$mode "${strict[@]}")
if [[ $mode == full ]]; then
    conform_note="\`arena conform --repeat 3\`"
    bench_note="\`arena bench all --floor c-floor.json\`"
else
    run_flags+=(--no-instructions)
    conform_note="\`arena conform --jobs $((2 * $(nproc)))\`"
    bench_note="\`arena bench all --quick --floor c-floor.json\`"
fi
[[ -n "$conformance" ]] && conform_note="\`arena conform\` before this script (its record given with --conformance)"
status=0
if [[ -z "$root" ]]; then
    [[ -n "$conformance" ]] && run_flags+=(--conformance "$conformance")
    "$bundle/run" "${run_flags[@]}" --out "$work" || status=1
else
    step "into $root: the bundle, run under chroot"
    inside=/opt/dispatch-arena
    rm -rf "${root:?}$inside" "$root/tmp/arena-results"
    mkdir -p "$root$inside"
    cp -a "$bundle/." "$root$inside/"
    if [[ -n "$conformance" ]]; then
        cp "$conformance" "$root/tmp/arena-conformance.json"
        run_flags+=(--conformance /tmp/arena-conformance.json)
    fi
    # What every machine has mounted: /proc (the runs read their threads and CPU time there) and /sys (lscpu); /dev
    # is the root's own.
    mounted=()
    trap 'for m in ${mounted[@]+"${mounted[@]}"}; do umount "$m" 2>/dev/null || true; done' EXIT
    for fs in proc sys; do
        if ! mountpoint -q "$root/$fs"; then
            mount -t "${fs/sys/sysfs}" "$fs" "$root/$fs"
            mounted+=("$root/$fs")
        fi
    done
    chroot "$root" "$inside/run" "${run_flags[@]}" --out /tmp/arena-results || status=1
    cp -a "$root/tmp/arena-results/." "$work/"
    for m in ${mounted[@]+"${mounted[@]}"}; do umount "$m"; done
    mounted=()
fi

# The real server (Examples/HummingbirdServer under wrk, each engine as Swift's global executor), in a full run only:
# it runs here, not in the bundle (the server is a Swift program of its own, built with the toolchain), and the quick
# report leaves it out (report.md says why: ServerLoadRecord.absentNote).
server_flags=()
if [[ $mode == full ]]; then
    step "a real server on each engine: scripts/server-load.sh (Examples/HummingbirdServer, wrk)"
    bash scripts/require-packages.sh wrk curl
    swift build -c release --product ArenaGlobalExecutor --scratch-path "$scratch" >&2
    bash scripts/server-load.sh --arena "$arena" --out "$work/server" || status=1
    [[ -s "$work/server/runs.tsv" ]] && server_flags=(--server "$work/server")
fi

# Joined to the record before the plots, which draw it as the workload `server` (exit 1 is the run's failures, said
# by the report below).
if ((${#server_flags[@]})); then
    "$arena" report "$work" --reporter csv "${server_flags[@]}" >/dev/null || (($? == 1)) || status=1
fi

step "plots"
"$arena" plot "$work" || status=1

step "report.md and every file, from the run record"
instructions_note=""
if [[ $mode == full ]]; then
    instructions_note="; instructions per operation: \`arena instructions\`; the server: \`scripts/server-load.sh\`"
fi
# Exit 1 when the run failed (a reference's documented deviation excepted, unless --strict); the files are written
# anyway.
"$arena" report "$work" "${strict[@]}" \
    --note "Made by \`scripts/report.sh --$mode\` on $(date +%F) at commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)." \
    --note "Conformance: ${conform_note}; benchmarks: ${bench_note}; C floor: the bundle's \`bin/c-floor\` (scripts/native/floor.cpp); plots: \`arena plot\`${instructions_note}${root:+; measured under chroot in a minimal root}." \
    || status=1

rm -rf "$out"
mv "$work" "$out"
echo "report: $out/report.md" >&2
exit $status
