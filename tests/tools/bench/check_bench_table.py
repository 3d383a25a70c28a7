#!/usr/bin/python3
"""Checks scripts/bench_table.py against the gsr-bench JSON files it tabulates: one row per
run and blocking call kind; per row the fastest concrete method in bold, the touch column
the fastest call's touch + wire less the wire bound, and the last column that call's time
over its touch + wire, each recomputed here from the records.

    /usr/bin/python3 check_bench_table.py SCRIPT FILE.json ...
"""
import json
import subprocess
import sys


def number(cell):
    """The microseconds (or ratio) a cell starts with, without markup."""
    return float(cell.strip().strip("*").split()[0].rstrip("x"))


def main():
    script, files = sys.argv[1], sys.argv[2:]
    text = subprocess.run(["/usr/bin/python3", script] + files, check=True, capture_output=True, text=True).stdout
    print(text)
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    for column in ("stream", "wire", "round", "touch", "auto", "fastest / (touch + wire)"):
        assert column in header, "no column %r in %s" % (column, header)
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:]]
    expected_rows = 0
    for path in files:
        with open(path, encoding="utf-8") as handle:
            records = json.load(handle)["records"]
        calls = [r for r in records if r["kind"] == "call" and r["mode"] == "blocking"]
        wire = {r["k"]: r["median_seconds"] for r in records if r["kind"] == "bound" and r["bound"] == "wire"}
        for call, k in sorted({(r["call"], r["k"]) for r in calls}):
            expected_rows += 1
            mine = [r for r in calls if (r["call"], r["k"]) == (call, k)]
            ranks, entries = mine[0]["ranks"], mine[0]["entries_per_rank"]
            row = next((row for row in rows if row[0] == str(ranks) and row[2] == str(entries)
                        and row[3] == "%s k=%d" % (call, k)), None)
            assert row, "no row for P = %d, %s k=%d" % (ranks, call, k)
            fastest = min((r for r in mine if r["method"] != "auto"), key=lambda r: r["median_seconds"])
            cell = row[header.index(fastest["method"])]
            assert cell.startswith("**"), "P = %d, %s k=%d: %s is fastest but %r is not bold" % (
                ranks, call, k, fastest["method"], cell)
            assert sum(c.startswith("**") for c in row) == 1, "one bold cell per row: %s" % row
            ratio = fastest["median_seconds"] / fastest["touch_bound_seconds"]
            assert abs(number(row[-1]) - ratio) <= 0.006, "ratio %s against %.3f" % (row[-1], ratio)
            touch_us = 1e6 * (fastest["touch_bound_seconds"] - wire[k])
            shown = number(row[header.index("touch")])
            assert abs(shown - touch_us) <= 0.006 * max(1.0, touch_us), "touch %s against %.3f us" % (shown, touch_us)
    assert len(rows) == expected_rows, "%d rows for %d run and call kinds" % (len(rows), expected_rows)
    print("bench_table: %d rows checked" % expected_rows)


if __name__ == "__main__":
    main()
