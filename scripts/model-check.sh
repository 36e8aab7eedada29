#!/usr/bin/env bash
# Model-checks the protocols behind four historic races of the home engines (docs/RACES.md), and the lock-free protocols
# added since (each with seeded slips the checker must catch), with spin: each model in
# models/ is checked exhaustively in each variant below, and each variant must end as expected: `verifies` (no
# assertion violated in any interleaving) or `fails` (spin finds a counterexample). The engine as it is now must verify;
# a historic variant (the code before a fix) must fail: a model that stops reproducing its race no longer checks
# anything. Should a model of the current code find a race, list it as `fails` marked FINDING with its proposed fix as
# `verifies` until the engine's fix lands (docs/RACES.md). Prints the states explored and the time of each; exits 1 if
# any variant ends otherwise.
# Needs spin and a C compiler (scripts/require-packages.sh installs spin). Usage: scripts/model-check.sh [--trails DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
trails=
if [[ ${1:-} == --trails ]]; then trails=$(realpath -m "$2"); mkdir -p "$trails"; fi
command -v spin >/dev/null || { echo "spin is not installed (scripts/require-packages.sh installs it)" >&2; exit 69; }
cc=${CC:-$(command -v cc || command -v gcc || command -v clang)}

# model | defines | expected | what the variant is
variants=(
    "reactor-arming|                            |verifies|now: registered unarmed, armed once the id is recorded"
    "reactor-arming|-DHISTORIC                  |fails   |before 87cad1e: armed inside register()"
    "search-handoff|                            |verifies|now: every look that finds work hands on, a claimed parker too"
    "search-handoff|-DHISTORIC                  |fails   |before 1ea3c18: the final look hands nothing on"
    "search-handoff|-DDROP_CLAIM                |fails   |before 89439c5: a parking worker that finds work drops a push's claim"
    "steal-window  |                            |verifies|now: a steal takes one job, may spare a lone one, on three workers"
    "steal-window  |-DBATCH                     |fails   |before 278de44: batches of at most 16 (2 here), on many cores"
    "steal-window  |-DHISTORIC                  |fails   |before b28fb4f: a steal takes half a full queue"
    "group-rounds  |                            |verifies|now: by round, and a take that put notifications back settles again"
    "group-rounds  |-DHISTORIC                  |fails   |before fcc8ad5: a late leaver takes the next cycle's notify"
    "group-rounds  |-DSETTLE_ONCE               |fails   |before 1b2b0d5: a notify put back while another settle saw the stack empty is stranded"
    "sync-sleep    |                            |verifies|now: a woken waiter takes with the bit set again, or passes its wake-up on"
    "sync-sleep    |-DNO_REARM                  |fails   |seeded: a woken waiter takes the queue without setting syncWaiting again"
    "sync-sleep    |-DNO_PASS_ON                |fails   |seeded: a woken waiter that leaves for the FIFO drops its wake-up"
    "actor-handoff |                            |verifies|now: a producer counts its block, then looks at the mailbox again"
    "actor-handoff |-DLOOK_ONCE                 |fails   |seeded: the producer looks at the mailbox only before counting"
    "actor-handoff |-DNO_RECHECK                |fails   |seeded: the last finish wakes the barrier without looking at the count again"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
total_start=$(date +%s.%N)
printf '%-15s %-28s %-9s %-9s %12s %8s  %s\n' model defines expected result states seconds variant
for entry in "${variants[@]}"; do
    IFS='|' read -r model defines expected what <<<"$entry"
    model=${model// /}; expected=${expected// /}; read -r -a flags <<<"$defines"
    dir="$work/$model${defines// /}"
    mkdir -p "$dir"
    cp "models/$model.pml" "$dir/"
    start=$(date +%s.%N)
    (cd "$dir" && spin ${flags[@]+"${flags[@]}"} -a "$model.pml" >spin.log 2>&1 &&
        "$cc" -O2 -w -DSAFETY -o pan pan.c >cc.log 2>&1 &&
        ./pan -E -m100000 >pan.log 2>&1) || { echo "model-check: $model $defines did not build or run:" >&2; cat "$dir"/*.log >&2; exit 1; }
    seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$dir/pan.log")
    states=$(awk '/states, stored/ { print $1; exit }' "$dir/pan.log")
    grep -q 'search depth too small' "$dir/pan.log" && { echo "model-check: $model $defines: search depth too small" >&2; bad=1; }
    [[ $errors == 0 ]] && result=verifies || result=fails
    mark=ok
    [[ $result == "$expected" ]] || { mark=UNEXPECTED; bad=1; }
    printf '%-15s %-28s %-9s %-9s %12s %8s  %s%s\n' "$model" "${defines// /}" "$expected" "$result" "$states" "$seconds" "$what" \
        "$([[ $mark == ok ]] || echo "  <- $mark")"
    if [[ $result == fails ]]; then
        violated=$(grep -m1 'assertion violated' "$dir/pan.log" | sed 's/^pan:1: //')
        echo "    counterexample: $violated"
        if [[ -n $trails ]]; then
            (cd "$dir" && spin -t -p ${flags[@]+"${flags[@]}"} "$model.pml" >"$trails/$model${defines// /}.trail.txt" 2>&1) || true
        fi
    fi
done
awk -v s="$total_start" -v e="$(date +%s.%N)" 'BEGIN { printf "model-check: %.1f s in all\n", e - s }'
if ((bad)); then echo "model-check: a variant did not end as expected (see UNEXPECTED above)" >&2; exit 1; fi
echo "model-check: every variant ended as expected"
