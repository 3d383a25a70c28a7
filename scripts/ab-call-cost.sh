#!/usr/bin/env bash
# Per-call cost of two builds of libgsr, A and B, interleaved (A B A B ...) so that the
# machine's drift hits both alike: scripts/ab_call_cost.c, built once against B's headers,
# runs against each library in turn through LD_LIBRARY_PATH (the C API's ABI is the same).
# Prints every run and, per rank count and kind of call, the median of each side over the
# runs and the ratio B/A. Timings mean something at P <= 2 only (docs/performance.md).
#
# usage: [AB_RANKS="1 2"] scripts/ab-call-cost.sh A_LIB_DIR B_LIB_DIR [runs = 8] [n = 1000] [calls = 20000]
#   e.g. A = a build of the previous commit's src/, B = this build's src/
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,9p' "$0"; exit 2; }
a=$(realpath "$1") b=$(realpath "$2") runs=${3:-8} n=${4:-1000} calls=${5:-20000}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 -I"$here/include" "$here/scripts/ab_call_cost.c" -L"$b" -lgsr -o "$work/ab_call_cost"
for p in ${AB_RANKS:-1 2}; do
  for run in $(seq "$runs"); do
    for side in A B; do
      lib=$a; [ "$side" = B ] && lib=$b
      LD_LIBRARY_PATH="$lib" mpiexec -n "$p" "$work/ab_call_cost" "$n" "$calls" 5 |
        sed "s/^/$p $side $run /" | tee -a "$work/all.txt"
    done
  done
done
/usr/bin/python3 - "$work/all.txt" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
print("P  call        median A (s)  median B (s)  B/A")
for p in sorted({r[0] for r in rows}):
    for kind in dict.fromkeys(r[3] for r in rows):
        side = {s: statistics.median(float(r[4]) for r in rows if r[0] == p and r[1] == s and r[3] == kind) for s in "AB"}
        print(f"{p}  {kind:10s}  {side['A']:.4e}    {side['B']:.4e}    {side['B'] / side['A']:.4f}")
PY
