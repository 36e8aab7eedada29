#!/usr/bin/env bash
# A peer's own test suite under other executors: swift-async-algorithms' tests, unmodified, run whole once for each
# variant under a command prefix (e.g. `env LD_PRELOAD=lib.so` or `arena exec --engine NAME --`), with per-test results.
#
#   scripts/peer-suite.sh --out DIR [OPTIONS] NAME=PREFIX...
#   scripts/peer-suite.sh --build-only [--scratch DIR]
#
#   NAME=PREFIX   one variant: NAME names its files, PREFIX is the command the test binary is run under, split on
#                 spaces (no quoting; paths relative to the repository root). An empty PREFIX (`swift=`) runs the
#                 binary as it is: Swift's default executors. The first variant is the reference the others are
#                 compared with; give the reference twice (`swift=` `swift-again=`) to see which tests are flaky.
#                 Environment goes through env: 'hook=env LD_PRELOAD=/abs/libhook.so'.
#   --out DIR           where the results go (made if missing)
#   --timeout SECS      time limit of each test process (default 300 for a whole suite, 120 with --isolate test);
#                       past it the process gets SIGTERM, 10 s later SIGKILL, and its tests count as unfinished
#   --isolate MODE      suite (default): one process for the whole XCTest suite (5 s on the default executor), so
#                       one crash or hang ends the run and the rest is "not run";
#                       test: one process per XCTest test (338 with 1.1.4; about 10 s in all on the default
#                       executor), so each test starts with the variant's executor freshly installed and a crash or
#                       hang costs only that test. Use it for an executor installed through
#                       swift_task_enqueueGlobal_hook: the suite's own marble-diagram tests (AsyncSequenceValidation)
#                       set that hook to their own driver and then to nil, so in one whole-suite process every test
#                       from the 43rd on (TestBuffer's first diagram test) runs on the default executor again.
#   --only FILTER       XCTest's filter (Module.Class or Module.Class/test; a prefix of the listed names with
#                       --isolate test) and swift-testing's --filter, instead of the whole suite
#   --collect REGEX     keep the log lines that match (e.g. a preload's own report) in the results
#   --scratch DIR       checkout and build folder (default .build-peer, ignored by .gitignore's `.build*/`)
#   --tag TAG           swift-async-algorithms' tag (default 1.1.4)
#   -c, --configuration debug|release   (default debug; release adds -Xswiftc -enable-testing, as one test file has
#                       `@testable import AsyncAlgorithms_XCTest`, and builds into .build/release beside debug)
#   --build-only        check out and build the tests, run nothing
#
# What it does: clones https://github.com/apple/swift-async-algorithms at TAG into SCRATCH/swift-async-algorithms
# (offline: git's url.insteadOf reads github.com from the local mirror), puts back the two Locking.swift symlinks the
# mirror's snapshot lacks, builds with `swift build --build-tests` (nice -n 15), lists the XCTest tests, then for each
# variant runs the XCTest suite and the swift-testing suite (`--testing-library swift-testing --xunit-output`; with a
# 6.3 compiler 1.1.4 has no swift-testing test, they are behind `UnstableAsyncStreaming && compiler(>=6.4)`, and the
# binary exits 69 for "no test found", which counts as a pass). A prefix's LD_PRELOAD reaches only the test binary
# (timeout runs the prefix, not the other way round).
#
# Known flake on every executor, the default one included: TestFlatMapLatest.test_empty_inner hangs in about 4% of
# runs (a lost wakeup; every thread idle), so a run now and then ends at the time limit. Run the reference twice.
#
# In DIR: build.log, build.json ({tag, config, seconds, exitCode, binary, isolate}), tests.txt (--list-tests) and
# tests-expected.txt (those --only keeps),
# for each variant NAME.log (the raw output; with --isolate test each test's output under a `=== ` header line),
# NAME.swift-testing.log and .xml, NAME.runs.tsv (one line per process) and NAME.json ({"variant", "prefix",
# "passed", "failed", "skipped", "unfinished", "notRun", "seconds", "exitCode", "timedOut", "runs", "excerpts",
# "collected"}; scripts/peer-suite/results.py says what each field holds), and summary.md / summary.json: the
# variants side by side, the tests that regress against the reference (with output excerpts), the flaky ones.
#
# Exit status: 0 when every variant passed every test it ran, 1 when one did not, 2 when the build failed,
# 64 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

