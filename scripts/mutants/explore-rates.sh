#!/usr/bin/env bash
# Measures how many faults of a family the generated scenarios alone catch (`arena explore`, docs/MUTANTS.md): builds
# faulty-arena once (release), explores the fault-free engine and each fault with the same seeds, quiet and (with
# --stress) under load, and records for every fault whether a program disagreed, which, and how.
#
#   scripts/mutants/explore-rates.sh [--out DIR] [--budget N] [--seed S] [--stress | --only quiet|stress]
#                                    [--family catalog|reach] [FAULT...]
#
# The family names the faults run when no FAULT is given: `catalog` (the default), those of
# Examples/MinimalEngine/Mutants/faults.txt; `reach`, those of Examples/MinimalEngine/Mutants/faults-reach.txt.
# DIR (default results/explore-<date>-<host>, gitignored) gets <mode>/<fault>.txt (explore's output; `none` is the
# fault-free engine), commit.txt, and summary.md and summary.tsv written by scripts/mutants/explore-summary.py, which
# counts the faults by the areas the generator covers (scripts/mutants/explore-areas.tsv, or explore-areas-reach.tsv
# for the reach family). Budget 1000 programs per fault by default (a fault caught stops at its first disagreement; one
# that escapes costs about 25 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

out="results/explore-$(date +%Y%m%d-%H%M)-$(hostname -s)"
budget=1000
seed=1
modes=(quiet)
family=catalog
faults=()
while (($#)); do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --budget) budget=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --stress) modes=(quiet stress); shift ;;
        --only) modes=("$2"); shift 2 ;;
        --family) family=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) echo "explore-rates.sh: unknown option $1" >&2; exit 64 ;;
        *) faults+=("$1"); shift ;;
    esac
done
case "$family" in
    catalog) faults_file=Examples/MinimalEngine/Mutants/faults.txt ;;
    reach) faults_file=Examples/MinimalEngine/Mutants/faults-reach.txt ;;
    *) echo "explore-rates.sh: unknown family $family (catalog or reach)" >&2; exit 64 ;;
esac
((${#faults[@]})) || mapfile -t faults < <(sed -n 's/^## fault: *//p' "$faults_file")
mkdir -p "$out"
out=$(cd "$out" && pwd)
{
    echo "commit $(git rev-parse HEAD)"
    git status --porcelain -- Sources Examples/MinimalEngine | sed 's/^/dirty /'
    echo "budget $budget seed $seed"
    echo "family $family"
    date -u +"started %FT%TZ"
} >"$out/commit.txt"

(cd Examples/MinimalEngine && swift build -c release --product faulty-arena 2>&1 | tail -1)
arena="$root/Examples/MinimalEngine/.build/release/faulty-arena"

for mode in "${modes[@]}"; do
    mkdir -p "$out/$mode"
    flags=()
    [[ $mode == stress ]] && flags=(--stress)
    for fault in none "${faults[@]}"; do
        start=$SECONDS
        value=$fault
        [[ $fault == none ]] && value=
        status=0
        ARENA_FAULT=$value "$arena" explore --engine minimal-faulty --seed "$seed" --budget "$budget" --no-shrink \
            ${flags[@]+"${flags[@]}"} >"$out/$mode/$fault.txt" 2>"$out/$mode/$fault.err" || status=$?
        echo "exit $status" >>"$out/$mode/$fault.txt"
        printf '%s %-40s exit %d %4d s\n' "$mode" "$fault" "$status" $((SECONDS - start))
    done
done
date -u +"finished %FT%TZ" >>"$out/commit.txt"
python3 scripts/mutants/explore-summary.py "$out"
