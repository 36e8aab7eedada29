#!/usr/bin/env bash
# Builds the native C floor (floor.cpp: the bench workloads in C++ on Google Benchmark, through libdispatch's C API
# and a pthread mutex) with the clang++ and libdispatch of the Swift toolchain on PATH, so the floor measures the
# same libdispatch the `system` engine wraps. Rebuilds only when the source is newer than the binary.
#
# Usage: scripts/native/build.sh [--out FILE] [--rpath DIR]
#   Prints the binary's path as the last line of stdout; diagnostics go to stderr. --out: where to build it (default
#   .build/native/c-floor); --rpath: where it loads libdispatch from at run time (default the toolchain's; the bundle
#   gives '$ORIGIN/../lib').
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source_file="$here/floor.cpp"
binary="$repo/.build/native/c-floor"
rpath=""

say() { printf 'build.sh: %s\n' "$*" >&2; }
while (($#)); do
    case "$1" in
        --out) (($# >= 2)) || { say "--out needs a file"; exit 64; }; binary=$2; shift ;;
        --rpath) (($# >= 2)) || { say "--rpath needs a folder"; exit 64; }; rpath=$2; shift ;;
        *) say "unknown argument '$1' (usage: build.sh [--out FILE] [--rpath DIR])"; exit 64 ;;
    esac
    shift
done

swift_path="$(command -v swift || true)"
if [[ -z "$swift_path" ]]; then
    say "no swift on PATH; the floor is built with the Swift toolchain's clang++ and libdispatch"
    exit 69
fi
# The toolchain's usr directory: swift lives in <usr>/bin (resolved through any symlinks, e.g. swiftly's).
usr="$(dirname "$(dirname "$(realpath "$swift_path")")")"
cxx="$usr/bin/clang++"
if [[ ! -x "$cxx" ]]; then
    say "no clang++ in the Swift toolchain at $usr/bin"
    exit 69
fi
if [[ ! -f "$usr/lib/swift/dispatch/dispatch.h" || ! -e "$usr/lib/swift/linux/libdispatch.so" ]]; then
    say "the Swift toolchain at $usr has no libdispatch headers or library (lib/swift/dispatch, lib/swift/linux)"
    exit 69
fi
# Ask the compiler, so a header in any of its search paths counts.
if ! printf '#include <benchmark/benchmark.h>\n' | "$cxx" -std=c++17 -x c++ -fsyntax-only - 2>/dev/null; then
    say "benchmark/benchmark.h not found: install Google Benchmark with 'sudo apt-get install libbenchmark-dev'"
    exit 69
fi

if [[ -z "$rpath" && -x "$binary" && ! "$source_file" -nt "$binary" ]]; then
    say "up to date: $binary"
else
    mkdir -p "$(dirname "$binary")"
    say "compiling $source_file with $cxx"
    # Into a temporary file first, so a failed build never leaves a half-written binary that looks up to date.
    "$cxx" -O2 -std=c++17 -I"$usr/lib/swift" "$source_file" \
        -L"$usr/lib/swift/linux" -Wl,-rpath,"${rpath:-$usr/lib/swift/linux}" \
        -ldispatch -lBlocksRuntime -lbenchmark -lpthread -o "$binary.tmp.$$"
    mv -f "$binary.tmp.$$" "$binary"
fi
printf '%s\n' "$binary"
