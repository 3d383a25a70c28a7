#!/usr/bin/env bash
# Regenerates the reference files of this folder: Nek5000's own global GLL numbering and
# node coordinates of a few meshes, which gsr's mesh import is tested against ("two nodes
# share a gsr id exactly when they share a Nek5000 id").
#
#   bash tests/import/nek_reference/make_reference.sh CLIENTS_DIR WORK_DIR [OUT_DIR]
#
# CLIENTS_DIR holds Nek5000-<commit>.tar.gz and gslib-<version>.tar.gz (/work/shared/clients);
# WORK_DIR is a scratch folder (new, empty, or one this script marked before: see
# scripts/lib/safe-dirs.sh); OUT_DIR gets the files (default WORK_DIR/out; give this folder
# to update the shipped files). Steps: unpack Nek5000 with gslib in 3rd_party/gslib (offline
# build); build genbox and genmap; write pbox.re2 from pbox.box with genbox; per case, run
# genmap (tolerance as NekTests.py) for CASE.ma2, then Nek5000 (lx1 = 4, built once per ldim
# with nekref.usr, whose usrdat2 calls set_vert(..., .true.) and writes ids and xm1/ym1/zm1
# per rank) at np = 1 for the reference, and at each rank count of NP_LIST (environment,
# default "2 3") to check that the groupings do not depend on the rank count; then
# nek_reference.py merges and checks (equal ids <=> equal coordinates modulo the periods).
# Compilers: FC, CC (default mpif77.mpich, mpicc.mpich), MPIEXEC (default mpiexec.mpich).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
. "$repo/scripts/lib/safe-dirs.sh"
safe_dirs_init make_reference "$repo" 2
die() { echo "make_reference: ERROR: $*" >&2; exit 2; }
say() { echo "make_reference: $*"; }

