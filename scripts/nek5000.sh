#!/usr/bin/env bash
# Nek5000 as a client of gsr. Builds Nek5000 from one source in two trees of their own:
# "stock", with gslib alone, and "gsr", with gsr's libraries on USR_LFLAGS ahead of gslib's
# libgs.a (makenek appends -lgs after them). In each it runs Nek5000's own tests as their
# users do, `python3 -m unittest -v NekTests.<target>` in short_tests/ with NEK_SOURCE_ROOT,
# FC, CC, USR_LFLAGS and PARALLEL_PROCS in the environment, then checks
#   - NekTests' verdicts for both builds: the result line and every SUCCESS/FAILURE target;
#   - that the gsr build prints the error norms, iteration counts, residuals and partition
#     statistics that stock prints, character for character (timing columns left out);
#   - that gslib's gs.o is not in the gsr build's executables (nm), and that at run time the
#     gather-scatter and crystal calls bind to gsr's libraries (one short LD_DEBUG run);
# and prints a summary table. Exits 1 naming every check that failed, 2 on bad input.
# `--timing N` instead times both builds on a genbox box and on Ethier (not for CI).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
here=$repo/scripts
. "$here/lib/safe-dirs.sh"
clients=${GSR_CLIENTS_DIR:-$repo/../shared/clients}
default_tests=Eddy_EddyUv.test_PnPn_Serial,Eddy_EddyUv.test_PnPn_Parallel,Ethier.test_PnPn2_Parallel

usage() {
  cat <<EOF
usage: bash scripts/nek5000.sh [options]

Builds Nek5000 with stock gslib and with gsr, runs Nek5000's short tests (NekTests.py,
unmodified) in both and compares them; see the top of this script for the checks.

inputs
  --nek PATH           Nek5000 source, a tarball or a tree
                       (default: \$GSR_CLIENTS_DIR or ../shared/clients: Nek5000-41d17942.tar.gz)
  --gslib PATH         gslib source, a tarball or a tree; Nek5000 builds it offline from
                       3rd_party/gslib/v<version>.tar.gz (default: there, gslib-1.0.9.tar.gz)
  --gsr-prefix DIR     an installed gsr (DIR/lib/libgsr.so, libgsr_fortran.so)
  --gsr-build DIR      a gsr build folder, installed into WORK/gsr-prefix first
                       (the default, with $repo/build, when neither is given)
  --work DIR           scratch folder: a new or empty one, marked as this script's (.gsr-work),
                       or one marked so before, whose trees of earlier runs are replaced;
                       never /, the home folder, the checkout or a folder holding them
                       (default: \${TMPDIR:-/tmp}/gsr-nek5000)
what to run
  --tests LIST         NekTests targets, comma-separated (default: $default_tests);
                       a target named *Serial* runs at P = 1, the others at each P of --np-list
  --np-list LIST       rank counts for the parallel targets, comma-separated, each 1 to 1024
                       (default: 2)
  --sequential         run stock's targets, then gsr's (default: side by side, sharing the
                       cores: a run of P ranks waits for P free cores; builds overlap)
  --timing N           instead of the tests: time stock against gsr, N interleaved runs each
                       (1 to 1000; N >= 8 for a measurement) at P = 2 on a genbox 8x8x8 box and on Ethier
  --sync               with --timing: the cases set Nek5000's IFSYNC, so the ranks meet in a
                       barrier before each gather-scatter Nek5000 times, and dsum and vdss
                       leave out the wait for a rank that comes late
MPI and tools (NekTests reads FC and CC; it starts Nek5000 with the mpiexec found on PATH,
which this script points at --mpiexec)
  --fc CMD             Fortran compiler wrapper (default: mpif77.mpich if present, else mpif77)
  --cc CMD             C compiler wrapper (default: mpicc.mpich if present, else mpicc)
  --mpiexec CMD        MPI launcher, with any flags it needs (default: mpiexec.mpich, else mpiexec)
  --python PATH        Python 3 for NekTests and the checks (default: /usr/bin/python3)
  --run-timeout S      stop a Nek5000 run after S seconds (1 to 86400), a failure (default: 240;
                       a run of these tests takes 10 to 30 s)
  -h, --help           this text

examples
  bash scripts/nek5000.sh --gsr-build build
  bash scripts/nek5000.sh --nek ~/Nek5000 --gslib ~/gslib --gsr-prefix ~/opt/gsr \\
       --work /tmp/nek-check --np-list 1,2
