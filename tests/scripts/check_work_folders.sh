#!/usr/bin/env bash
# Issue 42: scripts/nek5000.sh, scripts/bench-import.sh and tests/gslib/build_gslib.sh delete
# nothing they did not make.
# Each case runs a copy of the scripts in a fake checkout (SCRATCH/src/gsr, with a file of
# "uncommitted work") and stops at the argument and work-folder checks, or, for a folder the
# script marked, right after it replaced its own entries (the Nek5000 and gslib sources given
# are not real ones), so no case builds anything. Each checks the exit code, the message, and
# that every file not the script's is still there.
#   check_work_folders.sh SOURCE_DIR SCRATCH
set -uo pipefail
source_dir=$1 scratch=$2
# The scratch folder is this test's: made afresh under the build folder by CMake's argument.
case $scratch in */tests/scripts/work-folders) ;; *) echo "refusing scratch folder $scratch" >&2; exit 2 ;; esac
rm -rf "$scratch"
mkdir -p "$scratch/src/gsr/scripts/lib" "$scratch/src/gsr/tests/gslib" "$scratch/h/home" "$scratch/stubs"
scratch=$(cd "$scratch" && pwd)
checkout=$scratch/src/gsr
cp "$source_dir/scripts/nek5000.sh" "$source_dir/scripts/bench-import.sh" "$checkout/scripts/"
cp "$source_dir/scripts/lib/safe-dirs.sh" "$checkout/scripts/lib/" 2>/dev/null || true
cp "$source_dir/tests/gslib/build_gslib.sh" "$checkout/tests/gslib/"
mkdir -p "$checkout/tests/support" "$checkout/tests/tools"
cp "$source_dir/tests/support/scratch.cmake" "$checkout/tests/support/" 2>/dev/null || true
cp "$source_dir/tests/tools/check_refusals.cmake" "$checkout/tests/tools/"
echo "uncommitted work" >"$checkout/precious.txt"
# The tools nek5000.sh looks for before its work folder; stand-ins for those a machine lacks.
for tool in nm flock timeout make; do
  command -v "$tool" >/dev/null 2>&1 || ln -s "$(command -v true)" "$scratch/stubs/$tool"
done
export PATH=$scratch/stubs:$PATH HOME=$scratch/h/home
# A Nek5000 "tree" and gslib "tarball" that exist but are not sources: a run that gets past
# its checks stops in unpacking them.
mkdir -p "$scratch/fake-nek"
echo "not gslib" >"$scratch/fake-gslib.tar.gz"
mkdir -p "$scratch/prefix"
nek_args=(--nek "$scratch/fake-nek" --gslib "$scratch/fake-gslib.tar.gz" --gsr-prefix "$scratch/prefix"
          --fc true --cc true --mpiexec true --python "$(command -v python3)")

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run NAME EXPECT_RC PATTERN DIR COMMAND...: runs COMMAND in DIR; checks the exit code and that
# PATTERN (a plain substring, single spaces) is in its stderr.
run() {
  local name=$1 expect=$2 pattern=$3 dir=$4 rc=0
  shift 4
  (cd "$dir" && "$@") >"$scratch/$name.out" 2>"$scratch/$name.err" || rc=$?
  echo "--- $name: exit $rc"
  sed 's/^/    /' "$scratch/$name.err"
  [ "$rc" = "$expect" ] || fail "$name: exit code $rc, expected $expect"
  # (cmake wraps its messages: spaces and line ends alike)
  tr -s '[:space:]' ' ' <"$scratch/$name.err" | grep -qF -- "$pattern" || fail "$name: no '$pattern' in its stderr"
}
kept() { for f in "$@"; do [ -e "$f" ] || fail "$f was deleted"; done; }
gone() { for f in "$@"; do [ ! -e "$f" ] || fail "$f is still there"; done; }
nek() { bash "$checkout/scripts/nek5000.sh" "${nek_args[@]}" "$@"; }

# ---- nek5000.sh --work: the folder holding the checkout, run from there --------------------
mkdir -p "$scratch/src/source" "$scratch/src/results"
echo "foreign" >"$scratch/src/source/keep.txt"
echo "foreign" >"$scratch/src/results/keep.txt"
run nek_work_holds_checkout 2 "is or contains the checkout $checkout" "$scratch/src" \
  bash gsr/scripts/nek5000.sh "${nek_args[@]}" --work .
kept "$checkout/precious.txt" "$checkout/scripts/nek5000.sh" "$scratch/src/source/keep.txt" \
  "$scratch/src/results/keep.txt"
