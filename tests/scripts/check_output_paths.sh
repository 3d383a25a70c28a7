#!/usr/bin/env bash
# Issue 42: the Python scripts in scripts/ check their output paths before they measure or
# draw anything (scripts/lib/output_paths.py): an output over an input, onto a folder, into a
# missing folder, or a missing or file --out folder is refused with status 2 and a message
# naming the option and the path, and the inputs are left as they were. Each case stops at
# that check, so none needs matplotlib, a build or MPI.
#   check_output_paths.sh SOURCE_DIR SCRATCH PYTHON
set -uo pipefail
source_dir=$1 scratch=$2 python=$3
case $scratch in */tests/scripts/output-paths) ;; *) echo "refusing scratch folder $scratch" >&2; exit 2 ;; esac
rm -rf "$scratch"
mkdir -p "$scratch/folder.png" "$scratch/pictures"
scratch=$(cd "$scratch" && pwd)
scripts=$source_dir/scripts
cd "$scratch" || exit 2

echo '{"tool": "gsr-model", "results": []}' >model.json
# A gsr-bench file with one call at P = 1, named as plot_bench.py names its picture for P = 1.
echo '{"format": "gsr-bench", "version": 1, "records": [{"kind": "call", "ranks": 1}], "run": {}}' \
  >pictures/bench_np1.png
echo "a file" >plain-file
cp model.json model.json.orig
cp pictures/bench_np1.png bench.orig

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run NAME PATTERN COMMAND...: expects status 2 and PATTERN (a plain substring) on stderr.
run() {
  local name=$1 pattern=$2 rc=0
  shift 2
  "$@" >"$name.out" 2>"$name.err" || rc=$?
  echo "--- $name: exit $rc"
  sed 's/^/    /' "$name.err"
  [ "$rc" = 2 ] || fail "$name: exit code $rc, expected 2"
  grep -qF -- "$pattern" "$name.err" || fail "$name: no '$pattern' in its stderr"
}

run plot_model_over_input "plot_model: error: --out 'model.json' is the same file as the input 'model.json', which this run reads" \
  "$python" "$scripts/plot_model.py" --out model.json model.json
run plot_model_over_input_link "is the same file as the input './model.json'" \
  "$python" "$scripts/plot_model.py" --out "$scratch/pictures/../model.json" ./model.json
run plot_model_onto_folder "--out 'folder.png' is a folder, not a file" \
  "$python" "$scripts/plot_model.py" --out folder.png model.json
run plot_model_no_folder "--out 'no/such/model.png': its folder 'no/such' does not exist" \
  "$python" "$scripts/plot_model.py" --out no/such/model.png model.json
cmp -s model.json model.json.orig || fail "model.json was written over"

run plot_bench_over_input "the picture 'pictures/bench_np1.png' is the same file as the input 'pictures/bench_np1.png'" \
  "$python" "$scripts/plot_bench.py" --out pictures pictures/bench_np1.png
run plot_bench_out_is_file "--out 'plain-file' is a file, not a folder" \
  "$python" "$scripts/plot_bench.py" --out plain-file pictures/bench_np1.png
cmp -s pictures/bench_np1.png bench.orig || fail "pictures/bench_np1.png was written over"

run validate_model_no_folder "validate_model: error: --json 'no/such/cells.json': its folder 'no/such' does not exist" \
  "$python" "$scripts/validate_model.py" --bench "$scratch/no-bench" --json no/such/cells.json
run validate_model_onto_folder "--json 'folder.png' is a folder, not a file" \
  "$python" "$scripts/validate_model.py" --bench "$scratch/no-bench" --json folder.png

run convergence_plot_no_out "convergence_plot: error: --out 'no/such' does not exist" \
  "$python" "$scripts/convergence_plot.py" --build "$scratch/no-build" --out no/such
run convergence_plot_out_is_file "--out 'plain-file' is a file, not a folder" \
  "$python" "$scripts/convergence_plot.py" --build "$scratch/no-build" --out plain-file
run convergence_plot_onto_folder "--out 'pictures/convergence.png' is a folder, not a file" \
  bash -c "mkdir -p pictures/convergence.png && exec \"$python\" \"$scripts/convergence_plot.py\" --build no-build --out pictures"
run import_convergence_plot_no_out "import_convergence_plot: error: --out 'no/such' does not exist" \
  "$python" "$scripts/import_convergence_plot.py" --build "$scratch/no-build" --out no/such
run import_convergence_plot_onto_folder "--out 'pictures/import_convergence.png' is a folder, not a file" \
  bash -c "mkdir -p pictures/import_convergence.png && exec \"$python\" \"$scripts/import_convergence_plot.py\" --build no-build --out pictures"
run disk_mesh_onto_folder "disk_mesh: error: --out 'folder.png' is a folder, not a file" \
  "$python" "$scripts/disk_mesh.py" --out folder.png

for f in "$scripts"/__pycache__ "$scripts"/lib/__pycache__; do [ ! -e "$f" ] || fail "$f was written into the checkout"; done
if [ "$failures" -gt 0 ]; then
  echo "check_output_paths: $failures failures"
  exit 1
fi
echo "check_output_paths: all cases passed"