EOF
}

die() { echo "nek5000: ERROR: $*" >&2; exit 2; }
safe_dirs_init nek5000 "$repo" 2
say() { echo "nek5000: $*"; }
first_command() { local c; for c in "$@"; do command -v "$c" >/dev/null 2>&1 && { echo "$c"; return; }; done; echo "$1"; }

nek=""; gslib=""; gsr_prefix=""; gsr_build=""
work=${TMPDIR:-/tmp}/gsr-nek5000
tests=$default_tests; np_list=2; sequential=0; timing_runs=0; timing_given=0; run_timeout=240; sync=0
fc=$(first_command mpif77.mpich mpif77); cc=$(first_command mpicc.mpich mpicc)
mpiexec=$(first_command mpiexec.mpich mpiexec)
python=/usr/bin/python3; [ -x "$python" ] || python=python3

while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --sequential) sequential=1; shift; continue ;;
    --sync) sync=1; shift; continue ;;
  esac
  [ $# -ge 2 ] || die "$1 needs a value (see --help)"
  case $1 in
    --nek) nek=$2 ;;
    --gslib) gslib=$2 ;;
    --gsr-prefix) gsr_prefix=$2 ;;
    --gsr-build) gsr_build=$2 ;;
    --work) work=$2 ;;
    --tests) tests=$2 ;;
    --np-list) np_list=$2 ;;
    --timing) timing_runs=$2; timing_given=1 ;;
    --fc) fc=$2 ;;
    --cc) cc=$2 ;;
    --mpiexec) mpiexec=$2 ;;
    --python) python=$2 ;;
    --run-timeout) run_timeout=$2 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift 2
done

# --- inputs ---------------------------------------------------------------------------------

# whole_number OPTION VALUE MIN MAX WHAT: dies unless VALUE is a whole number from MIN to MAX
# (at most 9 digits, so that bash's arithmetic holds it).
whole_number() {
  [[ $2 =~ ^[0-9]{1,9}$ ]] && ((10#$2 >= $3 && 10#$2 <= $4)) || die "$1 wants $5 from $3 to $4, not '$2'"
}
[[ $np_list =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--np-list wants rank counts like 1,2, not '$np_list'"
IFS=, read -r -a np_values <<<"$np_list"
for p in "${np_values[@]}"; do whole_number --np-list "$p" 1 1024 "rank counts"; done
if [ "$timing_given" = 1 ]; then
  whole_number --timing "$timing_runs" 1 1000 "a number of runs"
  timing_runs=$((10#$timing_runs))
fi
[[ $run_timeout =~ ^[1-9][0-9]*$ ]] || die "--run-timeout wants seconds, not '$run_timeout'"
whole_number --run-timeout "$run_timeout" 1 86400 "seconds"

[ -n "$nek" ] || nek=$clients/Nek5000-41d17942.tar.gz
[ -n "$gslib" ] || gslib=$clients/gslib-1.0.9.tar.gz
[ -e "$nek" ] || die "no Nek5000 source at '$nek': give --nek <tarball|tree> (or set GSR_CLIENTS_DIR)"
[ -e "$gslib" ] || die "no gslib source at '$gslib': give --gslib <tarball|tree> (or set GSR_CLIENTS_DIR)"
nek=$(realpath "$nek"); gslib=$(realpath "$gslib")
if [ -n "$gsr_prefix" ] && [ -n "$gsr_build" ]; then die "give --gsr-prefix or --gsr-build, not both"; fi
if [ -z "$gsr_prefix" ] && [ -z "$gsr_build" ]; then
  gsr_build=$repo/build
  [ -f "$gsr_build/cmake_install.cmake" ] ||
    die "no gsr given and no build in $gsr_build: give --gsr-prefix <installed gsr> or --gsr-build <build folder>"
fi
IFS=, read -r -a targets <<<"$tests"
for t in "${targets[@]}"; do
  [[ $t =~ ^[A-Za-z_][A-Za-z0-9_]*\.test[A-Za-z0-9_]*$ ]] || die "'$t' is not a NekTests target (Class.test_method)"
done
read -r -a launcher <<<"$mpiexec"
for tool in "${fc%% *}" "${cc%% *}" "${launcher[0]}" "$python" nm flock timeout tar make realpath; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found (see --help for --fc, --cc, --mpiexec, --python)"
done
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 6))' || die "$python is older than Python 3.6, which NekTests needs"

# The work folder: never /, the home folder, the checkout or a folder holding one of them, nor
# a folder inside the checkout (but its build folders); a new or empty folder, or one this
# script marked before (safe-dirs.sh); a folder of an earlier version of this script, which
# wrote no marker, is known by the mpiexec it wrote.
work=$(safe_dirs_resolve "$work")
safe_dirs_check "$work" --work
safe_dirs_outside_sources "$work" --work
# What the script deletes and remakes in it must hold none of the inputs, and the sources it
# copies (trees) must not hold the work folder.
cleared=(source stock gsr results bin cores)
[ -z "$gsr_build" ] || cleared+=(gsr-prefix)
for input in --nek --gslib --gsr-prefix --gsr-build; do
  case $input in
    --nek) path=$nek ;; --gslib) path=$gslib ;; --gsr-prefix) path=$gsr_prefix ;; --gsr-build) path=$gsr_build ;;
  esac
  [ -n "$path" ] || continue
  path=$(safe_dirs_resolve "$path")
  for entry in "${cleared[@]}"; do
    ! safe_dirs_within "$work/$entry" "$path" ||
      die "$input $path lies in $work/$entry, which this script deletes and remakes; give another --work"
  done
  if [ "$input" = --nek ] || [ "$input" = --gslib ]; then
    ! safe_dirs_within "$path" "$work" || die "--work $work lies in $input $path, which this script copies; give another --work"
  fi
