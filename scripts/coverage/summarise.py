#!/usr/bin/env python3
"""Writes docs/COVERAGE.md from a scripts/coverage.sh run: which lines and regions of the engines the conformance
catalog executes.

    summarise.py RUN_DIR OUTPUT COMMIT

RUN_DIR holds, for each instrumented program (arena, minimal-arena), NAME.lcov (`llvm-cov export -format=lcov`:
the line counts) and NAME.json (`llvm-cov export`: the code regions). A line is run when either program ran it; a
region likewise (regions are matched by their source span, over every specialisation of their function). Swift's
coverage has no branch counters: regions stand for branches (each arm of an `if`, `guard`, `switch` or `??` is one).

In scope (the issue's 95% of lines): the tutorial engine and the contract's default operation and executor layers.
Every run of unexecuted lines there needs a reason in scripts/coverage/reasons.tsv (path, the first unexecuted
line's text, the reason); a run without one is listed as such and the exit status is 1. The home engines get their
figures only."""
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCOPE = [
    ("tutorial engine", "Examples/MinimalEngine/Sources/MinimalEngine/"),
    ("default operation layer", "Sources/ArenaContract/Operations/"),
    ("default executor layer", "Sources/ArenaContract/Executors/"),
]
# The home engines and their plumbing: every folder of Sources/Contenders, the contract's plumbing and the Foundation
# contender, by folder (no contender is named here; the registry names them).
HOME = sorted(f"{path.relative_to(ROOT)}/" for path in (ROOT / "Sources/Contenders").iterdir() if path.is_dir()) + [
    "Sources/FoundationContender/",
    "Sources/ArenaContract/Plumbing/",
]


def relative(path):
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return None


def read_lines(run):
    """(path, line) -> count, summed over the programs' lcov files."""
    counts = defaultdict(int)
    for lcov in sorted(run.glob("*.lcov")):
        path = None
        for text in lcov.read_text().splitlines():
            if text.startswith("SF:"):
                path = relative(text[3:])
            elif text.startswith("DA:") and path:
                line, count = text[3:].split(",")[:2]
                counts[(path, int(line))] += int(count)
    return counts


def read_regions(run):
    """(path, span) -> count for code regions, summed over programs and specialisations."""
    counts = defaultdict(int)
    for export in sorted(run.glob("*.json")):
        for data in json.loads(export.read_text())["data"]:
            for function in data.get("functions", []):
                names = function["filenames"]
                for start, column, end, end_column, count, file_id, _, kind in function["regions"]:
                    path = relative(names[file_id])
                    if kind == 0 and path:
                        counts[(path, (start, column, end, end_column))] += count
    return counts


def figures(keys, counts):
    total = len(keys)
    run = sum(1 for key in keys if counts[key] > 0)
    return total, run


def percent(run, total):
    return f"{100 * run / total:.1f}%" if total else "-"


def gaps(path, lines, counts):
    """Runs of unexecuted lines: (first, last) line numbers, a run ending where an executed line comes."""
    runs, current = [], None
    for line in sorted(lines):
        if counts[(path, line)] == 0:
            current = [line, line] if current is None else [current[0], line]
        elif current:
            runs.append(tuple(current))
            current = None
    if current:
        runs.append(tuple(current))
    return runs


