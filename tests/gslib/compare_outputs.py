#!/usr/bin/python3
"""Compares the per-rank result files of coarse_solver_calls linked to gsr with those of the
same program linked to gslib alone.

Every line must name the same value (kind, label, index) in the same order. Integers must be
equal. Lines of kind "f" are flagged entries after a transpose = 1 call, which the gs
semantics leaves unset: gsr's must hold the value from before the call; gslib's may differ
(when a rank holds an id only flagged, two or more times, gslib leaves its local partial in
the first copy), and how many do is reported. Doubles must be bitwise equal at P <= 2, where a group has at most two rank partials
and both libraries add them exactly alike; at P >= 3 gslib may add a rank's own partial
first, so its copies can differ from gsr's in the last bits: there every double must lie
within 8 units of 2^-52 of gslib's, relative (the values are positive sums and products of
at most 8 copies of numbers in [0.5, 2), each operation rounding by at most 2^-53).
"""
import argparse
import sys

RELATIVE_BOUND = 8 * 2.0**-52


def read(path):
    try:
        with open(path) as f:
            return [line.split() for line in f if line.strip()]
    except OSError as e:
        sys.exit(f"compare_outputs: cannot read {path}: {e}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gslib_prefix")
    parser.add_argument("gsr_prefix")
    parser.add_argument("ranks", type=int)
    args = parser.parse_args()
    exact = args.ranks <= 2
    compared = inexact = gslib_wrote_flagged = 0
    problems = []
    for rank in range(args.ranks):
        ref = read(f"{args.gslib_prefix}.{rank}")
        got = read(f"{args.gsr_prefix}.{rank}")
        if len(ref) != len(got):
            problems.append(f"rank {rank}: {len(got)} values from gsr, {len(ref)} from gslib")
        for r, g in zip(ref, got):
            where = f"rank {rank} {r[1]}[{r[2]}]"
            if r[:3] != g[:3]:
                problems.append(f"rank {rank}: gsr wrote {' '.join(g[:3])} where gslib wrote {' '.join(r[:3])}")
                break
            compared += 1
            if r[0] == "f":
                if g[3] != g[4]:
                    problems.append(f"{where}: flagged, gsr wrote {g[3]} over {g[4]} in a transpose = 1 call")
                if r[3] != r[4]:
                    gslib_wrote_flagged += 1
                continue
            if r[0] == "i" or exact:
                if r[3] != g[3]:
                    problems.append(f"{where}: gsr {g[3]}, gslib {r[3]}")
                continue
            a, b = float.fromhex(g[3]), float.fromhex(r[3])
            if a != b:
                inexact += 1
            if abs(a - b) > RELATIVE_BOUND * abs(b):
                problems.append(f"{where}: gsr {a!r}, gslib {b!r}, beyond {RELATIVE_BOUND:.3g} relative")
    if compared == 0:
        problems.append("no values compared")
    for p in problems[:20]:
        print("compare_outputs: " + p)
    rule = "bitwise" if exact else f"within {RELATIVE_BOUND:.3g} relative ({inexact} not bitwise equal)"
    print(f"compare_outputs: {args.gsr_prefix} against {args.gslib_prefix}: {compared} values at P = {args.ranks}, "
          f"{rule}: {'FAILED' if problems else 'equal'}; flagged entries gslib set under transpose = 1, "
          f"gsr left unset: {gslib_wrote_flagged}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
