#!/usr/bin/env bash
# Measures how many faults of a family the conformance catalog catches (docs/MUTANTS.md): builds faulty-arena once
# (release), runs the whole catalog on the fault-free engine and on each fault, quiet (--repeat 1) and under --stress,
# and records for every fault which rules failed.
#
#   scripts/mutants/kill-rates.sh [--out DIR] [--timeout SECONDS] [--only quiet|stress] [--family catalog|reach]
#                                 [FAULT...]
#
# The family names the faults run when no FAULT is given: `catalog` (the default), those of
# Examples/MinimalEngine/Mutants/faults.txt; `reach`, those of Examples/MinimalEngine/Mutants/faults-reach.txt.
# DIR (default results/mutants-<date>-<host>, gitignored) gets quiet/<fault>.json and stress/<fault>.json (the
# `conform --format json` of each run; `none` is the fault-free engine), commit.txt, and summary.md and summary.tsv
# written by scripts/mutants/summarise.py (for the family commit.txt names). A rule failing on the fault-free
# engine in the same mode is not counted as catching a fault. Sequential on purpose: rules are about interleavings,
# and a run beside another changes them.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

out="results/mutants-$(date +%Y%m%d-%H%M)-$(hostname -s)"
timeout=4
modes=(quiet stress)
family=catalog
faults=()
while (($#)); do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --only) modes=("$2"); shift 2 ;;
        --family) family=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) echo "kill-rates.sh: unknown option $1" >&2; exit 64 ;;
        *) faults+=("$1"); shift ;;
    esac
done
case "$family" in
    catalog) faults_file=Examples/MinimalEngine/Mutants/faults.txt ;;
    reach) faults_file=Examples/MinimalEngine/Mutants/faults-reach.txt ;;
    *) echo "kill-rates.sh: unknown family $family (catalog or reach)" >&2; exit 64 ;;
esac
((${#faults[@]})) || mapfile -t faults < <(sed -n 's/^## fault: *//p' "$faults_file")
mkdir -p "$out/quiet" "$out/stress"
out=$(cd "$out" && pwd)

{
    echo "commit $(git rev-parse HEAD)"
    git status --porcelain -- Sources Examples/MinimalEngine | sed 's/^/dirty /'
    echo "timeout $timeout"
    echo "family $family"
    date -u +"started %FT%TZ"
} >"$out/commit.txt"

(cd Examples/MinimalEngine && swift build -c release --product faulty-arena 2>&1 | tail -1)
arena="$root/Examples/MinimalEngine/.build/release/faulty-arena"

for mode in "${modes[@]}"; do
    flags=()
    [[ $mode == stress ]] && flags=(--stress)
    for fault in none "${faults[@]}"; do
        start=$SECONDS
        value=$fault
        [[ $fault == none ]] && value=
        ARENA_FAULT=$value "$arena" conform --engine minimal-faulty --timeout "$timeout" --format json \
            ${flags[@]+"${flags[@]}"} >"$out/$mode/$fault.json" 2>"$out/$mode/$fault.err" || true
        printf '%s %-40s %4d s\n' "$mode" "$fault" $((SECONDS - start))
    done
done
date -u +"finished %FT%TZ" >>"$out/commit.txt"
python3 scripts/mutants/summarise.py "$out"
