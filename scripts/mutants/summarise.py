#!/usr/bin/env python3
"""Summarises a scripts/mutants/kill-rates.sh run: for every fault, the rules that failed quiet and under stress
(those failing on the fault-free engine in the same mode left out), as summary.md (a markdown table and the kill
rates) and summary.tsv (fault, mode, rule, outcome key: one line per failure)."""
import json
import re
import sys
from pathlib import Path


def failed(path):
    """rule -> outcome keys of the failing runs, for one conform --format json file (None if the run left none)."""
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    rules = {}
    for result in report.get("results", []):
        if result["status"] in ("pass", "unsupported"):
            continue
        keys = sorted({f.get("outcome") or f.get("status") or result["status"] for f in result.get("failures", [])})
        rules[result["rule"]] = (keys or [result["status"]], result["status"], result.get("seconds", 0))
    return rules


def quickest(kills):
    """The rule to check a kill with in the tests: a plain failure before a timeout, then the shortest run."""
    return min(kills, key=lambda rule: (kills[rule][1] == "timeout", kills[rule][2], rule))


def main():
    out = Path(sys.argv[1])
    # The family the run measured (its commit.txt): `catalog` is faults.txt, `NAME` faults-NAME.txt.
    named = re.search(r"^family (\S+)", (out / "commit.txt").read_text(), re.M) if (out / "commit.txt").exists() else None
    family = named.group(1) if named else "catalog"
    suffix = "" if family == "catalog" else f"-{family}"
    faults_file = Path(__file__).resolve().parents[2] / f"Examples/MinimalEngine/Mutants/faults{suffix}.txt"
    text = faults_file.read_text()
    faults = re.findall(r"^## fault: *(\S+)\n(?:file: *(\S+)\n)?(?:desc: *(.*)\n)?", text, re.M)
    modes = [m for m in ("quiet", "stress") if (out / m / "none.json").exists()]
    baseline = {m: failed(out / m / "none.json") or {} for m in modes}
    rows, tsv, caught = [], [], {m: 0 for m in modes}
    either, measured, swift, escaped = 0, 0, [], []
    for fault, file, desc in faults:
        cells, any_mode = [], False
        for mode in modes:
            rules = failed(out / mode / f"{fault}.json")
            if rules is None:
                cells.append("not run")
                continue
            kills = {r: k for r, k in rules.items() if r not in baseline[mode]}
            for rule, (keys, _, _) in sorted(kills.items()):
                tsv.append(f"{fault}\t{mode}\t{rule}\t{','.join(keys)}")
            if kills and not any_mode:
                swift.append(f'        Kill(fault: "{fault}", rule: "{quickest(kills)}", stress: {str(mode == "stress").lower()}),')
            if kills:
                caught[mode] += 1
                any_mode = True
                names = sorted(kills)
                shown = ", ".join(f"`{r}`" for r in names[:6]) + (f" (+{len(names) - 6})" if len(names) > 6 else "")
                cells.append(shown)
            else:
                cells.append("—")
        if all(c == "not run" for c in cells):
            continue
        measured += 1
        either += any_mode
        verdict = "" if any_mode else " **ESCAPED**"
        if not any_mode:
            escaped.append(f'        ("{fault}", "REASON"),')
        rows.append(f"| `{fault}`{verdict} | {file} | {desc} | " + " | ".join(cells) + " |")
    lines = [f"Faults measured: {measured}."]
    for mode in modes:
        lines.append(f"Caught {mode}: {caught[mode]} of {measured} ({100 * caught[mode] / max(measured, 1):.0f} %).")
    lines.append(f"Caught in either mode: {either} of {measured} ({100 * either / max(measured, 1):.0f} %).")
    for mode in modes:
        lines.append(f"Rules failing on the fault-free engine ({mode}, not counted): "
                     + (", ".join(f"`{r}`" for r in sorted(baseline[mode])) or "none") + ".")
    header = "| fault | file | the bug | " + " | ".join(f"caught {m} by" for m in modes) + " |"
    table = [header, "|" + "---|" * (3 + len(modes))] + rows
    (out / "summary.md").write_text("\n".join(lines) + "\n\n" + "\n".join(table) + "\n")
    (out / "kills.swift.txt").write_text("\n".join(swift) + "\n\n" + "\n".join(escaped) + "\n")
    (out / "summary.tsv").write_text("fault\tmode\trule\toutcome\n" + "\n".join(tsv) + "\n")
    print("\n".join(lines))


main()
