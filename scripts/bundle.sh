#!/usr/bin/env bash
# Makes the bundle that runs the arena where users deploy, with nothing installed there but glibc and libstdc++:
#
#   scripts/bundle.sh [--out DIR] [--scratch-path BUILD] [--folder]
#
# writes DIR/dispatch-arena-<version>-linux-<arch>.tar.xz (DIR defaults to dist), which unpacks into one folder:
#   run                  ./run [--quick | --full] [--out DIR]: conformance, the C floor, every workload (and
#                        instructions per operation where valgrind is installed), into one results folder
#   bin/arena            the release build's arena linked again with the Swift standard library and Foundation in, stripped
#   bin/c-floor          the native C floor (scripts/native/floor.cpp), with lib/ as its run path ($ORIGIN/../lib)
#   lib/                 libdispatch, BlocksRuntime and Google Benchmark, the shared libraries the floor was linked with
#   libexec/floor-run.sh scripts/native/run.sh, which runs the floor under a time limit
#   VERSION              the commit, the toolchain and the date it was built
# <version> is `git describe --always --dirty`. Prints the archive's path as the last line of stdout. --scratch-path
# builds arena in BUILD (default .build, the README's; CI gives its release folder). --folder makes the folder only,
# in .build-bundle/, and prints its path instead (scripts/report.sh runs the same folder's `run`). Needs what the C
# floor needs (scripts/native/build.sh says), python3 and xz. Exit 64 on a usage error, 69 when a tool is missing.
#
# Why arena is linked twice: `swift build --static-swift-stdlib` passes the flag to every compile too, so a folder
# built one way compiles every module again when built the other (226 s here), and the tests (Swift Testing) do not
# build with it at all. The flag changes only what the link takes, so the bundle links the release build's own
# objects again, with SwiftPM's own link command for arena (read from BUILD/release.yaml), -static-stdlib and the
# static Foundation's archives: 2 s. Run in the minimal root CI makes, that arena passes every rule and measures
# every workload, as the README's report there shows.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "scripts/bundle.sh: $1 (usage: scripts/bundle.sh [--out DIR] [--scratch-path BUILD] [--folder])" >&2; exit 64; }
dist=dist
scratch=.build
folder_only=false
while (($#)); do
    case "$1" in
        --out) (($# >= 2)) || usage "--out needs a folder"; dist=$2; shift ;;
        --out=*) dist=${1#--out=} ;;
        --scratch-path) (($# >= 2)) || usage "--scratch-path needs a folder"; scratch=$2; shift ;;
        --scratch-path=*) scratch=${1#--scratch-path=} ;;
        --folder) folder_only=true ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage "unknown argument '$1'" ;;
    esac
    shift
done
[[ -n "$dist" ]] || usage "--out needs a folder"
[[ -n "$scratch" ]] || usage "--scratch-path needs a folder"
say() { printf 'bundle.sh: %s\n' "$*" >&2; }
tools=(swift tar strip python3)
$folder_only || tools+=(xz)
for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null || { say "$tool is not on PATH"; exit 69; }
done

version=$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
arch=$(uname -m)
name="dispatch-arena-$version-linux-$arch"
stage=".build-bundle/$name"
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/lib" "$stage/libexec"

say "arena (release, $scratch), linked again with the Swift standard library and Foundation in"
swift build -c release --product arena --scratch-path "$scratch" >&2
python3 - "$scratch/release.yaml" "$stage/bin/arena.unstripped" <<'PYTHON' >&2
import json, os, re, subprocess, sys
manifest, output = sys.argv[1:]
lines = open(manifest).read().splitlines()
# SwiftPM's command for the product: a key "C.arena-<triple>-release.exe", its arguments a JSON list under it.
key = next((i for i, line in enumerate(lines) if re.fullmatch(r'  "C\.arena-[^"]*-release\.exe":', line)), None)
entry = []
for line in lines[key + 1:] if key is not None else []:
    if line.startswith('  "'):
        break
    entry.append(line)
found = next((line for line in entry if line.startswith("    args: ")), None)
if not found:
    sys.exit(f"bundle.sh: no link command for arena in {manifest} (has SwiftPM changed how it writes it?)")
args = json.loads(found[len("    args: "):])
args[args.index("-o") + 1] = output
static = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(args[0]))), "lib", "swift_static", "linux")
# The static Foundation's own dependencies, which objects compiled against the shared one do not name: in one group,
# so that their order does not matter.
foundation = ["Foundation", "FoundationEssentials", "FoundationInternationalization", "_FoundationCollections",
              "_FoundationCShims", "_FoundationICU", "CoreFoundation"]
group = ["-Xlinker", "--start-group"]
for name in foundation:
    group += ["-Xlinker", os.path.join(static, "lib" + name + ".a")]
group += ["-Xlinker", "--end-group", "-lstdc++"]
# The warning the static Foundation's archive gives for mktemp is its own, said on every static link.
done = subprocess.run(args + ["-static-stdlib"] + group, stderr=subprocess.PIPE, text=True)
sys.stderr.write("".join(line + "\n" for line in done.stderr.splitlines() if "the use of `mktemp'" not in line))
sys.exit(done.returncode)
PYTHON
strip -o "$stage/bin/arena" "$stage/bin/arena.unstripped"
rm "$stage/bin/arena.unstripped"
# What it still loads is the C runtime alone: a Swift library left among them would not be on the machine it runs on.
if ldd "$stage/bin/arena" | grep -q swift; then
    say "bin/arena still loads a Swift library: $(ldd "$stage/bin/arena" | grep swift | head -n 1)"
    exit 1
fi

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

if $folder_only; then
    printf '%s\n' "$PWD/$stage"
    exit 0
fi
mkdir -p "$dist"
archive="$dist/$name.tar.xz"
tar -C "$(dirname "$stage")" -cf - "$name" | xz -T0 -6 > "$archive.tmp"
mv -f "$archive.tmp" "$archive"
say "$(du -h "$archive" | cut -f1) in $archive"
printf '%s\n' "$archive"
