#!/usr/bin/env bash
# clang-tidy over gsr's sources (src/**/*.cpp) with the checks of .clang-tidy, which they
# keep clean: any finding fails. Needs a configured build folder with compile_commands.json
# (scripts/build.sh writes one in build/). About 3 minutes on 2 cores, so not in CI.
#
# usage: scripts/run-clang-tidy.sh [build folder = build] [files ...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[ -n "$tidy" ] || { echo "run-clang-tidy: clang-tidy is not installed (apt-get install clang-tidy)" >&2; exit 1; }
[ -f "$build/compile_commands.json" ] || {
  echo "run-clang-tidy: $build/compile_commands.json is missing; configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON" >&2
  exit 1
}
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(git ls-files 'src/*.cpp'); fi
jobs=$(nproc 2>/dev/null || echo 2)
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 4 "$tidy" -p "$build" --quiet 2>&1 |
  grep -v '^[0-9]* warnings generated' | tee "$build/clang-tidy.log" || true
if grep -q -E '(warning|error):' "$build/clang-tidy.log"; then
  echo "run-clang-tidy: findings above (also in $build/clang-tidy.log)" >&2
  exit 1
fi
echo "run-clang-tidy: ${#files[@]} files clean"
