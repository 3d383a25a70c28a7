#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer and UndefinedBehaviorSanitizer, in
# ./build-sanitize (or $GSR_SANITIZE_BUILD_DIR): any memory error, leak outside MPICH/HDF5
# (tests/sanitize/lsan.supp) or undefined behaviour fails its test. Arguments go to ctest,
# after -LE '^(client|scale)$': the Nek5000 client test (tests/client) and the P = 16 and 32
# tests (tests/scale, about 70 s oversubscribed; they passed sanitized when written) run in
# the plain build only, to keep CI under its time limit.
#
# The mesh fuzzer mutates 500 files here too, but not the plain build's: cases 500 to 999
# (GSR_FUZZ_FIRST), where the plain build runs 0 to 499, so CI's two stages together check
# 1000 different damaged files, each once.
#
# Compiled with -O1 and line tables only (-g1) rather than RelWithDebInfo's -O2 -g: -O1 is
# what the sanitizers' authors advise, a report needs no more than functions, files and
# lines, and the build (which CI runs from scratch) takes about half as long.
# GSR_SANITIZE_FLAGS replaces them (e.g. "-O1 -g" to follow a report in gdb).
#
# The libraries, tools and examples build with -Werror here (GSR_WERROR): a new warning
# fails CI, while a user's default build only warns.
set -euo pipefail
cd "$(dirname "$0")/.."
export GSR_BUILD_DIR=${GSR_SANITIZE_BUILD_DIR:-build-sanitize}
export GSR_SANITIZE=${GSR_SANITIZE:-address;undefined}
export CMAKE_BUILD_TYPE=RelWithDebInfo  # the type whose flags are set here; build.sh keeps it
flags="${GSR_SANITIZE_FLAGS:--O1 -g1} -DNDEBUG"
bash scripts/install-deps.sh
export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}  # for a new folder, as scripts/build.sh says
cmake -S . -B "$GSR_BUILD_DIR" -DCMAKE_BUILD_TYPE="$CMAKE_BUILD_TYPE" -DGSR_SANITIZE="$GSR_SANITIZE" \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
      -DCMAKE_Fortran_FLAGS_RELWITHDEBINFO="$flags" -DGSR_FUZZ_CASES="${GSR_FUZZ_CASES:-500}" -DGSR_FUZZ_FIRST="${GSR_FUZZ_FIRST:-500}" -DGSR_WERROR=ON >/dev/null
bash scripts/run-tests.sh -LE '^(client|scale)$' "$@"
