#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer and UndefinedBehaviorSanitizer, in
# ./build-sanitize (or $GSR_SANITIZE_BUILD_DIR): any memory error, leak outside MPICH/HDF5
# (tests/sanitize/lsan.supp) or undefined behaviour fails its test. Arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
export GSR_BUILD_DIR=${GSR_SANITIZE_BUILD_DIR:-build-sanitize}
export GSR_SANITIZE=${GSR_SANITIZE:-address;undefined}
bash scripts/run-tests.sh "$@"