done
safe_dirs_make_work "$work" --work bin/mpiexec \
  '# Written by scripts/nek5000.sh, which puts this folder first on PATH for NekTests.py.'
results=$work/results
cores=$(nproc 2>/dev/null || echo 2)

# NekTests and makenek read these; only what this script sets may reach them.
unset USR_LFLAGS PPLIST FFLAGS CFLAGS MPI EXAMPLES_ROOT TOOLS_ROOT TOOLS_BIN LOG_ROOT \
      NEK_DEPS_LOCAL_SRC LD_DEBUG LD_DEBUG_OUTPUT

# unpack_nek: the Nek5000 source, once, into $work/source/Nek5000 (a tree is copied).
unpack_nek() {
  local dest=$work/source top
  safe_dirs_remove "$work" "$dest"; mkdir -p "$dest"
  if [ -d "$nek" ]; then
    mkdir "$dest/Nek5000"
    tar -C "$nek" --exclude=./.git -cf - . | tar -C "$dest/Nek5000" -xf -
  else
    tar -xf "$nek" -C "$dest" || die "cannot unpack $nek"
    top=$(find "$dest" -mindepth 1 -maxdepth 1 -type d | head -n 1)
    [ -n "$top" ] || die "$nek holds no folder; expected a Nek5000 source tarball"
    [ "$top" = "$dest/Nek5000" ] || mv "$top" "$dest/Nek5000"
  fi
  local f
  for f in short_tests/NekTests.py bin/makenek core/makenek.inc 3rd_party/gslib/install tools/maketools; do
    [ -e "$dest/Nek5000/$f" ] || die "$nek is not a Nek5000 source: it has no $f"
  done
  # Whatever an earlier build left of gslib would be used instead of the source given here.
  (cd "$dest/Nek5000/3rd_party/gslib" && find . -mindepth 1 -maxdepth 1 ! -name install -exec rm -rf {} +)
}

# gslib_tarball: the gslib source as 3rd_party/gslib/install looks for it, v<VER>.tar.gz.
gslib_tarball() {
  local version
  version=$(sed -n 's/^: \${VER:="\([^"]*\)"}.*/\1/p' "$work/source/Nek5000/3rd_party/gslib/install" | head -n 1)
  [ -n "$version" ] || die "cannot read the gslib version from Nek5000's 3rd_party/gslib/install"
  gslib_archive=$work/source/v$version.tar.gz
  if [ -d "$gslib" ]; then
    [ -f "$gslib/src/gs.c" ] || die "$gslib is not a gslib source: it has no src/gs.c"
    tar -C "$(dirname "$gslib")" --exclude="$(basename "$gslib")/.git" \
        --exclude="$(basename "$gslib")/build" -czf "$gslib_archive" "$(basename "$gslib")"
  else
    { tar -tzf "$gslib" 2>/dev/null || true; } | grep -q '/src/gs\.c$' || die "$gslib is not a gslib source tarball: it has no src/gs.c"
    cp "$gslib" "$gslib_archive"
  fi
  say "gslib $version from $gslib"
}