[ $# -ge 2 ] && [ $# -le 3 ] || die "usage: make_reference.sh CLIENTS_DIR WORK_DIR [OUT_DIR]"
clients=$(realpath -- "$1")
work=$(safe_dirs_resolve "$2")
out=$(safe_dirs_resolve "${3:-$work/out}")
fc=${FC:-mpif77.mpich}
cc=${CC:-mpicc.mpich}
read -r -a mpiexec <<<"${MPIEXEC:-mpiexec.mpich}"
read -r -a np_list <<<"${NP_LIST:-2 3}"
python=/usr/bin/python3
lx1=4

nek_tar=$(find "$clients" -maxdepth 1 -name 'Nek5000-*.tar.gz' | sort | head -n 1)
gslib_tar=$(find "$clients" -maxdepth 1 -name 'gslib-*.tar.gz' | sort | head -n 1)
[ -n "$nek_tar" ] || die "no Nek5000-*.tar.gz in $clients"
[ -n "$gslib_tar" ] || die "no gslib-*.tar.gz in $clients"
nek_commit=$(basename "$nek_tar" .tar.gz); nek_commit=${nek_commit#Nek5000-}
for tool in "$fc" "$cc" "${mpiexec[0]}" "$python" tar make; do
  command -v "$tool" >/dev/null 2>&1 || die "'$tool' not found"
done
for p in "${np_list[@]}"; do [[ $p =~ ^[1-9][0-9]?$ ]] || die "NP_LIST wants rank counts like '2 3', not '$p'"; done

safe_dirs_check "$work" WORK_DIR
case $work/ in "$repo"/*) die "WORK_DIR $work is inside the checkout $repo; use a scratch folder" ;; esac
safe_dirs_make_work "$work" WORK_DIR
safe_dirs_remove "$work" "$work/Nek5000" "$work/build2" "$work/build3" "$work/cases"
[ "$out" != "$work/out" ] || safe_dirs_remove "$work" "$out"
mkdir -p "$out"
start=$SECONDS

# --- Nek5000 and its tools --------------------------------------------------------------------
say "unpacking $(basename "$nek_tar") into $work"
tar -xzf "$nek_tar" -C "$work"
nek=$work/Nek5000
[ -x "$nek/bin/makenek" ] || die "$nek_tar did not unpack to Nek5000/"
gslib_ver=$(sed -n 's/^: \${VER:="\([^"]*\)"}.*/\1/p' "$nek/3rd_party/gslib/install" | head -n 1)
[ -n "$gslib_ver" ] || die "cannot read the gslib version from Nek5000's 3rd_party/gslib/install"
cp "$gslib_tar" "$nek/3rd_party/gslib/v$gslib_ver.tar.gz"
unset USR_LFLAGS PPLIST FFLAGS CFLAGS NEK_DEPS_LOCAL_SRC
(cd "$nek/tools" && FC=$fc CC=$cc bin_nek_tools=$nek/bin ./maketools genbox genmap >"$work/tools.log" 2>&1) ||
  die "building genbox and genmap failed (see $work/tools.log)"

# set_size FILE name=value...: as NekTests' config_size, on core/SIZE.template.
set_size() {
  local file=$1 kv; shift
  for kv in "$@"; do sed -i -E "s/(parameter *\( *${kv%%=*} *= *)[^,)]+/\1${kv#*=}/I" "$file"; done
}
for d in 2 3; do
  mkdir -p "$work/build$d"
  cp "$here/nekref.usr" "$work/build$d/"
  cp "$nek/core/SIZE.template" "$work/build$d/SIZE"
  set_size "$work/build$d/SIZE" ldim=$d lx1=$lx1 lxd=6 lx2=lx1 lelg=200
  say "building Nek5000 (ldim = $d, lx1 = $lx1)"
  (cd "$work/build$d" && NEK_SOURCE_ROOT=$nek FC=$fc CC=$cc "$nek/bin/makenek" nekref >build.log 2>&1) &&
    [ -x "$work/build$d/nek5000" ] || die "building Nek5000 failed (see $work/build$d/build.log)"
done

# --- the cases --------------------------------------------------------------------------------
# name | mesh (in the Nek5000 tree, or pbox: genbox from pbox.box) | ldim | genmap tolerance
# (NekTests.py's) | periodic axes
cases=(
  "ethier|short_tests/ethier/ethier.re2|3|0.5|"
  "lpm_one|short_tests/lpm_one/uniform.re2|3|0.01|"
  "double_shear|short_tests/double_shear/double_shear.re2|2|0.5|xy"
  "lowMach_test|short_tests/lowMach_test/lowMach_test.re2|2|0.5|y"
  "pbox|pbox.box|3|0.5|xz"
)

# run_nek DIR NAME LDIM NP: Nek5000 on DIR/NAME.re2 and .ma2, stopped in usrdat2.
run_nek() {
  local dir=$1 name=$2 d=$3 np=$4
  cat >"$dir/$name.par" <<'EOF'
# tests/import/nek_reference: only the mesh is read; nekref.usr stops the run in usrdat2.
[GENERAL]
numSteps = 0
dt = 1e-3
writeInterval = 0

[PROBLEMTYPE]
equation = incompNS

[PRESSURE]
residualTol = 1e-8

[VELOCITY]
residualTol = 1e-8
density = 1
viscosity = 1
EOF
  printf '1\n%s\n%s/\n' "$name" "$dir" >"$dir/SESSION.NAME"
  (cd "$dir" && timeout -k 10 300 "${mpiexec[@]}" -np "$np" "$work/build$d/nek5000" >run.log 2>&1) &&
    grep -q 'nekref: wrote ids and xyz' "$dir/run.log" || die "Nek5000 on $name at np = $np failed (see $dir/run.log)"
}

failed=0
for c in "${cases[@]}"; do
  IFS='|' read -r name mesh d tol periodic <<<"$c"
  dir=$work/cases/$name
  mkdir -p "$dir"
  if [ "$mesh" = pbox.box ]; then
    cp "$here/pbox.box" "$dir/"
    (cd "$dir" && echo pbox.box | "$nek/bin/genbox" >genbox.log 2>&1 && mv box.re2 pbox.re2) ||
      die "genbox failed (see $dir/genbox.log)"
    source="pbox.re2 (genbox, from pbox.box)"
  else
    cp "$nek/$mesh" "$dir/$name.re2"
    source="$mesh"
  fi
  (cd "$dir" && printf '%s\n%s\n' "$name" "$tol" | "$nek/bin/genmap" >genmap.log 2>&1) && [ -s "$dir/$name.ma2" ] ||
    die "genmap failed on $name (see $dir/genmap.log)"
  run_nek "$dir" "$name" "$d" 1
  "$python" "$here/nek_reference.py" merge "$dir" "$out/$name" "case=$name" "source=$source" \
    "nek5000=$nek_commit ($(basename "$nek_tar"))" \
    "made=tests/import/nek_reference/make_reference.sh: genmap (tolerance $tol) wrote $name.ma2; Nek5000 with nekref.usr (set_vert(glo_num,ngv,lx1,nelt,vertex,.true.) in usrdat2) at np = 1"
  cp "$dir/$name.ma2" "$out/"
  [ "$mesh" != pbox.box ] || cp "$dir/pbox.re2" "$out/"
  "$python" "$here/nek_reference.py" check "$out/$name" ${periodic:+--periodic "$periodic"} || failed=1
  for np in "${np_list[@]}"; do
    mkdir -p "$dir/np$np"
    cp "$dir/$name.re2" "$dir/$name.ma2" "$dir/np$np/"
    run_nek "$dir/np$np" "$name" "$d" "$np"
    "$python" "$here/nek_reference.py" same-groups "$out/$name" "$dir/np$np" || failed=1
  done
done

# --- against the shipped files ----------------------------------------------------------------
if [ "$out" != "$here" ]; then
  for f in "$out"/*; do
    b=$(basename "$f")
    if [ ! -e "$here/$b" ]; then say "$b: not shipped"
    elif cmp -s "$f" "$here/$b"; then say "$b: same as the shipped file"
    elif [[ $b == *.gz ]] && cmp -s <(gzip -dc "$f") <(gzip -dc "$here/$b"); then say "$b: same content as the shipped file"
    else say "$b: DIFFERS from the shipped file"; failed=1
    fi
  done
fi
say "done in $((SECONDS - start)) s; files in $out"
[ "$failed" = 0 ] || { echo "make_reference: some checks FAILED (see above)" >&2; exit 1; }