gone "$scratch/src/.gsr-work"
run nek_work_is_checkout 2 "is or contains the checkout" "$checkout" nek --work .
run nek_work_in_checkout 2 "is inside the source tree" "$scratch" nek --work "$checkout/scripts/x"
kept "$checkout/precious.txt"
gone "$checkout/scripts/x"
run nek_work_holds_home 2 "is or contains the home folder $scratch/h/home" "$scratch" nek --work "$scratch/h"
gone "$scratch/h/.gsr-work"

# ---- a folder of someone else's: not empty, no marker --------------------------------------
foreign=$scratch/foreign
mkdir -p "$foreign/source" "$foreign/gsr" "$foreign/bin"
echo "foreign" >"$foreign/source/keep.txt"
echo "foreign" >"$foreign/gsr/keep.txt"
echo "foreign" >"$foreign/bin/mpiexec"
run nek_work_foreign 2 "is not empty and has no .gsr-work marker" "$scratch" nek --work "$foreign"
kept "$foreign/source/keep.txt" "$foreign/gsr/keep.txt" "$foreign/bin/mpiexec"
gone "$foreign/.gsr-work"
other=$scratch/other
mkdir -p "$other/source"
printf 'gsr-work build_gslib\n' >"$other/.gsr-work"
echo "foreign" >"$other/source/keep.txt"
run nek_work_other_script 2 "is another script's work folder" "$scratch" nek --work "$other"
kept "$other/source/keep.txt"
echo "a file" >"$scratch/plain-file"
run nek_work_is_file 2 "exists and is not a folder" "$scratch" nek --work "$scratch/plain-file"
kept "$scratch/plain-file"

# ---- a folder the script marked: its own entries replaced, nothing else --------------------
own=$scratch/own
mkdir -p "$own/source/old" "$own/results" "$own/bin" "$own/cores"
printf 'gsr-work nek5000\n' >"$own/.gsr-work"
echo "mine" >"$own/notes.txt"
echo "old" >"$own/source/old/file"
run nek_work_marked 2 "is not a Nek5000 source: it has no short_tests/NekTests.py" "$scratch" nek --work "$own"
kept "$own/notes.txt" "$own/.gsr-work" "$own/source/Nek5000"
gone "$own/source/old"
# One an earlier nek5000.sh (no marker) left, known by the mpiexec it wrote: taken over.
legacy=$scratch/legacy
mkdir -p "$legacy/source/old" "$legacy/bin"
printf '#!/usr/bin/env bash\n# Written by scripts/nek5000.sh, which puts this folder first on PATH for NekTests.py.\n' \
  >"$legacy/bin/mpiexec"
run nek_work_legacy 2 "is not a Nek5000 source" "$scratch" nek --work "$legacy"
gone "$legacy/source/old"
kept "$legacy/.gsr-work"
# A new folder: made and marked.
run nek_work_new 2 "is not a Nek5000 source" "$scratch" nek --work "$scratch/new/work"
kept "$scratch/new/work/.gsr-work"
# Inputs inside what the script replaces, or holding the work folder.
mkdir -p "$own/source/Nek5000"
run nek_input_in_work 2 "lies in $own/source, which this script deletes and remakes" "$scratch" \
  bash "$checkout/scripts/nek5000.sh" --nek "$own/source/Nek5000" --gslib "$scratch/fake-gslib.tar.gz" \
  --gsr-prefix "$scratch/prefix" --fc true --cc true --mpiexec true --work "$own"
kept "$own/source/Nek5000"
run nek_work_in_input 2 "--work $scratch/fake-nek/w lies in --nek $scratch/fake-nek" "$scratch" \
  nek --work "$scratch/fake-nek/w"
gone "$scratch/fake-nek/w"

# ---- numeric options: a clear error naming the option and the range, nothing made ----------
absent=$scratch/absent
run nek_timing_huge 2 "--timing wants a number of runs from 1 to 1000, not '99999999999999999999'" "$scratch" \
  nek --work "$absent" --timing 99999999999999999999
run nek_timing_zero 2 "--timing wants a number of runs from 1 to 1000, not '0'" "$scratch" \
  nek --work "$absent" --timing 0
run nek_np_huge 2 "--np-list wants rank counts from 1 to 1024, not '99999999999999999999'" "$scratch" \
  nek --work "$absent" --np-list 2,99999999999999999999
run nek_np_large 2 "--np-list wants rank counts from 1 to 1024, not '1025'" "$scratch" \
  nek --work "$absent" --np-list 1025
run nek_timeout_huge 2 "--run-timeout wants seconds from 1 to 86400, not '99999999999999999999'" "$scratch" \
  nek --work "$absent" --run-timeout 99999999999999999999