# make_tree <build>: a fresh copy of the Nek5000 source for one build, gslib in place.
make_tree() {
  safe_dirs_remove "$work" "$work/$1"; mkdir -p "$work/$1" "$results/$1"
  cp -a "$work/source/Nek5000" "$work/$1/Nek5000"
  cp "$gslib_archive" "$work/$1/Nek5000/3rd_party/gslib/"
}

# find_gsr: the installed gsr (installed here from --gsr-build), its lib folder and the
# USR_LFLAGS of the gsr build.
find_gsr() {
  if [ -n "$gsr_build" ]; then
    gsr_prefix=$work/gsr-prefix
    safe_dirs_remove "$work" "$gsr_prefix"
    cmake --install "$gsr_build" --prefix "$gsr_prefix" >"$work/gsr-install.log" 2>&1 ||
      die "cmake --install $gsr_build failed (see $work/gsr-install.log)"
  fi
  [ -d "$gsr_prefix" ] || die "no gsr installed at $gsr_prefix"
  gsr_prefix=$(realpath "$gsr_prefix")
  local d
  gsr_libdir=""
  for d in "$gsr_prefix"/lib "$gsr_prefix"/lib64 "$gsr_prefix"/lib/*-linux-gnu; do
    if [ -e "$d/libgsr.so" ] && [ -e "$d/libgsr_fortran.so" ]; then gsr_libdir=$d; break; fi
  done
  [ -n "$gsr_libdir" ] || die "$gsr_prefix has no lib/libgsr.so and lib/libgsr_fortran.so"
  gsr_lflags="-L$gsr_libdir -Wl,-rpath,$gsr_libdir -lgsr_fortran -lgsr"
  say "gsr from $gsr_prefix: USR_LFLAGS=\"$gsr_lflags\""
}

# The mpiexec NekTests finds on PATH: the chosen launcher, started when there are as many
# free cores as it starts ranks (one lock file per core; MPICH's ranks poll busily, so the
# two builds' runs side by side must not share cores) and stopped after --run-timeout
# seconds (NekTests would wait for ever), recording each run's seconds and exit status in
# $GSR_NEK_RUNS.
write_mpiexec() {
  safe_dirs_remove "$work" "$work/bin" "$work/cores"
  mkdir -p "$work/bin" "$work/cores"
  {
    echo '#!/usr/bin/env bash'
    echo '# Written by scripts/nek5000.sh, which puts this folder first on PATH for NekTests.py.'
    printf 'launcher=(%s)\ncores=%d\ncore_dir=%q\nrun_timeout=%d\n' \
      "$(printf '%q ' "${launcher[@]}")" "$cores" "$work/cores" "$run_timeout"
    cat <<'EOF'
ranks=1
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; i++)); do
  case ${args[i]} in -np|-n) ranks=${args[i + 1]} ;; esac
done
need=$((ranks < cores ? ranks : cores))
while :; do
  held=()
  for ((c = 0; c < cores && ${#held[@]} < need; c++)); do
    exec {fd}>"$core_dir/core.$c"
    if flock -n "$fd"; then held+=("$fd"); else exec {fd}>&-; fi
  done
  [ ${#held[@]} -ge "$need" ] && break
  for fd in "${held[@]}"; do exec {fd}>&-; done
  sleep 0.5
done
start=$(date +%s.%N)
status=0
timeout -k 10 "$run_timeout" "${launcher[@]}" "$@" || status=$?
[ "$status" != 124 ] || echo "mpiexec: Nek5000 stopped after $run_timeout s (--run-timeout)" >&2
[ -z "${GSR_NEK_RUNS:-}" ] || echo "$ranks $start $(date +%s.%N) $status" >>"$GSR_NEK_RUNS"
exit $status
EOF
  } >"$work/bin/mpiexec"
  chmod +x "$work/bin/mpiexec"
  export PATH=$work/bin:$PATH
}

# nek_env <build> <P>: the environment NekTests and makenek read.
nek_env() {
  export NEK_SOURCE_ROOT=$work/$1/Nek5000 FC=$fc CC=$cc PARALLEL_PROCS=$2 VERBOSE_TESTS=false
  if [ "$1" = gsr ]; then export USR_LFLAGS=$gsr_lflags; else unset USR_LFLAGS; fi
}

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b - a }'; }

# --- test mode ------------------------------------------------------------------------------

# plan: "target P" for each target and rank count, in the order both builds run them.
plan=()
for t in "${targets[@]}"; do
  if [[ ${t#*.} == *Serial* ]]; then plan+=("$t 1"); else for p in "${np_values[@]}"; do plan+=("$t $p"); done; fi
done

# run_target <build> <target> <P>: one NekTests target; keeps its output, the logs it wrote
# and nm of the executables it linked under $results/<build>/<target>_np<P>.*
run_target() {
  local build=$1 target=$2 np=$3 tree=$work/$1/Nek5000
  local base=$results/$build/${target}_np$np status=0 start exe case_dir
  safe_dirs_remove "$work" "$base".*; mkdir -p "$base.logs"
  touch "$base.stamp"
  start=$(now)
  (cd "$tree/short_tests" && nek_env "$build" "$np" && GSR_NEK_RUNS=$base.runs \
     exec "$python" -m unittest -v "NekTests.$target") >"$base.out" 2>&1 || status=$?
  echo "$status $(seconds "$start" "$(now)")" >"$base.status"
  find "$tree/short_tests" -type f -name '*.log.*' -newer "$base.stamp" -exec cp {} "$base.logs/" \;
  find "$tree/short_tests" -type f -name nek5000 -newer "$base.stamp" | while IFS= read -r exe; do
    case_dir=$(basename "$(dirname "$exe")")
    nm "$exe" >"$base.$case_dir.nm" 2>&1 || true
    echo "$exe" >>"$base.exes"
  done
  say "[$build] $target P=$np: exit $status, $(cut -d' ' -f2 "$base.status") s"
}

run_stream() {
  local job target np
  for job in "${plan[@]}"; do
    read -r target np <<<"$job"
    run_target "$1" "$target" "$np"
  done
}

# The checks, after both builds ran their targets: each adds what failed to failures; the
# summary table shows verdict_of and lines_of.
declare -A verdict_of lines_of
gs_o_check=FAIL bindings_check=FAIL
failures=()
fail() { failures+=("$*"); }

check_verdicts() {
  local build job target np base report status
  for build in stock gsr; do
    for job in "${plan[@]}"; do
      read -r target np <<<"$job"
      base=$results/$build/${target}_np$np
      if [ ! -f "$base.out" ]; then verdict_of[$build:$job]=missing; fail "$build $target P=$np: did not run"; continue; fi
      status=$(cut -d' ' -f1 "$base.status" 2>/dev/null || echo none)
      if report=$("$python" "$here/nek5000_compare.py" verdict "$base.out") && [ "$status" = 0 ]; then
        verdict_of[$build:$job]=ok
      elif [ "${report%%:*}" != FAIL ]; then
        verdict_of[$build:$job]=FAIL
        fail "$build $target P=$np: NekTests exited with status $status (see $base.out)"
      else
        verdict_of[$build:$job]=FAIL
        fail "$build $target P=$np: NekTests: ${report#FAIL: } (see $base.out)"
      fi
      if awk '$4 == 124 { found = 1 } END { exit !found }' "$base.runs" 2>/dev/null; then
        fail "$build $target P=$np: a Nek5000 run did not end within $run_timeout s and was stopped"
      fi
      say "verdict $build $target P=$np: $report"
    done
  done
}

check_same_results() {
  local job target np stock_logs log name report total count
  for job in "${plan[@]}"; do
    read -r target np <<<"$job"
    stock_logs=$results/stock/${target}_np$np.logs
    total=0; count=0
    for log in "$stock_logs"/*; do
      [ -f "$log" ] || continue
      name=$(basename "$log")
      count=$((count + 1))
      if [ ! -f "$results/gsr/${target}_np$np.logs/$name" ]; then
        fail "$target P=$np: the gsr build wrote no $name"; continue
      fi
      if report=$("$python" "$here/nek5000_compare.py" compare "$log" "$results/gsr/${target}_np$np.logs/$name"); then
        total=$((total + ${report%% *}))
      else
        fail "$target P=$np: gsr's $name differs from stock's: ${report#FAIL: }"
      fi
      say "compare $target P=$np $name: $report"
    done
    [ "$count" -gt 0 ] || fail "$target P=$np: stock wrote no Nek5000 log to compare"
    [ "$count" -eq 0 ] || [ "$total" -gt 0 ] || fail "$target P=$np: no checked lines compared"
    lines_of[$job]=$total
  done
}

check_no_gs_o() {
  local libgs stock_nm gsr_nms=() f report
  libgs=$work/stock/Nek5000/3rd_party/gslib/lib/libgs.a
  [ -f "$libgs" ] || libgs=$work/gsr/Nek5000/3rd_party/gslib/lib/libgs.a
  if [ ! -f "$libgs" ]; then fail "gs.o check: no libgs.a was built"; return; fi
  nm -A "$libgs" >"$results/libgs.nm" 2>/dev/null
  stock_nm=$(find "$results/stock" -name '*.nm' | sort | head -n 1)
  while IFS= read -r f; do gsr_nms+=("$f"); done < <(find "$results/gsr" -name '*.nm' | sort)
  if [ -z "$stock_nm" ] || [ ${#gsr_nms[@]} -eq 0 ]; then fail "gs.o check: no executables were linked"; return; fi
  if report=$("$python" "$here/nek5000_compare.py" gs-absent "$results/libgs.nm" "$stock_nm" "${gsr_nms[@]}"); then
    gs_o_check=ok
  else
    fail "gslib's gs.o is linked into $(grep -c '^FAIL' <<<"$report") of ${#gsr_nms[@]} gsr executables (nm; see 'gs.o:' above)"
  fi
  sed 's/^/nek5000: gs.o: /' <<<"$report"
}

# One short run (3 steps) of the gsr build's last executable at the largest P, with the
# dynamic loader's bindings written to files of their own, of which only the gather-scatter
# and crystal symbols are read.
check_bindings() {
  local exe="" dir case_name np=1 p job target report lines
  for job in "${plan[@]}"; do
    read -r target p <<<"$job"
    [ ! -f "$results/gsr/${target}_np$p.exes" ] || exe=$(tail -n 1 "$results/gsr/${target}_np$p.exes")
  done
  if [ -z "$exe" ] || [ ! -x "$exe" ]; then fail "bindings check: no gsr executable to run"; return; fi
  for p in "${np_values[@]}"; do [ "$p" -gt "$np" ] && [ "$p" -le "$cores" ] && np=$p; done
  dir=$results/bindings
  safe_dirs_remove "$work" "$dir"; mkdir -p "$dir/case"
  (cd "$(dirname "$exe")" && tar --exclude=./obj --exclude='*.f[0-9][0-9][0-9][0-9][0-9]' \
     --exclude='*.log.*' -cf - .) | tar -C "$dir/case" -xf -
  case_name=$(sed -n 2p "$dir/case/SESSION.NAME")
  printf '1\n%s\n%s/\n' "$case_name" "$dir/case" >"$dir/case/SESSION.NAME"
  echo "-3" >"$dir/case/ioinfo"
  (cd "$dir/case" && timeout -k 10 "$run_timeout" "${launcher[@]}" -np "$np" \
     env LD_DEBUG=bindings LD_DEBUG_OUTPUT="$dir/ld" ./nek5000) \
    >"$dir/run.log" 2>&1 || fail "bindings check: the run of $case_name at P=$np failed (see $dir/run.log)"
  if ! compgen -G "$dir/ld.*" >/dev/null; then
    fail "bindings check: the dynamic loader wrote nothing to $dir/ld.* (see $dir/run.log)"; return
  fi
  lines=$(cat "$dir"/ld.* | wc -l)
  if report=$("$python" "$here/nek5000_compare.py" bindings "$gsr_libdir" "$dir"/ld.* 2>&1); then
    bindings_check=ok
    rm -f "$dir"/ld.*
  else
    fail "gather-scatter calls of the gsr build do not all bind to gsr at run time (LD_DEBUG): $(grep -o '^FAIL: [^ ]*' <<<"$report" | sed 's/^FAIL: //' | paste -sd' ' -) (see 'bindings' above; $dir/ld.*)"
  fi
  sed "s/^/nek5000: bindings ($case_name, P=$np, 3 steps, $lines loader lines): /" <<<"$report"
}

summary() {
  local job target np build base status secs run_s
  echo
  printf '%-34s %2s  %-5s  %-7s  %14s  %7s  %9s\n' test P build verdict "lines compared" seconds "nek run s"
  for job in "${plan[@]}"; do
    read -r target np <<<"$job"
    for build in stock gsr; do
      base=$results/$build/${target}_np$np
      read -r status secs 2>/dev/null <"$base.status" || secs=-
      run_s=$(awk '{ s += $3 - $2 } END { if (NR) printf "%.0f", s; else print "-" }' "$base.runs" 2>/dev/null || echo -)
      printf '%-34s %2s  %-5s  %-7s  %14s  %7s  %9s\n' "$target" "$np" "$build" "${verdict_of[$build:$job]:-?}" \
        "${lines_of[$job]:-0}" "$secs" "$run_s"
    done
  done
  echo "gslib's gs.o absent from the gsr build's executables (nm): $gs_o_check"
  echo "gather-scatter and crystal calls bound to gsr's libraries at run time (LD_DEBUG): $bindings_check"
}

test_mode() {
  local start=$SECONDS build pids=() pid
  say "work folder $work; NekTests targets: $(printf '%s, ' "${plan[@]/ / P=}" | sed 's/, $//')"
  unpack_nek; gslib_tarball; find_gsr
  safe_dirs_remove "$work" "$results"; mkdir -p "$results"
  make_tree stock; make_tree gsr
  write_mpiexec
  if [ "$sequential" = 1 ]; then
    run_stream stock; run_stream gsr
  else
    for build in stock gsr; do run_stream "$build" & pids+=($!); done
    for pid in "${pids[@]}"; do wait "$pid" || fail "a test stream stopped early (see $results)"; done
  fi
  check_verdicts
  check_same_results
  check_no_gs_o
  check_bindings
  summary
  echo
  echo "total: $((SECONDS - start)) s; logs and outputs in $results"
  if [ ${#failures[@]} -gt 0 ]; then
    echo "nek5000: FAILED checks:"
    printf '  - %s\n' "${failures[@]}"
    exit 1
  fi
  echo "nek5000: all checks passed"
}

# --- timing mode ----------------------------------------------------------------------------

# set_size <SIZE file> name=value...: as NekTests' config_size, on core/SIZE.template.
set_size() {
  local file=$1 kv; shift
  for kv in "$@"; do sed -i -E "s/(parameter *\( *${kv%%=*} *= *)[^,)]+/\1${kv#*=}/I" "$file"; done
}

# timing_cases <build>: two case folders, built once, both running Ethier's exact flow with
# its .usr (which reads ethier.his, so both cases are named ethier): box/, a genbox cube of
# 8x8x8 elements for 20 steps with the XXT coarse solver (Ethier's AMG files fit its own
# mesh only), and ethier/, the case as NekTests runs it (32 elements, 1000 steps). With
# --sync, both .usr files set IFSYNC in usrdat (a .par case cannot; Nek5000 reads the
# parameters before it calls usrdat).
timing_cases() {
  local build=$1 tree=$work/$1/Nek5000 short=$work/$1/Nek5000/short_tests/ethier dir
  local usr=$short/ethier.usr
  if [ "$sync" = 1 ]; then
    usr=$work/$1/ethier-sync.usr
    sed '/subroutine usrdat()/,/^      return/ s/^      return$/      ifsync = .true.\n      return/' \
      "$short/ethier.usr" >"$usr"
    grep -q '^      ifsync = .true.$' "$usr" || die "could not set IFSYNC in $short/ethier.usr's usrdat"
  fi
  dir=$tree/timing/ethier
  mkdir -p "$dir"
  cp "$short/"ethier.{par,re2,his} "$short/"ethier.amg*.dat "$dir/"
  cp "$usr" "$dir/ethier.usr"
  cp "$tree/core/SIZE.template" "$dir/SIZE"
  set_size "$dir/SIZE" ldim=3 lx1=8 lxd=12 lx2=lx1-2 lelg=32 lhis=1000
  dir=$tree/timing/box
  mkdir -p "$dir"
  cat >"$dir/box.box" <<'EOF'
-3                     spatial dimension (negative: write box.re2)
1                      number of fields
#
#  Ethier's cube [-1,1]^3 in 8x8x8 elements, for timing gather-scatter (scripts/nek5000.sh)
#
Box
-8  -8  -8                                          nelx,nely,nelz for Box
-1 1 1.                                             x0,x1,ratio
-1 1 1.                                             y0,y1,ratio
-1 1 1.                                             z0,z1,ratio
v  ,v  ,v  ,v  ,v  ,v                               bc's  (3 chars each!)
EOF
  cp "$short/ethier.his" "$dir/"
  cp "$usr" "$dir/ethier.usr"
  sed -e 's/^numSteps *=.*/numSteps = 20/' -e 's/^preconditioner *=.*/preconditioner = semg_xxt/' \
      "$short/ethier.par" >"$dir/ethier.par"
  cp "$tree/core/SIZE.template" "$dir/SIZE"
  set_size "$dir/SIZE" ldim=3 lx1=8 lxd=12 lx2=lx1-2 lelg=512 lhis=1000
  (
    nek_env "$build" 2
    cd "$tree/tools" && bin_nek_tools=$tree/bin ./maketools genbox genmap >"$tree/timing/tools.log" 2>&1
    cd "$tree/timing/box" && echo box.box | "$tree/bin/genbox" >genbox.out 2>&1 && mv box.re2 ethier.re2
    for c in box ethier; do
      cd "$tree/timing/$c"
      printf 'ethier\n0.5\n' | "$tree/bin/genmap" >genmap.out 2>&1
      "$tree/bin/makenek" ethier >build.out 2>&1 && [ -x nek5000 ] ||
        { echo "nek5000: ERROR: building $build's $c failed (see $tree/timing/$c/build.out)" >&2; exit 1; }
      nm nek5000 >"$results/$build/timing_$c.nm"
    done
  ) || die "the $build timing cases did not build (see $tree/timing)"
  say "[$build] timing cases built"
}

