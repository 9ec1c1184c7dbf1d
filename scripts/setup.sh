#!/usr/bin/env bash
# Installs what shardc needs (Debian packages, by name), then configures and
# builds it with CMake + Ninja in ./build. Idempotent: quick when everything
# is already there. Sourced by run-example.sh and test.sh; may be run alone.
set -euo pipefail

SHARDC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARDC_BUILD=${SHARDC_BUILD:-$SHARDC_ROOT/build}
export SHARDC_ROOT SHARDC_BUILD

packages=(
  cmake ninja-build g++ ccache python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libopenmpi-dev openmpi-bin
  nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  coinor-libcbc-dev coinor-libclp-dev pkg-config libmimalloc-dev
  python3-dev pybind11-dev python3-pytest python3-numpy python3-mpi4py
  python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "== shardc: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
fi

jobs=${SHARDC_JOBS:-$(nproc)}
if [ ! -f "$SHARDC_BUILD/build.ninja" ]; then
  echo "== shardc: configuring in $SHARDC_BUILD"
  # The Python module is built for Debian's python3, whose pytest, NumPy and
  # mpi4py the packages above install (not another python3 on the PATH).
  python=()
  [ -x /usr/bin/python3 ] && python=(-DPython3_EXECUTABLE=/usr/bin/python3)
  cmake -G Ninja -S "$SHARDC_ROOT" -B "$SHARDC_BUILD" -DCMAKE_BUILD_TYPE=Release \
    "${python[@]}"
fi
echo "== shardc: building (ninja -j$jobs)"
ninja -C "$SHARDC_BUILD" -j"$jobs"
