#!/usr/bin/python3
"""Checks auto's choice against the measured fastest method over repeated gsr-bench runs.

The speed target (docs/performance.md, "Automatic choice"): in gsr-bench's table, the method
auto picks is within 10 % of the measured fastest method in at least 9 of 10 repeated runs on
each mesh. Each run here is a fresh `mpiexec -n P gsr-bench` (a fresh setup, so a fresh
choice); a run passes a call kind when the time of the method auto chose, in that method's
own column, is within --tolerance of the fastest column. Prints one line per mesh and call
kind with the runs that passed, and exits 1 if any falls below --need.

    /usr/bin/python3 scripts/auto_check.py --bench build/src/tools/gsr-bench --runs 10 \\
        --case 2:2 --case 2:8 --case 1:16
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", required=True, help="the gsr-bench executable")
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--need", type=int, default=9, help="runs that must pass, per mesh and call kind")
    parser.add_argument("--tolerance", type=float, default=0.10)
    parser.add_argument("--case", action="append", required=True, metavar="P:E",
                        help="ranks and box elements per rank along each axis (repeatable)")
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--machine", help="a machine file for gsr-bench --machine")
    args = parser.parse_args()

    failed = False
    with tempfile.TemporaryDirectory() as scratch:
        for case in args.case:
            ranks, elements = (int(x) for x in case.split(":"))
            passed = {}  # (call, k, mode) -> [bool per run]
            chosen = {}
            for run in range(args.runs):
                out = os.path.join(scratch, "run.json")
                command = [args.mpiexec, "-n", str(ranks), args.bench, "--elements", str(elements),
                           "--repeats", str(args.repeats), "--calls", str(args.calls), "--json", out]
                if args.machine:
                    command += ["--machine", args.machine]
                done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                if done.returncode != 0:
                    sys.exit(f"auto_check: {' '.join(command)} failed ({done.returncode}):\n{done.stdout}")
                with open(out) as f:
                    records = [r for r in json.load(f)["records"] if r["kind"] == "call"]
                rows = {}
                for r in records:
                    rows.setdefault((r["call"], r["k"], r["mode"]), {})[r["method"]] = r
                for key, by_method in rows.items():
                    pick = by_method["auto"]["chosen"]
                    times = {m: r["median_seconds"] for m, r in by_method.items() if m != "auto"}
                    fastest = min(times.values())
                    passed.setdefault(key, []).append(times[pick] <= (1 + args.tolerance) * fastest)
                    chosen.setdefault(key, []).append(pick)
            for key in sorted(passed):
                ok = sum(passed[key])
                failed |= ok < args.need
                picks = {p: chosen[key].count(p) for p in sorted(set(chosen[key]))}
                print(f"P={ranks} E={elements} {key[0]} k={key[1]} {key[2]}: {ok} of {args.runs} within "
                      f"{100 * args.tolerance:.0f} % of the fastest; auto chose {picks}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
