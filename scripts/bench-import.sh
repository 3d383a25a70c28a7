#!/usr/bin/env bash
# The mesh import's speed (issue 43, item 9; docs/performance.md, "Mesh import"). Writes a 3-D
# box as a Nek5000 .re2 (tests/import/re2_writer.py), then on it, at P ranks:
#   - gsr-import-bench: the numbering step alone (vertex ids in memory to global ids in memory)
#     against a gs setup (gsr::Handle) on the ids it produces, median of R rounds, the slowest
#     rank's time, their ratio (the target: at most 0.5), and each rank's peak memory per step;
#   - gsr-mesh import: the whole import, step by step as it prints them, and the largest
#     rank's peak resident set (GNU time, when /usr/bin/time is there);
# and prints a short report. The imported file (about 2.7 GB for the default box) is removed
# unless --keep-output. Timings mean something at P <= 2 on a quiet machine only
# (docs/performance.md): repeat on a shared one. Exit 0 whatever the ratio; 2 on bad input.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$repo/scripts/lib/safe-dirs.sh"

usage() {
  cat <<EOF
usage: bash scripts/bench-import.sh [options]

Times the mesh import's numbering against a gs setup on a .re2 box it writes, and the whole
import step by step (see the top of this script).

  --build DIR         a gsr build folder holding src/tools/gsr-import-bench and gsr-mesh
                      (default: $repo/build)
  --work DIR          scratch folder: a new or empty one, marked as this script's (.gsr-work),
                      or one marked so before, whose files of earlier runs are replaced; never
                      /, the home folder, the checkout or a folder holding them
                      (default: \${TMPDIR:-/tmp}/gsr-bench-import)
  --elements X,Y,Z    elements per axis (default: 47,47,45, about 100,000 hexahedra)
  --order N           polynomial order, 1 to 64 (default: 7)
  --ranks P           MPI ranks (default: 2)
  --repeats R         rounds of gsr-import-bench, 1 to 1000 (default: 5)
  --method M          the gs setup's method (default: auto)
  --mpiexec CMD       MPI launcher, with any flags it needs (default: mpiexec)
  --keep-output       keep the imported mesh (WORK/box.h5 and its sidecar)
  -h, --help          this text

example
  bash scripts/bench-import.sh --build build --work /tmp/bench-import
EOF
}

die() { echo "bench-import: ERROR: $*" >&2; exit 2; }
safe_dirs_init bench-import "$repo" 2

build=$repo/build
work=${TMPDIR:-/tmp}/gsr-bench-import
elements=47,47,45 order=7 ranks=2 repeats=5 method=auto mpiexec=mpiexec keep=0
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --keep-output) keep=1; shift; continue ;;
  esac
  [ $# -ge 2 ] || die "$1 needs a value (see --help)"
  case $1 in
    --build) build=$2 ;;
    --work) work=$2 ;;
    --elements) elements=$2 ;;
    --order) order=$2 ;;
    --ranks) ranks=$2 ;;
    --repeats) repeats=$2 ;;
    --method) method=$2 ;;
    --mpiexec) mpiexec=$2 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift 2
done

