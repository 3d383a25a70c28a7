#!/usr/bin/env bash
# Runs coarse_solver_calls linked to gslib alone, then linked to gsr with each method for
# the pw_data handles, at P ranks, and compares every rank's results (compare_outputs.py).
#   run_compare.sh WORK_DIR P PYTHON MPIEXEC NUMPROC_FLAG [MPIEXEC_PREFLAGS...]
set -euo pipefail
work=$1 ranks=$2 python=$3 mpiexec=$4 np_flag=$5
shift 5
here=$(dirname "$0")
out=$work/out_np$ranks
mkdir -p "$out"
# In a sanitized build the leak check is off for gslib's own run: gslib's gs_auto leaks 4
# bytes of each allreduce plan it tries and drops (allreduce_setup), which is gslib's.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  "$mpiexec" "$np_flag" "$ranks" "$@" "$work/calls_gslib" "$out/gslib" pairwise >"$out/gslib.log"
status=0
for method in pairwise crystal_router all_reduce auto; do
  "$mpiexec" "$np_flag" "$ranks" "$@" "$work/calls_gsr" "$out/gsr_$method" "$method" >"$out/gsr_$method.log"
  "$python" "$here/compare_outputs.py" "$out/gslib" "$out/gsr_$method" "$ranks" || status=1
done
grep -q '^gsr gs_setup: ' "$out/gsr_auto.log" ||
  { echo "run_compare: gsr's setup line is missing from the verbose setups' output" >&2; status=1; }
exit $status
