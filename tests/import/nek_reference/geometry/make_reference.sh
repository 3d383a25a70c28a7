#!/bin/bash
# make_reference.sh [NEK5000_TARBALL] - regenerates m_hex.txt and c_quad.txt here: GLL nodes
# computed by Nek5000's own routines (from its source tarball) for the elements that
# tests/import/geometry_test.cpp (NekReference) builds. Needs gfortran. The routines are
# taken from the tarball, not copied here: gh_face_extend_3d, fd_weights_full, zwgll (and
# speclib.f around it), arcsrf's body, addtnsr and mod1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tarball=${1:-$here/../../../../../shared/clients/Nek5000-41d17942.tar.gz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work" Nek5000/core/navier5.f Nek5000/core/fast3d.f Nek5000/core/speclib.f \
  Nek5000/core/genxyz.f Nek5000/core/math.f
core=$work/Nek5000/core
routine() { sed -n "/^      $1/,/^      end *\$/p" "$2"; }
stub=$'      subroutine exitt\n      stop 1\n      end'
{
  cat "$here/genxyz_m.f"
  routine 'subroutine gh_face_extend_3d' "$core/navier5.f"
  routine 'subroutine fd_weights_full' "$core/fast3d.f"
  echo "$stub"
} >"$work/m.f"
{
  cat "$here/genxyz_c.f"
  # arcsrf from its first statement (its declarations are in genxyz_c.f, without 'include')
  routine 'subroutine arcsrf' "$core/genxyz.f" | sed -n '/^      PT1X  = XC(ISID,IE)/,$p'
  routine 'subroutine addtnsr' "$core/math.f"
  routine 'function mod1' "$core/math.f"
  echo "$stub"
} >"$work/c.f"
flags="-O0 -fdefault-real-8 -fdefault-double-8 -std=legacy -w"
gfortran $flags "$work/m.f" "$core/speclib.f" -o "$work/m"
gfortran $flags "$work/c.f" "$core/speclib.f" -o "$work/c"
"$work/m" >"$here/m_hex.txt"
"$work/c" >"$here/c_quad.txt"
echo "wrote $here/m_hex.txt ($(wc -l <"$here/m_hex.txt") nodes), $here/c_quad.txt ($(wc -l <"$here/c_quad.txt") nodes)"
