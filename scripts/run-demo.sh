#!/usr/bin/env bash
# Quick start, first command: installs what is missing, builds, runs the main demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
bash scripts/demo.sh
