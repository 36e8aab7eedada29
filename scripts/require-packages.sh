#!/usr/bin/env bash
# The Debian packages the report and the tests need: gnuplot draws the plots, Google Benchmark (headers and library)
# measures the native C floor, its compare.py and SciPy compare runs, valgrind (callgrind) counts instructions per
# operation. Installs the missing ones with apt-get when run as root; otherwise names them and how to install them,
# and exits 69.
set -euo pipefail
packages=(gnuplot-nox libbenchmark-dev libbenchmark-tools python3-scipy valgrind)
missing=()
for package in "${packages[@]}"; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
((${#missing[@]})) || exit 0
if [[ $(id -u) -eq 0 ]]; then
    echo "installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
    echo "missing packages: ${missing[*]}" >&2
    echo "install them with: sudo apt-get install ${missing[*]}" >&2
    exit 69
fi
