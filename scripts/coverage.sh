#!/usr/bin/env bash
# What the conformance catalog executes: builds arena and the example package's minimal-arena instrumented for code
# coverage (debug builds, folders .build-coverage), runs the whole catalog once with each (every rule on every engine;
# the tutorial engine through minimal-arena), and writes docs/COVERAGE.md (scripts/coverage/summarise.py): lines and
# regions run per part and per file for the tutorial engine and the default operation and executor layers, each run
# of lines no rule executes there with its reason (scripts/coverage/reasons.tsv), and the home engines' figures.
#
#   scripts/coverage.sh [--out FILE] [--keep DIR]
#
# FILE defaults to docs/COVERAGE.md; DIR (default: a temporary folder, removed) keeps the profiles and the exports.
# Exit 1 when a run of unexecuted lines in scope has no reason, or a reason names a line now run; 64 on a usage error.
# About 6 minutes here (builds 3, catalog 3). Needs llvm-profdata and llvm-cov from the Swift toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=docs/COVERAGE.md
keep=
while (($#)); do
    case "$1" in
        --out) (($# >= 2)) || { echo "usage: scripts/coverage.sh [--out FILE] [--keep DIR]" >&2; exit 64; }; out=$2; shift 2 ;;
        --keep) (($# >= 2)) || { echo "usage: scripts/coverage.sh [--out FILE] [--keep DIR]" >&2; exit 64; }; keep=$2; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "usage: scripts/coverage.sh [--out FILE] [--keep DIR]" >&2; exit 64 ;;
    esac
done

# The toolchain's own tools: the profile format follows the compiler, and a distribution's LLVM may be older.
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
for tool in llvm-profdata llvm-cov; do
    [[ -x $toolchain/$tool ]] || { echo "coverage.sh: $tool is not beside swift in $toolchain (a Swift toolchain has it)" >&2; exit 69; }
done

if [[ -n $keep ]]; then mkdir -p "$keep"; work=$(cd "$keep" && pwd); else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
flags=(-Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping)

echo "coverage.sh: building arena and minimal-arena instrumented (.build-coverage)" >&2
swift build --product arena --scratch-path .build-coverage "${flags[@]}" >"$work/build-arena.log" 2>&1 \
    || { tail -20 "$work/build-arena.log" >&2; exit 1; }
(cd Examples/MinimalEngine && swift build --product minimal-arena --scratch-path .build-coverage "${flags[@]}") \
    >"$work/build-minimal.log" 2>&1 || { tail -20 "$work/build-minimal.log" >&2; exit 1; }

# One program, the whole catalog: every process of it (each rule runs in children of the same binary) merges its
# counts into a pool of four files (%4m), so thousands of children leave four files, not thousands.
catalog() {
    local name=$1 program=$2
    shift 2
    rm -rf "${work:?}/$name" && mkdir -p "$work/$name"
    echo "coverage.sh: the catalog on $name" >&2
    # A rule failing is a result, not an error of this script: the counts are what it wants.
    LLVM_PROFILE_FILE="$work/$name/%4m.profraw" "$program" conform --format table "$@" >"$work/$name.conform.txt" 2>&1 || true
    "$toolchain/llvm-profdata" merge -sparse "$work/$name"/*.profraw -o "$work/$name.profdata"
    "$toolchain/llvm-cov" export -format=lcov "$program" -instr-profile "$work/$name.profdata" >"$work/$name.lcov"
    "$toolchain/llvm-cov" export "$program" -instr-profile "$work/$name.profdata" -skip-expansions >"$work/$name.json"
}
catalog arena .build-coverage/debug/arena
catalog minimal Examples/MinimalEngine/.build-coverage/debug/minimal-arena --engine minimal

mkdir -p "$(dirname "$out")"
python3 scripts/coverage/summarise.py "$work" "$out" "$(git -C "$root" rev-parse --short HEAD)"
