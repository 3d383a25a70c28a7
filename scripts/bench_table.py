#!/usr/bin/python3
"""Turns gsr-bench JSON files into the Markdown table of docs/performance.md ("Results").

One row per run and call kind (blocking calls): the bounds (stream, wire, round, and the
touch bound of the fastest method's call), each method's microseconds per call with its
ratio to stream + wire in brackets (the fastest concrete method in bold), and auto's with
the method it chose. The last two columns give the fastest call's overhead over stream +
wire and its ratio to touch + wire.

    /usr/bin/python3 scripts/bench_table.py np1_e2.json np1_e8.json np2_e2.json ...
"""
import argparse
import json


def microseconds(seconds):
    us = 1e6 * seconds
    return f"{us:.0f}" if us >= 1000 else f"{us:.2f}" if us < 10 else f"{us:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="JSON files written by gsr-bench --json")
    parser.add_argument("--mode", default="blocking", choices=["blocking", "nonblocking"])
    args = parser.parse_args()

    runs = []
    methods = []
    for path in args.files:
        with open(path) as f:
            records = json.load(f)["records"]
        calls = [r for r in records if r["kind"] == "call" and r["mode"] == args.mode]
        bounds = {(r["bound"], r.get("k")): r["median_seconds"] for r in records if r["kind"] == "bound"}
        for r in calls:
            if r["method"] != "auto" and r["method"] not in methods:
                methods.append(r["method"])
        runs.append((calls, bounds))

    print("| P | box per rank | entries/rank | call | stream | wire | round | touch | " + " | ".join(methods) +
          " | auto | overhead, fastest | fastest / (touch + wire) |")
    print("|---|---|---|---|---|---|---|---|" + "---|" * (len(methods) + 3))
    for calls, bounds in sorted(runs, key=lambda run: (run[0][0]["ranks"], run[0][0]["entries_per_rank"])):
        rows = {}
        for r in calls:
            rows.setdefault((r["call"], r["k"]), {})[r["method"]] = r
        for (call, k), by_method in sorted(rows.items(), key=lambda item: (item[0][1], item[0][0])):
            first = next(iter(by_method.values()))
            fastest = min((r for m, r in by_method.items() if m != "auto"), key=lambda r: r["median_seconds"])
            cells = []
            for m in methods:
                r = by_method.get(m)
                if not r:
                    cells.append("")
                    continue
                text = f"{microseconds(r['median_seconds'])} ({r['ratio']:.2f}x)"
                cells.append(f"**{text}**" if r is fastest else text)
            auto = by_method.get("auto")
            cells.append(f"{microseconds(auto['median_seconds'])} ({auto['ratio']:.2f}x) {auto['chosen']}" if auto else "")
            over = fastest["overhead_seconds"]
            cells.append(("+" if over >= 0 else "-") + microseconds(abs(over)))
            cells.append(f"{fastest['touch_ratio']:.2f}x")
            # The call records carry touch + wire of their own method, k and layout.
            touch = fastest["touch_bound_seconds"] - bounds.get(("wire", k), 0)
            box = f"{first['box_elements']}^{first['dim']}" if first.get("input") == "box" else first.get("input", "")
            print(f"| {first['ranks']} | {box} | {first['entries_per_rank']} | {call} k={k} | "
                  f"{microseconds(bounds.get(('stream', k), 0))} | {microseconds(bounds.get(('wire', k), 0))} | "
                  f"{microseconds(bounds.get(('round', None), 0))} | {microseconds(touch)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
