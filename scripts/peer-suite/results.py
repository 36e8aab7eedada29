#!/usr/bin/env python3
"""Per-test results of scripts/peer-suite.sh's runs.

  results.py variant --name NAME --prefix PREFIX --runs RUNS.tsv --tests TESTS.txt --out NAME.json [--collect REGEX]
  results.py summary --out DIR NAME...

`variant` reads the runs of one variant (RUNS.tsv: one line per process, tab-separated: library (xctest or
swift-testing), the test it was limited to ('*' for the whole suite), exit code, seconds, log, xunit file or '-',
killed by the time limit (0/1)) and writes NAME.json:

  {"variant", "prefix", "passed": [...], "failed": [...], "skipped": [...], "unfinished": [...], "notRun": [...],
   "seconds", "exitCode", "timedOut", "runs": [...], "excerpts": {test: text}, "collected": [lines]}

XCTest's names are Class.test, as its "Test Case 'Class.test' passed" lines give them; swift-testing's are
Suite/test() from its xunit file. `unfinished`: started and given no verdict (the process crashed, was killed by
the time limit, or exited in the middle); `notRun`: in TESTS.txt (the tests the run was meant to run, as --list-tests
names them) but never started: a whole-suite process that ended early. `exitCode`: the first non-zero exit code of the variant's processes, 0 if none; swift-testing's
69 with no test found counts as 0. `excerpts`: the output between a failed or unfinished test's start and its end
(at most 40 lines).

`summary` reads DIR/NAME.json for each NAME (the first is the reference) and writes DIR/summary.json and
DIR/summary.md: counts and times for each variant, the tests that are not `passed` in a variant but passed in every
variant run with the reference's prefix (regressions, with excerpts), and the tests whose outcome differed between
variants with the same prefix (flaky).
"""
import argparse
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

CASE = re.compile(r"Test Case '([^']+)' (started|passed|failed|skipped)")
EXCERPT_LINES = 40
NO_TESTS_FOUND = 69  # swift-testing's exit code (EX_UNAVAILABLE) when no test matched


def xctest_name(listed):
    """AsyncAlgorithmsTests.TestChannel/test_x (--list-tests) -> TestChannel.test_x (Test Case lines)."""
    suite, _, test = listed.partition("/")
    return suite.rsplit(".", 1)[-1] + "." + test


def parse_xctest(log_text, outcome, excerpts):
    lines = log_text.splitlines()
    open_at = {}
    for index, line in enumerate(lines):
        for match in CASE.finditer(line):
            name, verdict = match.group(1), match.group(2)
            if verdict == "started":
                open_at[name] = index
                outcome.setdefault(name, "unfinished")
                continue
            outcome[name] = verdict
            start = open_at.pop(name, None)
            if verdict == "failed" and start is not None:
                excerpts[name] = "\n".join(lines[start : index + 1][-EXCERPT_LINES:])
    for name, start in open_at.items():
        outcome[name] = "unfinished"
        excerpts[name] = "\n".join(lines[start:][-EXCERPT_LINES:])


def parse_xunit(path, outcome, excerpts):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    count = 0
    for case in root.iter("testcase"):
        count += 1
        name = "/".join(part for part in (case.get("classname"), case.get("name")) if part)
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if failure is not None:
            outcome[name] = "failed"
            excerpts[name] = ((failure.get("message") or "") + "\n" + (failure.text or "")).strip()
        elif case.find("skipped") is not None:
            outcome[name] = "skipped"
        else:
            outcome[name] = "passed"
    return count


def variant(args):
    collect = re.compile(args.collect) if args.collect else None
    listed = []
    if args.tests and os.path.exists(args.tests):
        with open(args.tests) as handle:
            listed = [xctest_name(line.strip()) for line in handle if "/" in line]
    outcome, excerpts, runs, collected = {}, {}, [], []
    exit_code, timed_out, seconds = 0, False, 0.0
    with open(args.runs) as handle:
        for row in handle:
            library, test, code, secs, log, xunit, killed = row.rstrip("\n").split("\t")
            code, secs, killed = int(code), float(secs), killed == "1"
            with open(log, errors="replace") as log_handle:
                text = log_handle.read()
            if collect:
                collected += [line for line in text.splitlines() if collect.search(line)]
            run = {"library": library, "test": test, "exitCode": code, "seconds": round(secs, 3),
                   "timedOut": killed, "log": log}
            if library == "xctest":
                parse_xctest(text, outcome, excerpts)
                if test != "*" and test not in outcome and xctest_name(test) not in outcome:
                    # the process died before XCTest printed the test's start (e.g. the preload's constructor exited)
                    outcome[xctest_name(test)] = "unfinished"
                    excerpts[xctest_name(test)] = "\n".join(text.splitlines()[-EXCERPT_LINES:])
            else:
                count = parse_xunit(xunit, outcome, excerpts) if xunit != "-" else None
                run["tests"] = count
                if code == NO_TESTS_FOUND and count == 0:
                    code = 0
                    run["note"] = "no swift-testing test in the binary"
            if code != 0 and exit_code == 0:
                exit_code = code
            timed_out = timed_out or killed
            seconds += secs
            runs.append(run)
    not_run = sorted(name for name in listed if name not in outcome)
    result = {
        "variant": args.name,
        "prefix": args.prefix,
        "passed": sorted(n for n, v in outcome.items() if v == "passed"),
        "failed": sorted(n for n, v in outcome.items() if v == "failed"),
        "skipped": sorted(n for n, v in outcome.items() if v == "skipped"),
        "unfinished": sorted(n for n, v in outcome.items() if v == "unfinished"),
        "notRun": not_run,
        "seconds": round(seconds, 3),
        "exitCode": exit_code,
        "timedOut": timed_out,
        "runs": runs,
        "excerpts": {n: excerpts[n] for n in sorted(excerpts)},
        "collected": collected,
    }
    with open(args.out, "w") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")
    print(f"{args.name}: {len(result['passed'])} passed, {len(result['failed'])} failed, "
          f"{len(result['unfinished'])} unfinished, {len(result['notRun'])} not run, {len(result['skipped'])} skipped "
          f"in {result['seconds']:.1f} s (exit {exit_code}{', timed out' if timed_out else ''})")
    return 0


