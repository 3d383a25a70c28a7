#!/usr/bin/env bash
# Quick start, second command: installs what is missing, builds, runs the whole test suite
# (unit tests and MPI tests at P = 1..7, 16 and 32 through mpiexec, each with a timeout).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
build=${GSR_BUILD_DIR:-build}
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
