#!/usr/bin/env bash
# The thread tests built with ThreadSanitizer, in ./build-tsan (or $GSR_TSAN_BUILD_DIR):
# tests/threads (C++), capi_threads (C from OpenMP threads) and fortran_threads (Fortran
# from OpenMP threads) at P = 2 and 4, which is where threads share gsr's state (the C and
# Fortran handle tables, the ledgers, the progress engine's per-thread lists). Any race
# TSan sees outside MPICH and UCX (tests/sanitize/tsan.supp) fails its test. Not part of
# CI (.ci/run), for its time: about 10 minutes to build, 1 to run. Arguments go to ctest,
# after -R (a different -R replaces the set).
#
# ThreadSanitizer sees only the synchronization it intercepts: not MPICH's and UCX's own,
# nor the end of an OpenMP region (libgomp is not built with TSan); tests/sanitize/tsan.supp
# leaves those out, and says why each line is there.
set -euo pipefail
cd "$(dirname "$0")/.."
export GSR_BUILD_DIR=${GSR_TSAN_BUILD_DIR:-build-tsan}
export GSR_SANITIZE=thread
export CMAKE_BUILD_TYPE=RelWithDebInfo
flags="${GSR_SANITIZE_FLAGS:--O1 -g1} -DNDEBUG"
bash scripts/install-deps.sh
export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}  # for a new folder, as scripts/build.sh says
cmake -S . -B "$GSR_BUILD_DIR" -DCMAKE_BUILD_TYPE="$CMAKE_BUILD_TYPE" -DGSR_SANITIZE=thread \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
      -DCMAKE_Fortran_FLAGS_RELWITHDEBINFO="$flags" >/dev/null
cmake --build "$GSR_BUILD_DIR" -j "$(nproc)"
ctest --test-dir "$GSR_BUILD_DIR" --output-on-failure -R 'threads' "$@"
