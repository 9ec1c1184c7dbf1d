#!/usr/bin/env bash
# The NCCL/CUDA path on a machine with a GPU (world size 1: NCCL refuses two
# ranks on one GPU; multi-rank logic is proven on MPI by scripts/test.sh).
# Builds the runtime and its tests with the NCCL backend (cmake, ninja, a C++
# compiler, MPI, GoogleTest, CUDA and NCCL must be there; MLIR is not
# needed: only the runtime is built), runs the GPU unit tests (NcclBackend*,
# DeviceCopy*), one MPI rank of the MPI test and the overhead bench, then
# the pack kernels against cudaMemcpyAsync (goal: 0.8 of its bandwidth for
# rows of contiguous elements).
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
cmake -G Ninja -S "$root" -B "$build" -DSHARDC_RUNTIME_ONLY=ON \
  -DCMAKE_BUILD_TYPE=Release -DSHARDC_ENABLE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}"
ninja -C "$build" shardrt-unit-tests shardrt-mpi-test shardrt-bench-pack \
  shardrt-bench-overhead

echo
echo "== gpu-check: GPU unit tests (world size 1)"
"$build/bin/shardrt-unit-tests" --gtest_filter='NcclBackend*:DeviceCopy*'
echo
echo "== gpu-check: the pack kernels against cudaMemcpyAsync"
"$build/bin/shardrt-bench-pack"
