#!/usr/bin/env python3
"""How strong each rule is against its mutants: runs every behaviour kill of Sources/Mutants/Kills.swift (its rule on
its mutant, `arena child` with repeats) N times quietly, one at a time, and prints a line per kill caught in fewer
than N runs (the issue's bar: a rule that checks exclusion, order or a count catches its violation every time).

    scripts/mutants/power.py [--runs N] [--arena PATH] [--out FILE]

N defaults to 10, PATH to .build/release/arena (build it first), FILE (every kill, tab-separated: rule, fault, runs
reported, failed, timed out, passed, seconds) to a temporary file whose name is printed. A run that times out ends
the child (the rule stops after a timeout), and counts as caught. About 17 minutes on 2 cores for the 200 kills.
Exit 0 when every kill was caught in every run, 1 otherwise, 64 on a usage error."""
import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"power.py: {message}", file=sys.stderr)
        sys.exit(64)


def main():
    parser = Parser(add_help=True)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--arena", default=str(ROOT / ".build/release/arena"))
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.runs < 1:
        print("power.py: --runs must be at least 1", file=sys.stderr)
        sys.exit(64)
    if not Path(args.arena).is_file():
        print(f"power.py: no arena at {args.arena} (swift build -c release --product arena)", file=sys.stderr)
        sys.exit(64)
    source = (ROOT / "Sources/Mutants/Kills.swift").read_text()
    table = source[source.index("static let table"):source.index("static let preemptionOnly")]
    kills = re.findall(r'Kill\(rule: "([^"]+)", fault: \.(\w+)\)', table)
    rules = json.loads(subprocess.run([args.arena, "rules", "--format", "json"], capture_output=True, text=True, check=True).stdout)
    misuse = {rule["id"] for rule in rules["rules"] if rule.get("misuse")}
    out = Path(args.out) if args.out else Path(tempfile.mkstemp(prefix="power-", suffix=".tsv")[1])
    weak = 0
    with out.open("w") as file:
        for rule, fault in kills:
            if rule in misuse:
                continue  # a misuse mutant lets the misuse pass every time: nothing to count
            request = {"kind": "rule", "request": {"engine": "mutant-" + fault, "rule": rule, "repeats": args.runs,
                                                   "timeoutSeconds": 6, "stress": False}}
            start = time.time()
            try:
                child = subprocess.run([args.arena, "child", "--request", json.dumps(request)], capture_output=True,
                                       timeout=15 + 6 * args.runs)
                errors = child.stderr
            except subprocess.TimeoutExpired as expired:
                errors = expired.stderr or b""
            runs = [json.loads(line[len("arena-run: "):]) for line in errors.decode(errors="replace").splitlines()
                    if line.startswith("arena-run: ")]
            status = [run.get("status") for run in runs]
            passed = status.count("pass")
            print(f"{rule}\t{fault}\t{len(status)}\t{status.count('fail')}\t{status.count('timeout')}\t{passed}\t"
                  f"{time.time() - start:.1f}", file=file, flush=True)
            if passed or not status:
                weak += 1
                print(f"{rule} on mutant-{fault}: caught in {len(status) - passed} of {len(status)} runs")
    print(f"power.py: {weak} kill(s) below every run; all kills in {out}")
    return 1 if weak else 0


if __name__ == "__main__":
    sys.exit(main())
