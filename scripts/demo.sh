#!/usr/bin/env bash
# The README demo: solves a Poisson problem with spectral elements on 2 MPI ranks with
# gsr-poisson and reports iterations, error, time in gather-scatter and where the solution
# file is (open the .xmf in ParaView).
#
#   scripts/demo.sh [MESH.h5]
#
# Without a mesh argument it solves on the shipped meshes/demo_box2d.h5: a deformed 8 x 8
# box of order-8 elements (4225 nodes), so the picture shows curved elements. Assumes a build in ./build
# (override with GSR_BUILD_DIR); writes into $GSR_BUILD_DIR/demo. Takes about a second.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GSR_BUILD_DIR:-$repo/build}
[[ $build = /* ]] || build=$repo/$build
ranks=${GSR_DEMO_RANKS:-2}
solver=$build/examples/poisson/gsr-poisson
mpiexec=${MPIEXEC:-$(command -v mpiexec.mpich || command -v mpiexec)}

for program in "$solver"; do
  if [[ ! -x $program ]]; then
    echo "demo: $program is missing; build first: cmake -S . -B build && cmake --build build -j2" >&2
    exit 1
  fi
done

out=$build/demo
mkdir -p "$out"
if [[ $# -ge 1 ]]; then
  mesh=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
else
  # The shipped demo mesh (meshes/README.md gives the gsr-mesh command that made it).
  mesh=$repo/meshes/demo_box2d.h5
  echo "demo: mesh $mesh"
fi

solution=$out/$(basename "${mesh%.h5}")_solution.h5
echo "demo: solving -Laplace(u) = f on $ranks ranks"
echo "  \$ mpiexec -n $ranks gsr-poisson $mesh -o $solution"
"$mpiexec" -n "$ranks" "$solver" "$mesh" -o "$solution"
echo
echo "demo: done. View the solution in ParaView: paraview ${solution%.h5}.xmf"
echo "      (fields u, exact and error on the mesh's GLL nodes; docs/examples.md explains the solver)"