gone "$absent"

# ---- bench-import.sh's work folder (its programs: stand-ins, never run) ---------------
mkdir -p "$scratch/fake-build/src/tools"
for program in gsr-import-bench gsr-mesh; do
  printf '#!/bin/sh\nexit 0\n' >"$scratch/fake-build/src/tools/$program"
  chmod +x "$scratch/fake-build/src/tools/$program"
done
bench_import() { bash "$checkout/scripts/bench-import.sh" --build "$scratch/fake-build" --mpiexec true "$@"; }
run bench_import_work_holds_checkout 2 "is or contains the checkout $checkout" "$scratch/src" \
  bash gsr/scripts/bench-import.sh --build "$scratch/fake-build" --work .
kept "$checkout/precious.txt" "$scratch/src/source/keep.txt"
gone "$scratch/src/.gsr-work"
run bench_import_work_in_checkout 2 "is inside the source tree" "$scratch" bench_import --work "$checkout/scripts/x"
gone "$checkout/scripts/x"
run bench_import_work_foreign 2 "is not empty and has no .gsr-work marker" "$scratch" bench_import --work "$foreign"
kept "$foreign/source/keep.txt" "$foreign/gsr/keep.txt" "$foreign/bin/mpiexec"
gone "$foreign/.gsr-work"
run bench_import_work_nek5000s 2 "is another script's work folder" "$scratch" bench_import --work "$own"
kept "$own/notes.txt"
run bench_import_elements_zero 2 "--elements wants element counts from 1 to 100000, not '0'" "$scratch" \
  bench_import --work "$absent" --elements 47,0,45
run bench_import_order_huge 2 "--order wants an order from 1 to 64, not '65'" "$scratch" \
  bench_import --work "$absent" --order 65
gone "$absent"

# ---- build_gslib.sh's work folder ------------------------------------------------------------
gslib() { bash "$checkout/tests/gslib/build_gslib.sh" "$scratch/fake-gslib.tar.gz" "$1" true lib.so lib_f.so .; }
run gslib_work_holds_checkout 1 "is or contains the checkout $checkout" "$scratch/src" \
  bash gsr/tests/gslib/build_gslib.sh "$scratch/fake-gslib.tar.gz" . true lib.so lib_f.so .
kept "$checkout/precious.txt" "$scratch/src/source/keep.txt"
gone "$scratch/src/.gsr-work"
run gslib_work_foreign 1 "is not empty and has no .gsr-work marker" "$scratch" gslib "$foreign"
kept "$foreign/source/keep.txt" "$foreign/gsr/keep.txt"
run gslib_work_nek5000s 1 "is another script's work folder" "$scratch" gslib "$own"
kept "$own/notes.txt"
gwork=$scratch/gwork
mkdir -p "$gwork/src/old"
printf 'gsr-work build_gslib\n' >"$gwork/.gsr-work"
echo "mine" >"$gwork/notes.txt"
run gslib_work_marked 1 "build_gslib: cannot unpack $scratch/fake-gslib.tar.gz" "$scratch" gslib "$gwork"
kept "$gwork/notes.txt" "$gwork/.gsr-work"
gone "$gwork/src/old"

# ---- the cmake -P test scripts' scratch folders (tests/support/scratch.cmake) -------------
refusals() { cmake -DGROUP=serial -DMESH=true -DMODEL=true -DDIR="$1" -P "$checkout/tests/tools/check_refusals.cmake"; }
run cmake_scratch_holds_checkout 1 "is or contains the checkout $checkout; not removing it" "$scratch" \
  refusals "$scratch/src"
kept "$checkout/precious.txt" "$scratch/src/source/keep.txt"
run cmake_scratch_holds_home 1 "is or contains the home folder $scratch/h/home; not removing it" "$scratch" \
  refusals "$scratch/h"
kept "$scratch/h/home"
run cmake_scratch_relative 1 "is not an absolute path; not removing it" "$scratch" refusals foreign
kept "$foreign/source/keep.txt"
outside=$(mktemp -d)
mkdir -p "$outside/data"
echo "foreign" >"$outside/data/keep.txt"
run cmake_scratch_outside_build 1 "is not inside a build folder (no CMakeCache.txt above it)" "$scratch" \
  refusals "$outside/data"
kept "$outside/data/keep.txt"
rm -rf "${outside:?}"

if [ "$failures" -gt 0 ]; then
  echo "check_work_folders: $failures failures"
  exit 1
fi
echo "check_work_folders: all cases passed"