def summary(args):
    results = []
    for name in args.names:
        with open(os.path.join(args.out, name + ".json")) as handle:
            results.append(json.load(handle))
    reference = results[0]
    same_as_reference = [r for r in results if r["prefix"] == reference["prefix"]]
    always_passed = set(reference["passed"]).intersection(*(set(r["passed"]) for r in same_as_reference))

    def status(r):
        table = {}
        for key in ("passed", "failed", "skipped", "unfinished", "notRun"):
            for name in r[key]:
                table[name] = key
        return table

    regressions = {}
    for r in results:
        if r["prefix"] == reference["prefix"]:
            continue
        table = status(r)
        lost = sorted(n for n in always_passed if table.get(n, "missing") != "passed")
        regressions[r["variant"]] = [
            {"test": n, "status": table.get(n, "missing"), "excerpt": r["excerpts"].get(n, "")} for n in lost]
    by_prefix = {}
    for r in results:
        by_prefix.setdefault(r["prefix"], []).append(r)
    flaky = []
    for prefix, group in by_prefix.items():
        if len(group) < 2:
            continue
        tables = [status(r) for r in group]
        names = set().union(*tables)
        for n in sorted(names):
            seen = {t.get(n, "missing") for t in tables}
            if len(seen) > 1:
                flaky.append({"test": n, "prefix": prefix,
                              "outcomes": {r["variant"]: t.get(n, "missing") for r, t in zip(group, tables)}})
    build = {}
    build_path = os.path.join(args.out, "build.json")
    if os.path.exists(build_path):
        with open(build_path) as handle:
            build = json.load(handle)
    data = {
        "build": build,
        "reference": reference["variant"],
        "variants": [{k: r[k] for k in ("variant", "prefix", "seconds", "exitCode", "timedOut")}
                     | {k: len(r[k]) for k in ("passed", "failed", "skipped", "unfinished", "notRun")}
                     | {"collected": r["collected"]} for r in results],
        "regressions": regressions,
        "flaky": flaky,
    }
    with open(os.path.join(args.out, "summary.json"), "w") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    md = ["# swift-async-algorithms' suite under other executors", ""]
    if build:
        md += [f"Build: tag {build.get('tag')}, {build.get('config')}, {build.get('seconds')} s, "
               f"exit {build.get('exitCode')}; binary `{build.get('binary')}`; isolation: {build.get('isolate')}", ""]
    md += ["| variant | prefix | passed | failed | unfinished | not run | skipped | seconds | exit |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for v in data["variants"]:
        md.append(f"| {v['variant']} | `{v['prefix'] or '(none)'}` | {v['passed']} | {v['failed']} | "
                  f"{v['unfinished']} | {v['notRun']} | {v['skipped']} | {v['seconds']:.1f} | "
                  f"{v['exitCode']}{' (timed out)' if v['timedOut'] else ''} |")
    for v in data["variants"]:
        if v["collected"]:
            shown = v["collected"][:10]
            more = len(v["collected"]) - len(shown)
            md += ["", f"Collected lines, {v['variant']} ({len(v['collected'])}; the first {len(shown)}, "
                   f"all in {v['variant']}.json):" if more else f"Collected lines, {v['variant']}:", "```"]
            md += shown + ["```"]
    md += ["", f"## Regressions (passed in every run of the reference's prefix, `{reference['prefix'] or '(none)'}`)", ""]
    if not any(regressions.values()):
        md.append("None.")
    for name, lost in regressions.items():
        for item in lost:
            md += [f"- {name}: `{item['test']}` {item['status']}"]
            if item["excerpt"]:
                md += ["", "  ```"] + ["  " + line for line in item["excerpt"].splitlines()[-15:]] + ["  ```"]
    md += ["", "## Flaky (outcome differed between variants with the same prefix)", ""]
    if not flaky:
        md.append("None.")
    for item in flaky:
        md.append(f"- `{item['test']}` (prefix `{item['prefix'] or '(none)'}`): "
                  + ", ".join(f"{k} {v}" for k, v in item["outcomes"].items()))
    with open(os.path.join(args.out, "summary.md"), "w") as handle:
        handle.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("variant")
    v.add_argument("--name", required=True)
    v.add_argument("--prefix", default="")
    v.add_argument("--runs", required=True)
    v.add_argument("--tests")
    v.add_argument("--out", required=True)
    v.add_argument("--collect")
    s = sub.add_parser("summary")
    s.add_argument("--out", required=True)
    s.add_argument("names", nargs="+")
    args = parser.parse_args()
    return variant(args) if args.command == "variant" else summary(args)


if __name__ == "__main__":
    sys.exit(main())
