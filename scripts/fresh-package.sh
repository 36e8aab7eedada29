#!/usr/bin/env bash
# docs/EXTENDING.md, section 9 ("Bring only what you have"), followed word for word in a fresh package:
#
#   scripts/fresh-package.sh [DIR]      (default: a temporary folder, removed at the end)
#
# Makes DIR/ThreadsArena with `swift package init --type empty`, writes the section's Package.swift (DispatchArena
# given as this checkout, by path, where the section names the repository's URL) and its two Swift files, each taken
# from the section's code blocks (a block's first line `// Sources/…` names its file; the block that starts with
# `// swift-tools-version` is Package.swift), builds it (debug) and runs `threads-arena conform --engine threads`.
# Exit 0 when it builds and no rule fails; the output is what the section shows. About 3 minutes of build on 2 cores
# (the package compiles DispatchArena afresh), so CI does not run it: the example's LayerContenderTests keep the
# layer's code and its verdicts checked there.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if (($# > 1)); then echo "usage: scripts/fresh-package.sh [DIR]" >&2; exit 64; fi
if (($# == 1)); then
    base=$1
    mkdir -p "$base"
else
    base=$(mktemp -d)
    trap 'rm -rf "$base"' EXIT
fi
package="$base/ThreadsArena"
rm -rf "$package"
mkdir -p "$package"
cd "$package"

echo "\$ swift package init --type empty"
swift package init --type empty
python3 - "$repo/docs/EXTENDING.md" "$repo" <<'EOF'
import os, re, sys
guide, repo = open(sys.argv[1]).read(), sys.argv[2]
start = guide.index("\n## 9. ")
section = guide[start:guide.index("\n## 10. ", start)]
written = []
for block in re.findall(r"```swift\n(.*?)```", section, re.S):
    first = block.split("\n", 1)[0]
    if first.startswith("// swift-tools-version"):
        path = "Package.swift"
        url = '.package(url: "<DispatchArena\'s repository URL>", branch: "main")'
        if url not in block:
            sys.exit("fresh-package.sh: the section's Package.swift names DispatchArena otherwise than " + url)
        block = block.replace(url, f'.package(name: "DispatchArena", path: "{repo}")')
    elif first.startswith("// Sources/"):
        path, block = first[3:], block.split("\n", 1)[1]
    else:
        continue
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    open(path, "w").write(block)
    written.append(path)
expected = ["Package.swift", "Sources/ThreadExecutors/ThreadExecutors.swift", "Sources/threads-arena/main.swift"]
if sorted(written) != sorted(expected):
    sys.exit(f"fresh-package.sh: the section's blocks wrote {written}, not {expected}")
EOF
echo "\$ swift build"
swift build 2>&1 | grep -v "^\[" | sed "s|$base|/tmp|g"
echo "\$ swift run threads-arena conform --engine threads"
.build/debug/threads-arena conform --engine threads
