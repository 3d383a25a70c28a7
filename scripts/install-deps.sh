#!/usr/bin/env bash
# Installs, from Debian's packages, whatever gsr needs to build and test that this
# machine lacks. Idempotent: a machine that already has everything is left alone.
set -euo pipefail

packages=(
  cmake ninja-build g++ gfortran make pkg-config clang-format
  mpich libmpich-dev libhdf5-mpich-dev hdf5-tools
  libeigen3-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  python3-matplotlib python3-meshio python3-h5py
  valgrind
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: must run as root to install packages (or install them yourself: ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
