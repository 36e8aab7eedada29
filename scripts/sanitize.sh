#!/usr/bin/env bash
# The engines' tests under a sanitizer, one engine at a time:
#
#   scripts/sanitize.sh thread|address [ENGINE...]        (default: every registered engine)
#   scripts/sanitize.sh --build-only thread|address        (the build alone, e.g. ahead of time in CI)
#
# thread:  ThreadSanitizer, build folder .build-tsan. A race in a rule's child process fails that rule (the child
#          prints the report, the parent reads it); a race in the test process makes it exit 66.
# address: AddressSanitizer with LeakSanitizer, build folder .build-asan. Leak suppressions: scripts/sanitizers/lsan.supp
#          (XCTest's own two objects, nothing of ours). Leaks are checked in the test process, where the pool tests
#          shut engines down; rule children end with _exit and are not leak-checked.
#
# For each engine it runs, with ARENA_ENGINES=ENGINE, the suites that look at that engine: the catalog, the
# happens-before probes, and (where the engine has them) the lock-free structure and executor-job tests, the pool
# tests, the actor engine's async waits and the process and file sources' descriptor checks. Any sanitizer report in
# the output fails the engine even if the tests passed. Exit 0 when every engine is clean, 1 otherwise, 64 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/sanitize.sh [--build-only] thread|address [ENGINE...]" >&2; exit 64; }
build_only=0
if [[ ${1:-} == --build-only ]]; then build_only=1; shift; fi
(($# >= 1)) || usage
sanitizer=$1
shift
((build_only == 0 || $# == 0)) || usage
case "$sanitizer" in
    thread) scratch=.build-tsan ;;
    address)
        scratch=.build-asan
        export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
        export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/sanitizers/lsan.supp}
        ;;
    *) echo "scripts/sanitize.sh: unknown sanitizer '$sanitizer' (usage: scripts/sanitize.sh [--build-only] thread|address [ENGINE...])" >&2; exit 64 ;;
esac
suites='CatalogTests|HappensBeforeTests|LockFreeStructureTests|LockFreeExecutorTests|ThreadPoolEngineTests|ActorEngineTests|WatchSourceTests'
flags=(--sanitize="$sanitizer" --scratch-path "$scratch")

swift build --build-tests "${flags[@]}"
((build_only)) && exit 0
known=$("$scratch/debug/arena" list --engines)
engines=("$@")
((${#engines[@]})) || read -r -a engines <<<"$(echo $known)"
for engine in "${engines[@]}"; do
    grep -qx "$engine" <<<"$known" || { echo "scripts/sanitize.sh: unknown engine '$engine' (known: $(echo $known))" >&2; exit 64; }
done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=()
for engine in "${engines[@]}"; do
    echo "== $sanitizer sanitizer: $engine ($(date +%T))" >&2
    start=$SECONDS
    status=0
    ARENA_ENGINES=$engine swift test --skip-build "${flags[@]}" --filter "$suites" >"$log" 2>&1 || status=$?
    # Each issue with the lines of its comment (↳: the engine, the rule, its status and detail).
    awk '/^(✔|✘) (Suite|Test run)/ { print; next }
        /recorded an issue/ { print; comment = 1; next }
        comment && /^↳/ { print; next }
        { comment = 0 }' "$log" >&2 || true
    if grep -qE 'WARNING: ThreadSanitizer|ERROR: (AddressSanitizer|LeakSanitizer)' "$log"; then
        grep -E -A12 'WARNING: ThreadSanitizer|ERROR: (AddressSanitizer|LeakSanitizer)' "$log" | head -40 >&2
        status=1
    fi
    echo "== $engine: $( ((status == 0)) && echo clean || echo "FAILED (exit $status)" ) in $((SECONDS - start)) s" >&2
    ((status == 0)) || failed+=("$engine")
done
if ((${#failed[@]})); then
    echo "scripts/sanitize.sh $sanitizer: failed on ${failed[*]}" >&2
    exit 1
fi
echo "scripts/sanitize.sh $sanitizer: ${engines[*]} clean" >&2
