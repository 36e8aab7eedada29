#!/usr/bin/env bash
# The packages the report and the tests need: gnuplot draws the plots, Google Benchmark (headers and library)
# measures the native C floor, its compare.py and SciPy compare runs, valgrind (callgrind) counts instructions per
# operation (binutils strips a program for it), spin model-checks the protocols of models/ (scripts/model-check.sh); from PyPI, for the python3 on PATH,
# pytest-benchmark reads the pytest-benchmark JSON back. Installs the missing ones with apt-get and pip when run as
# root; otherwise names them and how to install them, and exits 69. With arguments, only those packages of the list
# (CI's model check needs spin before the rest are installed): require-packages.sh spin. CI's own tools, installed only
# when named: debootstrap (the minimal root CI runs the bundle in); wrk and curl (the server's load,
# scripts/server-load.sh, which `scripts/report.sh --full` and CI run).
set -euo pipefail
packages=(binutils gnuplot-nox libbenchmark-dev libbenchmark-tools python3-scipy spin valgrind)
ci_only=(debootstrap wrk curl)
pip_packages=(pytest-benchmark)
if (($#)); then
    for package in "$@"; do
        [[ " ${packages[*]} ${ci_only[*]} " == *" $package "* ]] || { echo "require-packages: $package is not in the list" >&2; exit 64; }
    done
    packages=("$@")
    pip_packages=()
fi
missing=()
for package in "${packages[@]}"; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
missing_pip=()
for package in ${pip_packages[@]+"${pip_packages[@]}"}; do python3 -m pip show "$package" >/dev/null 2>&1 || missing_pip+=("$package"); done
((${#missing[@]} + ${#missing_pip[@]})) || exit 0
if [[ $(id -u) -eq 0 ]]; then
    if ((${#missing[@]})); then
        echo "installing ${missing[*]}" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if ((${#missing_pip[@]})); then
        echo "installing ${missing_pip[*]} with pip" >&2
        python3 -m pip install -q --disable-pip-version-check "${missing_pip[@]}"
    fi
else
    all_missing=(${missing[@]+"${missing[@]}"} ${missing_pip[@]+"${missing_pip[@]}"})
    echo "missing packages: ${all_missing[*]}" >&2
    if ((${#missing[@]})); then echo "install them with: sudo apt-get install ${missing[*]}" >&2; fi
    if ((${#missing_pip[@]})); then echo "install from PyPI with: python3 -m pip install ${missing_pip[*]}" >&2; fi
    exit 69
fi