timing_mode() {
  local n=$timing_runs start=$SECONDS build c i pids=() pid order
  [ "$n" -ge 8 ] || say "note: $n runs each; use --timing 8 or more for a measurement"
  say "timing: work folder $work, $n runs per build and case at P = 2$([ "$sync" = 1 ] && echo ', IFSYNC on')"
  unpack_nek; gslib_tarball; find_gsr
  safe_dirs_remove "$work" "$results"; mkdir -p "$results/stock" "$results/gsr" "$results/timing"
  make_tree stock; make_tree gsr
  for build in stock gsr; do timing_cases "$build" & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid" || die "building the timing cases failed"; done
  if ! report=$("$python" "$here/nek5000_compare.py" gs-absent <(nm -A "$work/stock/Nek5000/3rd_party/gslib/lib/libgs.a" 2>/dev/null) \
       "$results/stock/timing_box.nm" "$results/gsr/timing_box.nm" "$results/gsr/timing_ethier.nm"); then
    fail "the gsr build contains gslib's gs.o: its times are gslib's"
  fi
  sed 's/^/nek5000: gs.o: /' <<<"$report"
  for ((i = 1; i <= n; i++)); do
    # Alternate which build goes first, so a drift of the machine weighs on both alike.
    if ((i % 2)); then order="stock gsr"; else order="gsr stock"; fi
    for c in box ethier; do
      for build in $order; do
        local dir=$work/$build/Nek5000/timing/$c
        printf '1\nethier\n%s/\n' "$dir" >"$dir/SESSION.NAME"
        rm -f "$dir/ioinfo"
        (cd "$dir" && timeout -k 10 "$run_timeout" "${launcher[@]}" -np 2 ./nek5000) \
          >"$results/timing/$c.$build.$i.log" 2>&1 ||
          fail "timing run $i of $build $c failed (see $results/timing/$c.$build.$i.log)"
      done
    done
    say "timing: round $i of $n done"
  done
  echo
  "$python" "$here/nek5000_compare.py" timing "$results/timing/"*.log || fail "timers missing from some logs"
  echo "(dsum, vdss: seconds in Nek5000's dssum and vec_dssum over the run, rank 0;"
  echo " step: time/timestep; solver: total solver time w/o IO; medians of $n runs each)"
  echo "total: $((SECONDS - start)) s; logs in $results/timing"
  if [ ${#failures[@]} -gt 0 ]; then
    echo "nek5000: FAILED checks:"
    printf '  - %s\n' "${failures[@]}"
    exit 1
  fi
}

if [ "$timing_given" = 1 ]; then timing_mode; else test_mode; fi
