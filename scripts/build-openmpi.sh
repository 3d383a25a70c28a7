#!/usr/bin/env bash
# Builds gsr against Open MPI (Debian's libopenmpi-dev) in its own folder and runs the test
# suite at P <= 2, while the machine's default MPI stays MPICH.
#
# Debian registers Open MPI's wrappers with a higher priority than MPICH's in the `mpi`,
# `mpirun` and related alternatives, so installing it in "auto" mode would switch every
# plain `mpicc`/`mpiexec` on the machine to Open MPI. Before installing, this script pins
# each of those alternatives to its current value (manual mode), installs, puts back any
# value the install changed, and fails if `mpicc` or `mpiexec` no longer lead to MPICH.
# The build names Open MPI's wrappers explicitly and never uses the alternatives.
#
#   bash scripts/build-openmpi.sh [extra ctest arguments]
#   GSR_OPENMPI_BUILD_DIR=<dir>   build folder (default: ${TMPDIR:-/tmp}/gsr-build-openmpi, outside
#                                 the source tree, whose top level keeps the agreed layout)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
# The build folder: never /, the home folder, the checkout or a folder holding them
# (scripts/lib/safe-dirs.sh), as it may be emptied below; checked before anything is installed.
build=${GSR_OPENMPI_BUILD_DIR:-${TMPDIR:-/tmp}/gsr-build-openmpi}
. scripts/lib/safe-dirs.sh
safe_dirs_init build-openmpi "$PWD" 2
safe_dirs_check "$(safe_dirs_resolve "$build")" "the build folder (GSR_OPENMPI_BUILD_DIR)"

packages=(libopenmpi-dev openmpi-bin libhdf5-openmpi-dev)
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
groups=(mpi mpirun "mpi-$arch" h5pcc hdf5.pc)

alternative_value() { { update-alternatives --query "$1" 2>/dev/null || true; } | awk '/^Value:/ { print $2 }'; }

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "build-openmpi: must run as root to install ${missing[*]} (or install them yourself)" >&2
    exit 1
  fi
  declare -A before
  for g in "${groups[@]}"; do
    value=$(alternative_value "$g")
    [ -n "$value" ] || continue
    before[$g]=$value
    update-alternatives --set "$g" "$value" >/dev/null
  done
  echo "build-openmpi: installing ${missing[*]} (alternatives pinned: ${!before[*]})"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" || {
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; }
  for g in "${!before[@]}"; do
    if [ "$(alternative_value "$g")" != "${before[$g]}" ]; then
      echo "build-openmpi: the install moved alternative $g; restoring ${before[$g]}"
      update-alternatives --set "$g" "${before[$g]}"
    fi
  done
fi

# The machine's plain wrappers must still be MPICH's, whether or not anything was installed.
for g in mpi mpirun; do
  value=$(alternative_value "$g")
  case "$value" in
    *mpich*|*hydra*) ;;
    *) echo "build-openmpi: ERROR: alternative '$g' is '$value', not MPICH." \
            "Run: update-alternatives --set $g <its .mpich entry>" >&2
       exit 1 ;;
  esac
done
for tool in mpicc mpiexec; do
  target=$(readlink -f "$(command -v "$tool")")
  case "$target" in
    *mpich*|*hydra*) ;;
    *) echo "build-openmpi: ERROR: '$tool' leads to $target, not MPICH" >&2; exit 1 ;;
  esac
done
echo "build-openmpi: mpicc and mpiexec still lead to MPICH"

# Open MPI refuses to run as root and to start more ranks than cores unless told; the
# variables reach every mpiexec the tests start, including those inside test scripts.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# When a rank exits with an error, Open MPI's mpiexec (4.1) ends the job: it sends the other
# ranks SIGCONT, SIGTERM and SIGKILL, waiting this many seconds (default 1) before each of
# the last two. The tests that expect exit codes 1 and 2 (the bad-file corpus alone has about
# 40) spent a minute waiting. gsr's ranks agree on an error and report it before they end,
# so the ranks left have nothing more to say.
export OMPI_MCA_odls_base_sigkill_timeout=0

jobs=$(nproc 2>/dev/null || echo 2)
# The folder lives outside the tree, so it may hold a build of another checkout (CMake
# refuses to reuse it for this one): the default folder is this script's own and is
# emptied then; a folder given by GSR_OPENMPI_BUILD_DIR only loses its configuration.
if [ -f "$build/CMakeCache.txt" ] && ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$PWD" "$build/CMakeCache.txt"; then
  echo "build-openmpi: $build was configured for another source tree; building it afresh"
  if [ -z "${GSR_OPENMPI_BUILD_DIR:-}" ]; then rm -rf "$build"; else rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"; fi
fi
# For a new folder, as scripts/build.sh says (which installs ninja-build; this script may run
# without it).
if command -v ninja >/dev/null; then export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}; fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" \
  -DMPI_C_COMPILER=/usr/bin/mpicc.openmpi \
  -DMPI_CXX_COMPILER=/usr/bin/mpicxx.openmpi \
  -DMPI_Fortran_COMPILER=/usr/bin/mpif90.openmpi \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi \
  -DMPIEXEC_PREFLAGS=--oversubscribe \
  -DHDF5_C_COMPILER_EXECUTABLE=/usr/bin/h5pcc.openmpi
cmake --build "$build" -j "$jobs"
built=$SECONDS

# Tests at P = 1 and 2 (and those that start no ranks): every test labelled np3, np4, ...
# or named *_np3, *_np4, ... is left out. So are the mesh-file fuzz shards (label fuzz): each
# starts gsr-check about 156 times, and Open MPI's mpiexec takes about 0.4 s to start (MPICH's
# a twentieth), which would double this stage's time; they test the file reader,
# which the MPICH suite covers. The memcheck tests (label valgrind) are left out too: their
# suppressions are MPICH's, and valgrind reports Open MPI's own start-up allocations. So is
# the Nek5000 client test (label client), which the MPICH build runs, and the second build
# without HDF5 (label without_hdf5, a minute of compiling), which needs no second MPI to show
# that libgsr builds and works without HDF5.
ctest --test-dir "$build" --output-on-failure -j "$jobs" \
  -LE '^(np([3-9]|[1-9][0-9]+)|fuzz|valgrind|client|without_hdf5)$' -E '_np([3-9]|[1-9][0-9]+)(_|$)' "$@"
echo "build-openmpi: build $((built - start)) s, tests $((SECONDS - built)) s, total $((SECONDS - start)) s"