usage() {
    sed -n '5,6p' "$0" | sed 's/^#  *//' >&2
    echo "(scripts/peer-suite.sh's header comment says more)" >&2
    exit 64
}

out='' timeout_s='' isolate=suite only='' collect='' scratch=.build-peer tag=1.1.4 config=debug build_only=0
variants=()
while (($#)); do
    case $1 in
        --out) out=${2:?}; shift 2 ;;
        --timeout) timeout_s=${2:?}; shift 2 ;;
        --isolate) isolate=${2:?}; shift 2 ;;
        --only) only=${2:?}; shift 2 ;;
        --collect) collect=${2:?}; shift 2 ;;
        --scratch) scratch=${2:?}; shift 2 ;;
        --tag) tag=${2:?}; shift 2 ;;
        -c | --configuration) config=${2:?}; shift 2 ;;
        --build-only) build_only=1; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --) shift; variants+=("$@"); break ;;
        -*) echo "unknown option $1" >&2; usage ;;
        *) variants+=("$1"); shift ;;
    esac
done
[[ $isolate == suite || $isolate == test ]] || usage
[[ $config == debug || $config == release ]] || usage
[[ $timeout_s == '' || $timeout_s =~ ^[0-9]+$ ]] || usage
if ((build_only == 0)); then
    [[ -n $out && ${#variants[@]} -gt 0 ]] || usage
fi
declare -A seen=()
for variant in "${variants[@]}"; do
    [[ $variant == *=* && ${variant%%=*} =~ ^[A-Za-z0-9._-]+$ ]] || { echo "not NAME=PREFIX: $variant" >&2; usage; }
    [[ -z ${seen[${variant%%=*}]:-} ]] || { echo "variant named twice: ${variant%%=*}" >&2; usage; }
    seen[${variant%%=*}]=1
done
: "${timeout_s:=$([[ $isolate == test ]] && echo 120 || echo 300)}"

# Wall time without a process per reading (a run with --isolate test reads it about 700 times a variant).
now() { local t=${EPOCHREALTIME/[.,]/}; echo "${t:0:-3}"; } # milliseconds
elapsed() { local ms=$(($2 - $1)); printf '%d.%03d' $((ms / 1000)) $((ms % 1000)); }

# --- the checkout ------------------------------------------------------------------------------------------------
mkdir -p "$scratch"
src=$scratch/swift-async-algorithms
if [[ -d $src/.git && $(git -C "$src" describe --tags --exact-match 2>/dev/null || true) != "$tag" ]]; then
    echo "peer-suite: $src is not at $tag; checking it out again" >&2
    rm -rf "$src"
fi
if [[ ! -d $src/.git ]]; then
    git -c advice.detachedHead=false clone --quiet --branch "$tag" https://github.com/apple/swift-async-algorithms "$src"
fi
# Upstream, both files are symlinks to Sources/AsyncAlgorithms/Locking.swift; the mirror's snapshot of the tag has no
# symlinks, and without them AsyncSequenceValidation and the tests do not compile (ManagedCriticalState not found).
restore_link() {
    if [[ ! -e $src/$1 && -e $src/$(dirname "$1")/$2 ]]; then ln -s "$2" "$src/$1"; fi
}
restore_link Sources/AsyncSequenceValidation/Locking.swift ../../Sources/AsyncAlgorithms/Locking.swift
restore_link Tests/AsyncAlgorithmsTests/Support/Locking.swift ../../../Sources/AsyncAlgorithms/Locking.swift

# --- the build ---------------------------------------------------------------------------------------------------
log_dir=${out:-$scratch}
mkdir -p "$log_dir"
build_log=$log_dir/build.log
echo "peer-suite: building swift-async-algorithms $tag's tests ($config) in $src" >&2
start=$(now)
build_rc=0
testing=()
[[ $config == debug ]] || testing=(-Xswiftc -enable-testing)
(cd "$src" && timeout -k 30 3600 nice -n 15 swift build --build-tests -c "$config" "${testing[@]}") >"$build_log" 2>&1 ||
    build_rc=$?
build_seconds=$(elapsed "$start" "$(now)")
binary=''
if ((build_rc == 0)); then
    bin_path=$(cd "$src" && swift build -c "$config" --show-bin-path)
    binary=$(ls -d "$bin_path"/*PackageTests.xctest 2>/dev/null | head -n 1 || true)
    [[ -n $binary && -x $binary ]] || { echo "peer-suite: no *PackageTests.xctest in $bin_path" >&2; build_rc=1; }
fi
if [[ -n $out ]]; then
    python3 - "$out/build.json" "$tag" "$config" "$build_seconds" "$build_rc" "$binary" "$isolate" <<'PY'
import json, sys
path, tag, config, seconds, rc, binary, isolate = sys.argv[1:]
json.dump({"tag": tag, "config": config, "seconds": float(seconds), "exitCode": int(rc), "binary": binary,
           "isolate": isolate}, open(path, "w"), indent=1)
PY
fi
if ((build_rc != 0)); then
    tail -n 30 "$build_log" >&2
    echo "peer-suite: build failed (exit $build_rc, log $build_log)" >&2
    exit 2
fi
echo "peer-suite: built in ${build_seconds} s: $binary" >&2
((build_only == 0)) || exit 0

# --- the runs ----------------------------------------------------------------------------------------------------
tests_file=$out/tests.txt
timeout -k 10 120 "$binary" --list-tests 2>/dev/null | grep '/' >"$tests_file" || true
mapfile -t all_tests <"$tests_file"
# The tests a variant is expected to run: all, or those --only names (a prefix of the listed names); the others it
# did not start are "not run".
expected_file=$out/tests-expected.txt
for test in "${all_tests[@]}"; do
    if [[ -z $only || $test == "$only"* ]]; then echo "$test"; fi
done >"$expected_file"
echo "peer-suite: ${#all_tests[@]} XCTest tests listed; limit ${timeout_s} s per process ($isolate)" >&2

# run_one RUNS LIBRARY TEST LOG XUNIT N PREFIX(N words)... ARGS...: one process of the binary under the prefix (which
# may hold its own `--`, as `arena exec --engine NAME --` does), with a deadline; one line in RUNS.
run_one() {
    local runs=$1 library=$2 test=$3 log=$4 xunit=$5 count=$6
    shift 6
    local prefix=("${@:1:count}")
    shift "$count"
    local rc=0 began
    began=$(now)
    timeout -k 10 "$timeout_s" "${prefix[@]}" "$binary" "$@" >"$log" 2>&1 </dev/null || rc=$?
    local seconds killed=0
    seconds=$(elapsed "$began" "$(now)")
    if ((rc == 124 || rc == 137)); then
        killed=1
        echo "peer-suite: TIME LIMIT (${timeout_s} s) reached: ${prefix[*]} $binary $*" >>"$log"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$library" "$test" "$rc" "$seconds" "$log" "$xunit" "$killed" >>"$runs"
}

status=0
names=()
for variant in "${variants[@]}"; do
    name=${variant%%=*}
    prefix_text=${variant#*=}
    read -r -a prefix <<<"$prefix_text" || true
    names+=("$name")
    runs=$out/$name.runs.tsv
    : >"$runs"
    echo "peer-suite: $name: ${prefix_text:-(no prefix)}" >&2
    if [[ $isolate == suite ]]; then
        run_one "$runs" xctest '*' "$out/$name.log" - ${#prefix[@]} "${prefix[@]}" ${only:+"$only"}
    else
        per_test=$out/$name.tests
        rm -rf "$per_test"
        mkdir -p "$per_test"
        : >"$out/$name.log"
        for test in "${all_tests[@]}"; do
            [[ -z $only || $test == "$only"* ]] || continue
            log=$per_test/${test//\//.}.log
            run_one "$runs" xctest "$test" "$log" - ${#prefix[@]} "${prefix[@]}" "$test"
            {
                echo "=== $test: $(tail -n 1 "$runs" | awk -F '\t' '{print "exit " $3 ", " $4 " s"}')"
                cat "$log"
            } >>"$out/$name.log"
        done
    fi
    run_one "$runs" swift-testing '*' "$out/$name.swift-testing.log" "$out/$name.swift-testing.xml" \
        ${#prefix[@]} "${prefix[@]}" \
        --testing-library swift-testing --xunit-output "$out/$name.swift-testing.xml" ${only:+--filter "$only"}
    python3 scripts/peer-suite/results.py variant --name "$name" --prefix "$prefix_text" --runs "$runs" \
        --tests "$expected_file" --out "$out/$name.json" ${collect:+--collect "$collect"} >&2
    python3 - "$out/$name.json" <<'PY' || status=1
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(1 if r["failed"] or r["unfinished"] or r["notRun"] or r["exitCode"] else 0)
PY
done
python3 scripts/peer-suite/results.py summary --out "$out" "${names[@]}" >/dev/null
echo "peer-suite: results in $out (summary.md)" >&2
exit "$status"
