#!/usr/bin/env python3
"""The tests that regressed on one variant of a peer-suite run, by the names XCTest's filter takes.

    scripts/peer-suite/regressions.py DIR VARIANT

DIR is a folder scripts/peer-suite.sh wrote (summary.json, tests.txt). Prints one `Module.Class/test` a line for each
test of VARIANT that passed on the reference and did not on VARIANT; nothing when none did. .ci/run runs each again
to tell a regression from the suite's own flaky tests.
"""
import json
import os
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 64
    folder, variant = sys.argv[1], sys.argv[2]
    with open(os.path.join(folder, "summary.json")) as handle:
        summary = json.load(handle)
    with open(os.path.join(folder, "tests.txt")) as handle:
        listed = [line.strip() for line in handle if line.strip()]
    for regression in summary.get("regressions", {}).get(variant, []):
        # The log says Class.test; the filter takes Module.Class/test.
        suffix = "." + regression["test"].replace(".", "/", 1)
        print(next((name for name in listed if name.endswith(suffix)), regression["test"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