# whole_number OPTION VALUE MIN MAX WHAT: dies unless VALUE is a whole number from MIN to MAX.
whole_number() {
  [[ $2 =~ ^[0-9]{1,9}$ ]] && ((10#$2 >= $3 && 10#$2 <= $4)) || die "$1 wants $5 from $3 to $4, not '$2'"
}
[[ $elements =~ ^[0-9]+,[0-9]+,[0-9]+$ ]] || die "--elements wants three counts like 47,47,45, not '$elements'"
IFS=, read -r nx ny nz <<<"$elements"
for n in "$nx" "$ny" "$nz"; do whole_number --elements "$n" 1 100000 "element counts"; done
whole_number --order "$order" 1 64 "an order"
whole_number --ranks "$ranks" 1 1024 "a rank count"
whole_number --repeats "$repeats" 1 1000 "a number of rounds"
[[ $method =~ ^[a-z_]+$ ]] || die "--method wants a method name (auto, pairwise, ...), not '$method'"

# The work folder (safe-dirs.sh): never /, the home folder or the checkout; inside the source
# tree only under a build folder.
work=$(safe_dirs_resolve "$work")
safe_dirs_check "$work" --work
safe_dirs_outside_sources "$work" --work

bench=$build/src/tools/gsr-import-bench
mesh=$build/src/tools/gsr-mesh
for program in "$bench" "$mesh"; do
  [ -x "$program" ] || die "no $program: build it (cmake --build $build --target $(basename "$program")) or give --build"
done
read -r -a launcher <<<"$mpiexec"
command -v "${launcher[0]}" >/dev/null 2>&1 || die "'${launcher[0]}' not found (see --mpiexec)"
python=/usr/bin/python3
[ -x "$python" ] || python=python3

safe_dirs_make_work "$work" --work
safe_dirs_remove "$work" "$work/box.re2" "$work/box.h5" "$work/box.xmf" "$work/bench.json" "$work/bench.txt" \
  "$work/import.txt" "$work/import-time.txt"

echo "bench-import: $nx x $ny x $nz box at N = $order, P = $ranks, in $work"
echo "bench-import: machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$python" "$repo/tests/import/re2_writer.py" box "$work/box.re2" --n "$nx" "$ny" "$nz"

"${launcher[@]}" -n "$ranks" "$bench" "$work/box.re2" --order "$order" --repeats "$repeats" --method "$method" \
  --json "$work/bench.json" | tee "$work/bench.txt"

timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v -o "$work/import-time.txt")
"${timer[@]}" "${launcher[@]}" -n "$ranks" "$mesh" import "$work/box.re2" --order "$order" -o "$work/box.h5" |
  tee "$work/import.txt"
[ "$keep" = 1 ] || safe_dirs_remove "$work" "$work/box.h5" "$work/box.xmf"

"$python" - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
b = json.load(open(f"{work}/bench.json"))
mib = lambda x: x / 2**20
print()
print(f"bench-import: {b['elements']} elements, N = {b['order']}, P = {b['ranks']}, "
      f"{b['global_ids']} global ids; times: the slowest rank's, median of {b['repeats']} rounds")
print(f"  number_nodes            {b['number_seconds']:.3f} s")
print(f"  gs setup                {b['setup_seconds']:.3f} s, method {b['method']} -> {b['method_used']}"
      + (f", auto measuring {b['auto_seconds']:.3f} s of it" if b['method'] == 'auto' else ""))
print(f"  ratio number / setup    {b['ratio']:.3f}  (target <= 0.5: {'met' if b['ratio'] <= 0.5 else 'NOT met'})")
for r in b["per_rank"]:
    e = max(r["elements"], 1)
    over = lambda key: (r[key] - r["start_bytes"]) / e
    print(f"  rank {r['rank']}: {r['elements']} elements; peak MiB (bytes per element over the "
          f"{mib(r['start_bytes']):.0f} MiB at start): read {mib(r['read_peak_bytes']):.0f} "
          f"({over('read_peak_bytes'):.0f}), match {mib(r['match_peak_bytes']):.0f} "
          f"({over('match_peak_bytes'):.0f}), number {mib(r['number_peak_bytes']):.0f} "
          f"({over('number_peak_bytes'):.0f}), gs setup {mib(r['setup_peak_bytes']):.0f} ({over('setup_peak_bytes'):.0f})")
steps = [l for l in open(f"{work}/import.txt") if l.strip().startswith("steps")]
print("  gsr-mesh import steps   " + (re.sub(r"^steps\s+", "", steps[0].strip()) if steps else "(none printed)"))
try:
    text = open(f"{work}/import-time.txt").read()
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    print(f"  gsr-mesh import peak resident set (largest rank): {kb / 1024:.0f} MiB, "
          f"{kb * 1024 * b['ranks'] / b['elements']:.0f} B per element of its rank")
except (OSError, AttributeError):
    pass
PY
