#!/usr/bin/python3
"""Checks the calibrated cost model against measured calls (docs/scaling.md, "Validation").

Each of --runs runs calibrates the machine afresh (gsr-bench --calibrate at --calibrate-ranks)
and then times every call on boxes of --elements per rank at each of --ranks with that
machine file. A shared machine's out-of-cache calls vary between runs by more than the
model's 30 % target, and so does the calibration that measures them, so each cell reports
the median measured time over the median prediction across runs, with the range of the
single runs' ratios. Prints a Markdown table and a summary, and with --json writes every
run's cells.

    /usr/bin/python3 scripts/validate_model.py --bench build/src/tools/gsr-bench --runs 5
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # scripts/lib/output_paths.py: no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from output_paths import refuse_outputs  # noqa: E402


def run(command):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"validate_model: {' '.join(command)} failed ({done.returncode}):\n{done.stdout}")


def calls(path):
    """{(call, k, method): (measured, predicted)} seconds, blocking calls of one gsr-bench run."""
    with open(path) as f:
        document = json.load(f)
    out = {}
    entries = None
    for r in document["records"]:
        if r["kind"] != "call" or r["mode"] != "blocking" or r["method"] == "auto":
            continue
        entries = r["entries_per_rank"]
        out[(r["call"], r["k"], r["method"])] = (r["median_seconds"], r["predicted_seconds"])
    return entries, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", required=True, help="the gsr-bench executable")
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ranks", default="1,2", help="rank counts to validate at")
    parser.add_argument("--elements", default="4,8,12", help="box elements per axis and rank")
    parser.add_argument("--calibrate-ranks", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--json", help="write every run's cells here")
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit("validate_model: --runs must be >= 1")
    refuse_outputs("validate_model", [("--json", args.json)], [("--bench", args.bench)])
    ranks = [int(p) for p in args.ranks.split(",")]
    elements = [int(e) for e in args.elements.split(",")]

    cells = {}  # (P, entries, call, k, method) -> list of (measured, predicted), one per run
    with tempfile.TemporaryDirectory() as scratch:
        machine = os.path.join(scratch, "machine.json")
        for r in range(args.runs):
            run([args.mpiexec, "-n", str(args.calibrate_ranks), args.bench, "--calibrate", machine,
                 "--repeats", "21", "--calls", "20"])
            for p in ranks:
                for e in elements:
                    out = os.path.join(scratch, f"run_{p}_{e}.json")
                    run([args.mpiexec, "-n", str(p), args.bench, "--machine", machine, "--elements", str(e),
                         "--repeats", str(args.repeats), "--calls", str(args.calls), "--json", out])
                    entries, measured = calls(out)
                    for (call, k, method), pair in measured.items():
                        cells.setdefault((p, entries, call, k, method), []).append(pair)
            print(f"validate_model: run {r + 1} of {args.runs} done", file=sys.stderr)

    methods = []
    for key in cells:
        if key[4] not in methods:
            methods.append(key[4])
    rows = {}
    for (p, entries, call, k, method), pairs in cells.items():
        rows.setdefault((p, entries, call, k), {})[method] = pairs
    print("| P | entries/rank | call | " + " | ".join(methods) + " |")
    print("|---|---|---|" + "---|" * len(methods))
    outside = total = misranked = 0
    for (p, entries, call, k), by_method in sorted(rows.items()):
        text = []
        medians = {}
        for method in methods:
            pairs = by_method.get(method)
            if not pairs:
                text.append("")
                continue
            measured = statistics.median(m for m, _ in pairs)
            predicted = statistics.median(q for _, q in pairs)
            ratios = [m / q for m, q in pairs]
            medians[method] = (measured, predicted)
            total += 1
            outside += abs(measured / predicted - 1) > 0.3
            spread = f" [{min(ratios):.2f}-{max(ratios):.2f}]" if len(pairs) > 1 else ""
            text.append(f"{1e6 * measured:.1f} / {1e6 * predicted:.1f} ({measured / predicted:.2f}){spread}")
        for a in medians:
            for b in medians:
                (ma, pa), (mb, pb) = medians[a], medians[b]
                if ma * 1.3 < mb and pa >= pb:
                    misranked += 1
        print(f"| {p} | {entries} | {call} k={k} | " + " | ".join(text) + " |")
    print(f"\n{total - outside} of {total} cells within 30 % (median measured over median predicted, "
          f"{args.runs} runs); {misranked} pairs measured > 30 % apart ranked the other way.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"ranks": k[0], "entries_per_rank": k[1], "call": k[2], "k": k[3], "method": k[4],
                        "runs": [{"measured_seconds": m, "predicted_seconds": q} for m, q in v]}
                       for k, v in cells.items()], f, indent=1)


if __name__ == "__main__":
    main()