def read_reasons():
    reasons = {}
    for number, text in enumerate((ROOT / "scripts/coverage/reasons.tsv").read_text().splitlines(), 1):
        if not text.strip() or text.startswith("#"):
            continue
        fields = text.split("\t")
        if len(fields) != 3:
            sys.exit(f"scripts/coverage/reasons.tsv:{number}: needs three tab-separated fields (path, line, reason)")
        reasons[(fields[0], fields[1].strip())] = fields[2]
    return reasons


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: summarise.py RUN_DIR OUTPUT COMMIT")
    run, output, commit = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    lines, regions = read_lines(run), read_regions(run)
    files = defaultdict(lambda: ([], []))
    for path, line in lines:
        files[path][0].append((path, line))
    for path, span in regions:
        files[path][1].append((path, span))
    reasons, used, missing = read_reasons(), set(), 0

    out = ["# What the conformance catalog executes", ""]
    out += [
        f"Made by `scripts/coverage.sh` at {commit}; do not edit (the reasons are in `scripts/coverage/reasons.tsv`).",
        "The whole catalog, every rule once on every engine (`arena conform`, and `minimal-arena conform --engine "
        "minimal` for the tutorial engine), run by builds instrumented for coverage. A line counts as run when some "
        "rule's process ran it, misuse rules included (their processes write their counts before aborting). Swift's "
        "coverage has no branch counters: *regions* stand for branches, each arm of an `if`, `guard`, `switch` or "
        "`??` being one. Figures for a folder add its files'.",
        "",
        "## The tutorial engine and the default layers",
        "",
        "| part | lines | run | % | regions | run | % |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    all_lines, all_regions = [], []
    detail, listing = [], []
    for name, folder in SCOPE:
        paths = sorted(p for p in files if p.startswith(folder))
        part_lines = [k for p in paths for k in files[p][0]]
        part_regions = [k for p in paths for k in files[p][1]]
        all_lines += part_lines
        all_regions += part_regions
        lt, lr = figures(part_lines, lines)
        rt, rr = figures(part_regions, regions)
        out.append(f"| {name} (`{folder}`) | {lt} | {lr} | {percent(lr, lt)} | {rt} | {rr} | {percent(rr, rt)} |")
        for path in paths:
            flt, flr = figures(files[path][0], lines)
            frt, frr = figures(files[path][1], regions)
            detail.append(f"| `{path}` | {flt} | {flr} | {percent(flr, flt)} | {frt} | {frr} | {percent(frr, frt)} |")
            source = (ROOT / path).read_text().splitlines()
            for first, last in gaps(path, [line for _, line in files[path][0]], lines):
                text = source[first - 1].strip()
                reason = reasons.get((path, text))
                if reason is None:
                    missing += 1
                    reason = "**no reason given**"
                else:
                    used.add((path, text))
                span = f"{first}" if first == last else f"{first}–{last}"
                shown = text.replace("|", "\\|")
                listing.append(f"| `{path}` | {span} | `{shown}` | {reason} |")
    lt, lr = figures(all_lines, lines)
    rt, rr = figures(all_regions, regions)
    together = f"in scope {lr} of {lt} lines run ({percent(lr, lt)}), {rr} of {rt} regions ({percent(rr, rt)})"
    out.append(f"| **together** | {lt} | {lr} | **{percent(lr, lt)}** | {rt} | {rr} | {percent(rr, rt)} |")
    out += ["", "### By file", "", "| file | lines | run | % | regions | run | % |", "|---|---:|---:|---:|---:|---:|---:|"]
    out += detail
    out += ["", "### Lines no rule runs, and why", ""]
    if listing:
        out += ["| file | lines | first line | why |", "|---|---|---|---|"] + listing
    else:
        out.append("None.")
    out += ["", "## The home engines", "", "Figures only: their unexecuted lines are not yet accounted for one by one.", ""]
    out += ["| folder | lines | run | % | regions | run | % |", "|---|---:|---:|---:|---:|---:|---:|"]
    for folder in HOME:
        paths = [p for p in files if p.startswith(folder)]
        lt, lr = figures([k for p in paths for k in files[p][0]], lines)
        rt, rr = figures([k for p in paths for k in files[p][1]], regions)
        out.append(f"| `{folder}` | {lt} | {lr} | {percent(lr, lt)} | {rt} | {rr} | {percent(rr, rt)} |")
    output.write_text("\n".join(out) + "\n")
    stale = sorted(set(reasons) - used)
    for path, text in stale:
        print(f"summarise.py: a reason for a line now run or gone: {path}: {text}", file=sys.stderr)
    if missing:
        print(f"summarise.py: {missing} run(s) of unexecuted lines in scope have no reason", file=sys.stderr)
    print(f"summarise.py: {together}")
    return 1 if missing or stale else 0


if __name__ == "__main__":
    sys.exit(main())
