#!/usr/bin/env python3
"""Summarises a scripts/mutants/explore-rates.sh run: for every fault, whether a generated program disagreed (and
how), quiet and under stress, counted by the areas of scripts/mutants/explore-areas.tsv (the family `catalog`,
faults.txt) or explore-areas-reach.tsv (`reach`, faults-reach.txt), as the run's commit.txt names the family; writes
summary.md and summary.tsv (fault, area, mode, caught, program, outcome key). A fault caught with a key the fault-free
engine also disagreed with in that mode is not counted. Exit 1 when a fault of the family has no line in its areas
file."""
import re
import sys
from pathlib import Path


def outcome(path):
    """(caught, program number, key, detail) of one explore output; None if the run left none."""
    try:
        text = path.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        match = re.search(r"program (\d+) of \d+ \(seed \S+\) disagrees: ([a-z-]+): (.*)", line)
        if match:
            return True, int(match.group(1)), match.group(2), match.group(3)
    return False, None, None, None


def main():
    out = Path(sys.argv[1])
    root = Path(__file__).resolve().parents[2]
    family = "catalog"
    commit = out / "commit.txt"
    if commit.exists():
        named = re.search(r"^family (\S+)", commit.read_text(), re.M)
        family = named.group(1) if named else family
    suffix = "" if family == "catalog" else f"-{family}"
    faults_file = root / f"Examples/MinimalEngine/Mutants/faults{suffix}.txt"
    areas_file = root / f"scripts/mutants/explore-areas{suffix}.tsv"
    faults = re.findall(r"^## fault: *(\S+)", faults_file.read_text(), re.M)
    areas = {}
    for line in areas_file.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split("\t")
        areas[fields[0]] = (fields[1], fields[2] if len(fields) > 2 else "")
    unknown = [f for f in faults if f not in areas]
    if unknown:
        print(f"explore-summary: no area for {', '.join(unknown)} in {areas_file.relative_to(root)}", file=sys.stderr)
        return 1
    modes = [m for m in ("quiet", "stress") if (out / m / "none.txt").exists()]
    baseline = {m: outcome(out / m / "none.txt") for m in modes}
    rows, tsv = [], []
    by_area = {}
    for fault in faults:
        area, why = areas[fault]
        caught_any, cells = False, []
        for mode in modes:
            seen = outcome(out / mode / f"{fault}.txt")
            if seen is None:
                cells.append("not run")
                continue
            caught, program, key, detail = seen
            if caught and baseline[mode][0] and baseline[mode][2] == key:
                caught = False  # the fault-free engine disagreed the same way
            tsv.append(f"{fault}\t{area}\t{mode}\t{'yes' if caught else 'no'}\t{program or ''}\t{key or ''}")
            cells.append(f"program {program}: `{key}`" if caught else "—")
            caught_any = caught_any or caught
        held, total, skipped = by_area.get(area, (0, 0, 0))
        ran = any(cell != "not run" for cell in cells)
        by_area[area] = (held + caught_any, total + ran, skipped + (not ran))
        rows.append(f"| `{fault}` | {area if area != 'outside' else 'outside: ' + why} | " + " | ".join(cells) + " |")
    inside = [a for a in by_area if a != "outside"]
    caught_in = sum(by_area[a][0] for a in inside)
    total_in = sum(by_area[a][1] for a in inside)
    skipped_in = sum(by_area[a][2] for a in inside)
    outside = by_area.get("outside", (0, 0, 0))

    def not_run(count):
        return f" ({count} not run)" if count else ""

    lines = [f"Faults: {len(faults)}; in the generated areas: {total_in + skipped_in}; modes: {', '.join(modes)}.", ""]
    for mode in modes:
        none = baseline[mode]
        lines.append(f"Fault-free engine, {mode}: " + ("agreed" if not none[0] else f"disagreed (`{none[2]}`)"))
    lines += ["", f"**Caught in the generated areas: {caught_in} of {total_in} ({100 * caught_in // max(total_in, 1)} %)"
              f"{not_run(skipped_in)}.**",
              f"Caught outside them: {outside[0]} of {outside[1]}{not_run(outside[2])}.", "",
              "| area | faults run | caught |", "|---|---|---|"]
    for area in sorted(inside) + (["outside"] if "outside" in by_area else []):
        lines.append(f"| {area} | {by_area[area][1]}{not_run(by_area[area][2])} | {by_area[area][0]} |")
    lines += ["", "| fault | area | " + " | ".join(modes) + " |", "|---|---|" + "---|" * len(modes)] + rows
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    (out / "summary.tsv").write_text("\n".join(tsv) + "\n")
    print("\n".join(lines[: 8 + len(by_area) + 4]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
