#!/usr/bin/env bash
# The NCCL/CUDA path on a machine with a GPU. Builds the runtime and its
# tests with the NCCL backend (cmake, ninja, a C++ compiler, MPI,
# GoogleTest, CUDA and NCCL must be there; MLIR is not needed: only the
# runtime is built), then:
#   1. the GPU unit tests (NcclBackend*, DeviceCopy*) in a world of one rank;
#   2. the MPI suite (MpiTest) and the named collectives (GroupTest) with
#      every buffer on the GPU, through the NCCL backend, on 2 and 4 ranks.
#      With fewer GPUs than ranks, ranks share a GPU, each with its own
#      NCCL_HOSTID (NCCL refuses two ranks of one host on one GPU); if NCCL
#      still refuses, it says so and runs them in a world of one rank;
#   3. the pack kernels against cudaMemcpyAsync (rows of 64 B, 256 B, 1 KiB,
#      4 KiB, 64 KiB; goal: 0.8 of its bandwidth);
#   4. the bus bandwidth of all_gather, reduce_scatter, all_reduce and
#      broadcast through shardrt against the raw NCCL calls, 1 MiB to 1 GiB
#      (goal: 0.95 of the raw call from 16 MiB), on every GPU (2 ranks
#      sharing one when there is one).
#
# With no GPU listed by nvidia-smi there is nothing to prove: it says so and
# exits 0. With one listed, it fails, never skips: when the NCCL backend is
# not built (CUDA or NCCL not found), when the CUDA runtime or NCCL cannot
# start (a driver older than the toolkit, for example: the GPU tests run
# with SHARDC_REQUIRE_GPU=1, under which they fail instead of skipping), and
# when any test fails.
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
ninja -C "$build" shardrt-unit-tests shardrt-gpu-mpi-test \
  shardrt-gpu-group-test shardrt-bench-pack shardrt-bench-collectives
gpus=$(nvidia-smi -L | grep -c '^GPU')
mpiexec_flags=()
if mpiexec --version 2>&1 | grep -q "Open MPI"; then
  mpiexec_flags=(--oversubscribe)
  [ "$(id -u)" = 0 ] && mpiexec_flags+=(--allow-run-as-root)
fi
# Runs `$2...` on $1 ranks, each with a host id of its own.
on_ranks() {
  local ranks=$1
  shift
  # shellcheck disable=SC2016 # expanded by each rank's shell
  mpiexec -n "$ranks" "${mpiexec_flags[@]}" bash -c \
    'export NCCL_HOSTID=shardc-gpu-check-${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}; exec "$@"' \
    bash "$@"
}

echo
echo "== gpu-check: GPU unit tests (world size 1; failing, not skipping, when"
echo "   the CUDA runtime cannot start)"
SHARDC_REQUIRE_GPU=1 "$build/bin/shardrt-unit-tests" \
  --gtest_filter='NcclBackend*:DeviceCopy*'

for ranks in 2 4; do
  for program in mpi group; do
    echo
    echo "== gpu-check: ${program} tests through the NCCL backend, $ranks ranks" \
      "on $gpus GPU(s)"
    out=$build/gpu-check-$program-np$ranks.log
    if on_ranks "$ranks" "$build/bin/shardrt-gpu-$program-test" 2>&1 |
      tee "$out"; then
      status=0
    else
      status=1
    fi
    if grep -q "MISMATCH\|FAILED" "$out"; then
      status=1
    fi
    if [ "$status" != 0 ] && grep -q "Duplicate GPU" "$out"; then
      echo "gpu-check: NCCL refuses $ranks ranks on $gpus GPU(s) even with a" \
        "NCCL_HOSTID per rank; running the $program tests in a world of one rank"
      mpiexec -n 1 "${mpiexec_flags[@]}" \
        "$build/bin/shardrt-gpu-$program-test"
    elif [ "$status" != 0 ]; then
      echo "gpu-check: FAILED: the $program tests on $ranks ranks" >&2
      exit 1
    fi
  done
done

echo
echo "== gpu-check: the pack kernels against cudaMemcpyAsync"
"$build/bin/shardrt-bench-pack"

echo
ranks=$((gpus >= 2 ? gpus : 2))
echo "== gpu-check: named collectives vs raw NCCL, $ranks ranks on $gpus GPU(s)"
on_ranks "$ranks" "$build/bin/shardrt-bench-collectives"
