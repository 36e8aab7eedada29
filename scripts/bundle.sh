#!/usr/bin/env bash
# Makes the bundle that runs the arena where users deploy, with nothing installed there but glibc and libstdc++:
#
#   scripts/bundle.sh [--out DIR]      (default DIR: dist)
#
# writes DIR/dispatch-arena-<version>-linux-<arch>.tar.xz, which unpacks into one folder:
#   run                  ./run [--quick | --full] [--out DIR]: conformance, the C floor, every workload (and
#                        instructions per operation where valgrind is installed), into one results folder
#   bin/arena            built with the Swift standard library and Foundation linked in (--static-swift-stdlib), stripped
#   bin/c-floor          the native C floor (scripts/native/floor.cpp), with lib/ as its run path ($ORIGIN/../lib)
#   lib/                 libdispatch, BlocksRuntime and Google Benchmark, the shared libraries the floor was linked with
#   libexec/floor-run.sh scripts/native/run.sh, which runs the floor under a time limit
#   VERSION              the commit, the toolchain and the date it was built
# <version> is `git describe --always --dirty`. Prints the archive's path as the last line of stdout. Needs what the
# C floor needs (scripts/native/build.sh says) and xz. Exit 64 on a usage error, 69 when a tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "scripts/bundle.sh: $1 (usage: scripts/bundle.sh [--out DIR])" >&2; exit 64; }
dist=dist
while (($#)); do
    case "$1" in
        --out) (($# >= 2)) || usage "--out needs a folder"; dist=$2; shift ;;
        --out=*) dist=${1#--out=} ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage "unknown argument '$1'" ;;
    esac
    shift
done
[[ -n "$dist" ]] || usage "--out needs a folder"
say() { printf 'bundle.sh: %s\n' "$*" >&2; }
for tool in swift xz tar strip; do
    command -v "$tool" >/dev/null || { say "$tool is not on PATH"; exit 69; }
done

version=$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
arch=$(uname -m)
name="dispatch-arena-$version-linux-$arch"
stage=".build-bundle/$name"
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/libexec" "$dist"

say "arena, with the Swift standard library linked in (release, .build-static)"
swift build -c release --static-swift-stdlib --product arena --scratch-path .build-static >&2
strip -o "$stage/bin/arena" .build-static/release/arena

say "the native C floor, with its shared libraries beside it"
# Built with its run path in the bundle: the libraries it loads are the ones copied next to it, whatever the machine has.
scripts/native/build.sh --out "$stage/bin/c-floor" --rpath '$ORIGIN/../lib' >/dev/null
strip "$stage/bin/c-floor"
# Every library the floor loads from outside the C runtime (glibc, libstdc++, libgcc) travels with it: ldd finds them
# where the floor was linked, the Swift toolchain's libraries and the system's.
usr="$(dirname "$(dirname "$(realpath "$(command -v swift)")")")"
while read -r library path; do
    case "$library" in
        libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|linux-vdso*) ;;
        *) cp -L "$path" "$stage/lib/$library" ;;
    esac
done < <(LD_LIBRARY_PATH="$usr/lib/swift/linux" ldd "$stage/bin/c-floor" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }')
[[ -n "$(ls "$stage/lib")" ]] || { say "found no shared library of the C floor to carry"; exit 69; }

cp scripts/native/run.sh "$stage/libexec/floor-run.sh"
cp scripts/bundle/run "$stage/run"
chmod +x "$stage/run" "$stage/libexec/floor-run.sh"
{
    echo "commit $version"
    echo "arch $arch"
    echo "built $(date -u +%FT%TZ)"
    echo "toolchain $(swift --version 2>/dev/null | head -n 1)"
} > "$stage/VERSION"

archive="$dist/$name.tar.xz"
tar -C "$(dirname "$stage")" -cf - "$name" | xz -T0 -9 > "$archive.tmp"
mv -f "$archive.tmp" "$archive"
say "$(du -h "$archive" | cut -f1) in $archive"
printf '%s\n' "$archive"
