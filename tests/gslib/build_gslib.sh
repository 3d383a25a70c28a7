#!/usr/bin/env bash
# Test fixture: builds gslib from its shipped source, as Nek5000's 3rd_party/gslib/install
# does (same make options), compiles its gs.c alone with and without the default prefixes
# (for check_exports.sh), and builds coarse_solver_calls.c against gslib's own headers,
# linked twice: gsr's libraries ahead of the pristine libgs.a (with a link map, for
# check_link.sh), and libgs.a alone.
#   build_gslib.sh GSLIB_TARBALL WORK_DIR MPI_C_COMPILER LIBGSR LIBGSR_FORTRAN SOURCE_DIR
# WORK_DIR is made and marked as this script's (scripts/lib/safe-dirs.sh); a folder that is not
# empty and not marked so, or that is or holds the checkout, /, or the home folder, is refused
# before anything is touched. On each run the script replaces only what it writes there.
set -euo pipefail
tarball=$1 work=$2 cc=$3 libgsr=$4 libgsr_fortran=$5 source=$6
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/safe-dirs.sh"
safe_dirs_init build_gslib "$(dirname "${BASH_SOURCE[0]}")/../.." 1
[ -f "$tarball" ] || { echo "build_gslib: no gslib source tarball at $tarball" >&2; exit 1; }
work=$(safe_dirs_resolve "$work")
safe_dirs_make_work "$work" WORK_DIR
safe_dirs_remove "$work" "$work/src" "$work/make.log" "$work/gs_prefixed.o" "$work/gs_plain.o" "$work/calls.o" \
  "$work/calls_gsr" "$work/calls_gslib" "$work/calls_gsr.map" "$work"/out_np*
mkdir -p "$work/src"
tar -xzf "$tarball" -C "$work/src" --strip-components=1 ||
  { echo "build_gslib: cannot unpack $tarball (a gslib source tarball, .tar.gz)" >&2; exit 1; }
gslib=$work/src
# gslib itself is built as Nek5000 builds it, whatever CFLAGS the environment has; the
# program below takes CFLAGS and LDFLAGS (a sanitized gsr build sets them, so the program
# loads the sanitizer runtime its libgsr needs).
env -u CFLAGS -u LDFLAGS make -C "$gslib" -j2 CC="$cc" MPI=1 ADDUS=1 USREXIT=0 BLAS=2 >"$work/make.log" 2>&1 ||
  { tail -20 "$work/make.log" >&2; echo "build_gslib: gslib's make failed (log: $work/make.log)" >&2; exit 1; }
lib=$gslib/build/lib include=$gslib/build/include
[ -f "$lib/libgs.a" ] || { echo "build_gslib: make left no $lib/libgs.a" >&2; exit 1; }

# gs.o as a gslib build with Nek5000's (the default) prefixes makes it, and without prefixes.
common=(-O2 -I"$gslib/src" -DGSLIB_USE_MPI -DGSLIB_UNDERSCORE -DGSLIB_USE_GLOBAL_LONG_LONG)
"$cc" "${common[@]}" -DGSLIB_PREFIX=gslib_ -DGSLIB_FPREFIX=fgslib_ -c "$gslib/src/gs.c" -o "$work/gs_prefixed.o"
"$cc" "${common[@]}" -c "$gslib/src/gs.c" -o "$work/gs_plain.o"

read -r -a cflags <<<"${CFLAGS:-}"
read -r -a ldflags <<<"${LDFLAGS:-}"
"$cc" -O2 -Wall "${cflags[@]}" -I"$include" -c "$source/coarse_solver_calls.c" -o "$work/calls.o"
gsr_dirs=$(dirname "$libgsr"):$(dirname "$libgsr_fortran")
# No --allow-multiple-definition: a definition gsr and a pulled gs.o both had would fail here.
"$cc" "${ldflags[@]}" -o "$work/calls_gsr" "$work/calls.o" "$libgsr_fortran" "$libgsr" -Wl,-rpath,"$gsr_dirs" \
  -L"$lib" -lgs -lm -Wl,-Map,"$work/calls_gsr.map"
"$cc" "${ldflags[@]}" -o "$work/calls_gslib" "$work/calls.o" -L"$lib" -lgs -lm
echo "build_gslib: gslib built in $gslib; calls_gsr and calls_gslib linked in $work"
