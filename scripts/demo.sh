#!/usr/bin/env bash
# The demo, on an existing build: the seed's two-element example through the C API on two
# ranks, printing Tables 1-4.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${GSR_BUILD_DIR:-build}
mpiexec -n 2 "$build/examples/gsr-two-element"
