#!/usr/bin/env bash
# The house style, checked or applied with the toolchain's `swift format` and the configuration in .swift-format:
#
#   scripts/format.sh            lint: every finding is printed and fails the run (exit 1); CI runs this
#   scripts/format.sh --in-place rewrites the files to the style (then build and test before committing)
#
# The files: the package's Sources and Tests, Package.swift, and each example's (Examples/MinimalEngine,
# Examples/NIOExecutors) Sources, Tests and Package.swift. Exit 0 when nothing is out of style (or the rewrite succeeded), 1 on findings, 64 on a usage error.
set -euo pipefail
cd "$(dirname "$0")/.."

paths=(Package.swift Sources Tests Examples/MinimalEngine/Package.swift Examples/MinimalEngine/Sources
       Examples/MinimalEngine/Tests Examples/NIOExecutors/Package.swift Examples/NIOExecutors/Sources
       Examples/NIOExecutors/Tests)
case "${1:-}" in
    "") swift format lint --strict --parallel --recursive "${paths[@]}" ;;
    --in-place) swift format format --in-place --parallel --recursive "${paths[@]}" ;;
    *) echo "usage: scripts/format.sh [--in-place]" >&2; exit 64 ;;
esac
