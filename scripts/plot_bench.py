#!/usr/bin/python3
"""Plots gsr-bench results (docs/performance.md): for each rank count in the files, the
time per entry against entries per rank of every contender, one panel per call kind, with
the bounds measured in the same runs (stream + wire, stream, touch + wire of the fastest
call, and the round's latency spread over the entries) as grey lines.

    /usr/bin/python3 scripts/plot_bench.py [--out DIR] [--mode blocking|nonblocking] FILE.json ...

Each FILE.json is what `gsr-bench --json FILE.json` wrote; give several runs (sizes, rank
counts) to get lines. Writes DIR/bench_np<P>.png per rank count P (with a `_nonblocking`
suffix for that mode) and prints each path. Needs Debian's python3-matplotlib.
"""
import argparse
import json
import math
import os
import sys

sys.dont_write_bytecode = True  # scripts/lib/output_paths.py: no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from output_paths import refuse_folder, refuse_outputs  # noqa: E402


def load(paths):
    """Every record of every file, and each file's run metadata."""
    records, runs = [], []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        if document.get("format") != "gsr-bench" or document.get("version") != 1:
            sys.exit("plot_bench: %s is not a gsr-bench JSON file (format gsr-bench, version 1)" % path)
        records.extend(document["records"])
        runs.append(document["run"])
    return records, runs


def distinct(values):
    """The values in order of first appearance, each once."""
    seen = []
    for value in values:
        if value not in seen:
            seen.append(value)
    return seen


def bound_lines(bounds, k):
    """Per entries_per_rank: (stream + wire, stream, round), seconds per call, for k."""
    lines = {}
    for n in distinct(r["entries_per_rank"] for r in bounds):
        def seconds(name, kk):
            found = [r["median_seconds"] for r in bounds
                     if r["entries_per_rank"] == n and r["bound"] == name and r.get("k") == kk]
            return sum(found) / len(found) if found else float("nan")
        stream = seconds("stream", k)
        lines[n] = (stream + seconds("wire", k), stream, seconds("round", None))
    return sorted(lines.items())


MARKERS = ["o", "s", "^", "x", "v", "D"]  # methods often coincide: each its own marker and size


def touch_line(calls, call, k):
    """Per entries_per_rank: the fastest method's touch + wire (seconds) for this call kind."""
    line = {}
    for n in distinct(r["entries_per_rank"] for r in calls):
        found = [r for r in calls if r["entries_per_rank"] == n and r["call"] == call and r["k"] == k
                 and r["method"] != "auto" and "touch_bound_seconds" in r]
        if found:
            line[n] = min(found, key=lambda r: r["median_seconds"])["touch_bound_seconds"]
    return sorted(line.items())


def draw_panel(axes, calls, bounds, call, k):
    shown = []
    for index, method in enumerate(distinct(r["method"] for r in calls)):
        points = sorted((r["entries_per_rank"], 1e9 * r["median_seconds"] / r["entries_per_rank"])
                        for r in calls if r["method"] == method and r["call"] == call and r["k"] == k)
        shown += [p[1] for p in points]
        axes.plot([p[0] for p in points], [p[1] for p in points], marker=MARKERS[index % len(MARKERS)],
                  markersize=8 - 1.5 * (index % 4), fillstyle="none", label=method)
    lines = bound_lines(bounds, k)
    x = [n for n, _ in lines]
    for index, (label, style) in enumerate([("stream + wire", "--"), ("stream", ":"), ("round", "-.")]):
        y = [1e9 * values[index] / n for n, values in lines]
        if index < 2:
            shown += y
        axes.plot(x, y, color="0.35", linestyle=style, marker=".", label=label)
    touch = touch_line(calls, call, k)
    if touch:
        y = [1e9 * seconds / n for n, seconds in touch]
        shown += y
        axes.plot([n for n, _ in touch], y, color="0.6", linestyle="-", marker=".", label="touch + wire")
    # The round's latency per entry falls off the bottom for large n; the calls set the range.
    positive = [y for y in shown if y > 0]
    if positive:
        axes.set_ylim(min(positive) / 2, max(positive) * 2)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_title("%s k=%d" % (call, k), fontsize=10)
    axes.grid(True, which="both", alpha=0.3)


def plot_ranks(pyplot, records, runs, ranks, mode, path):
    calls = [r for r in records if r["kind"] == "call" and r["ranks"] == ranks and r["mode"] == mode]
    bounds = [r for r in records if r["kind"] == "bound" and r["ranks"] == ranks]
    kinds = distinct((r["call"], r["k"]) for r in calls)
    columns = 2
    rows = max(1, math.ceil(len(kinds) / columns))
    figure, grid = pyplot.subplots(rows, columns, figsize=(10, 3.4 * rows), squeeze=False)
    for axes, (call, k) in zip(grid.flat, kinds):
        draw_panel(axes, calls, bounds, call, k)
    for axes in grid.flat[len(kinds):]:
        axes.set_visible(False)
    for axes in grid[-1]:
        axes.set_xlabel("entries per rank")
    for axes in grid[:, 0]:
        axes.set_ylabel("ns per entry")
    run = next(r for r in runs if r["ranks"] == ranks)
    figure.suptitle("gsr-bench, %d rank%s, %s calls: slowest rank's median time per entry\n%s, %s, %s"
                    % (ranks, "" if ranks == 1 else "s", mode, run["cpu_model"], run["mpi_library"], run["date"][:10]),
                    fontsize=10)
    handles, labels = grid.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), fontsize=9, frameon=False)
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    figure.savefig(path, dpi=72)
    pyplot.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="JSON files written by gsr-bench --json")
    parser.add_argument("--out", default=".", help="folder for the PNG files (default: here)")
    parser.add_argument("--mode", default="blocking", choices=["blocking", "nonblocking"])
    args = parser.parse_args()
    records, runs = load(args.files)
    all_ranks = sorted(distinct(r["ranks"] for r in records if r["kind"] == "call"))
    if not all_ranks:
        sys.exit("plot_bench: no call records in %s" % ", ".join(args.files))
    refuse_folder("plot_bench", "--out", args.out, must_exist=False)
    suffix = "" if args.mode == "blocking" else "_" + args.mode
    paths = {ranks: os.path.join(args.out, "bench_np%d%s.png" % (ranks, suffix)) for ranks in all_ranks}
    if os.path.isdir(args.out):
        refuse_outputs("plot_bench", [("the picture", path) for path in paths.values()],
                       [("the input", path) for path in args.files])
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
    except ImportError:
        sys.exit("plot_bench: needs matplotlib (Debian: python3-matplotlib, see scripts/install-deps.sh)")
    os.makedirs(args.out, exist_ok=True)
    for ranks, path in paths.items():
        plot_ranks(pyplot, records, runs, ranks, args.mode, path)
        print(path)


if __name__ == "__main__":
    main()
