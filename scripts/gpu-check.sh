#!/usr/bin/env bash
# The NCCL/CUDA path on a machine with a GPU. Builds the runtime and its
# tests with the NCCL backend (cmake, ninja, a C++ compiler, MPI,
# GoogleTest, CUDA and NCCL must be there; MLIR is not needed: only the
# runtime is built), runs the GPU unit tests (NcclBackend*, DeviceCopy*) in
# a world of one rank (NCCL refuses two ranks on one GPU), then the pack
# kernels against cudaMemcpyAsync (goal: 0.8 of its bandwidth for rows of
# contiguous elements).
#
# With no GPU listed by nvidia-smi there is nothing to prove: it says so and
# exits 0. With one listed, it fails, never skips: when the NCCL backend is
# not built (CUDA or NCCL not found), and when the CUDA runtime cannot start
# (a driver older than the toolkit, for example): the GPU tests run with
# SHARDC_REQUIRE_GPU=1, under which they fail instead of skipping.
#   SHARDC_GPU_BUILD  build folder (default ./build-gpu)
#   CUDA_ARCH         CMAKE_CUDA_ARCHITECTURES (default 90, H100/H200)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SHARDC_GPU_BUILD:-$root/build-gpu}
export PATH=/usr/local/cuda/bin:$PATH
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no GPU visible (nvidia-smi); nothing to check here"
  exit 0
fi
nvidia-smi -L
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cmake -G Ninja -S "$root" -B "$build" -DSHARDC_RUNTIME_ONLY=ON \
  -DCMAKE_BUILD_TYPE=Release -DSHARDC_ENABLE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" | tee "$log"
if ! grep -q "shardrt backends: mpi, nccl" "$log"; then
  echo "gpu-check: FAILED: the NCCL backend is not built:" >&2
  grep "shardrt backends" "$log" >&2 || true
  exit 1
fi
ninja -C "$build" shardrt-unit-tests shardrt-bench-pack

echo
echo "== gpu-check: GPU unit tests (world size 1; failing, not skipping, when"
echo "   the CUDA runtime cannot start)"
SHARDC_REQUIRE_GPU=1 "$build/bin/shardrt-unit-tests" \
  --gtest_filter='NcclBackend*:DeviceCopy*'
echo
echo "== gpu-check: the pack kernels against cudaMemcpyAsync"
"$build/bin/shardrt-bench-pack"
