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
#   3. compiled programs on a CUDA mesh: test/e2e/Inputs/cuda-collectives.mlir
#      (all_gather, all_reduce, reduce_scatter and an exchange on a 1-D CUDA
#      mesh) lowered by shard-opt --shard-to-llvm=device-alloc=1 and
#      compiled ahead of time (mlir-translate, llc, test/e2e/Inputs/aot-main.c)
#      against this runtime, run on 2 and 4 ranks (f32[12]) and on 3 (f32[10],
#      uneven); every rank checks every element of every result (each prints
#      its mismatches: all must be 0). They are compiled where shard-opt
#      ($SHARDC_BUILD, default ./build) and LLVM 22's tools are found;
#   4. the pack kernels against cudaMemcpyAsync (rows of 64 B, 256 B, 1 KiB,
#      4 KiB, 64 KiB; goal: 0.8 of its bandwidth);
#   5. the bus bandwidth of all_gather, reduce_scatter, all_reduce and
#      broadcast through shardrt against the raw NCCL calls, 1 MiB to
#      $SHARDC_GPU_MAX_MIB (default 1024) MiB (goal: 0.95 of the raw call
#      from 16 MiB), on every GPU (2 ranks sharing one when there is one).
#
# With no GPU listed by nvidia-smi there is nothing to prove: it says so and
# exits 0. With one listed, it fails, never skips: when the NCCL backend is
# not built (CUDA or NCCL not found), when the CUDA runtime or NCCL cannot
# start (a driver older than the toolkit, for example: the GPU tests run
# with SHARDC_REQUIRE_GPU=1, under which they fail instead of skipping),
# when the compiled programs are missing, and when any test fails.
#
#   scripts/gpu-check.sh             build, then check (on the GPU machine)
#   scripts/gpu-check.sh --prepare   build the runtime, its tests and the
#                                    compiled programs, no GPU needed, for a
#                                    GPU machine that lacks the build's tools
#                                    (MLIR, GoogleTest, MPI's headers)
#   scripts/gpu-check.sh --prebuilt  check with what --prepare built (the
#                                    build folder carried there); NCCL may
#                                    come from a pip wheel (nvidia-nccl-*)
#   SHARDC_GPU_BUILD  build folder (default ./build-gpu)
#   CUDA_ARCH         CMAKE_CUDA_ARCHITECTURES (default 90, H100/H200)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SHARDC_GPU_BUILD:-$root/build-gpu}
export PATH=/usr/local/cuda/bin:$PATH
mode=${1:-check}
case "$mode" in
check | --prepare | --prebuilt) ;;
*)
  echo "usage: $0 [--prepare | --prebuilt]" >&2
  exit 2
  ;;
esac
programs=$build/programs

# Lowers cuda-collectives.mlir for $1 ranks of f32[$2] and compiles it
# ahead of time (scripts/aot-compile.sh) into
# $programs/cuda-collectives-np$1-$2.
compile_program() {
  local n=$1 size=$2
  local name=$programs/cuda-collectives-np$n-$size
  local rev
  rev=$(seq $((n - 1)) -1 0 | paste -sd, - | sed -e 's/,/, /g')
  sed -e "s/@N@/$n/g" -e "s/@REV@/$rev/g" -e "s/@SIZE@/$size/g" \
    "$root/test/e2e/Inputs/cuda-collectives.mlir" >"$name.mlir"
  "$root/scripts/aot-compile.sh" "${SHARDC_BUILD:-$root/build}/bin/shard-opt" \
    "$name.mlir" "$name" "$build/lib/libshardrt.so" \
    --shard-to-llvm=device-alloc=1
}
program_shapes=("2 12" "4 12" "3 10")

build_all() {
  local log
  log=$(mktemp)
  cmake -G Ninja -S "$root" -B "$build" -DSHARDC_RUNTIME_ONLY=ON \
    -DCMAKE_BUILD_TYPE=Release -DSHARDC_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" | tee "$log"
  if ! grep -q "shardrt backends: mpi, nccl" "$log"; then
    echo "gpu-check: FAILED: the NCCL backend is not built:" >&2
    grep "shardrt backends" "$log" >&2 || true
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  ninja -C "$build" shardrt-unit-tests shardrt-gpu-mpi-test \
    shardrt-gpu-group-test shardrt-bench-pack shardrt-bench-collectives \
    shardrt-bench-overhead
  if [ -x "${SHARDC_BUILD:-$root/build}/bin/shard-opt" ] &&
    [ -x /usr/lib/llvm-22/bin/mlir-translate ]; then
    mkdir -p "$programs"
    for shape in "${program_shapes[@]}"; do
      # shellcheck disable=SC2086 # two words: ranks and size
      compile_program $shape
    done
  else
    echo "gpu-check: shard-opt or mlir-translate not found; the compiled" \
      "programs are not built (build shardc first: scripts/setup.sh)"
  fi
}

if [ "$mode" = --prepare ]; then
  build_all
  echo "gpu-check: prepared $build; carry it to the GPU machine and run" \
    "scripts/gpu-check.sh --prebuilt there"
  exit 0
fi
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no GPU visible (nvidia-smi); nothing to check here"
  exit 0
fi
nvidia-smi -L
if [ "$mode" = --prebuilt ]; then
  # Carried from another machine: the rpaths name that machine's folders.
  export LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if ldd "$build/lib/libshardrt.so" | grep -q "libnccl.so.2 => not found"; then
    nccl=$(find / -path /proc -prune -o -name 'libnccl.so.2*' -print \
      2>/dev/null | head -n 1)
    if [ -z "$nccl" ]; then
      echo "gpu-check: FAILED: libnccl.so.2 is nowhere on this machine" >&2
      exit 1
    fi
    echo "gpu-check: NCCL from $nccl"
    nccl_dir=$(dirname "$nccl")
    export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$nccl_dir
  fi
else
  build_all
fi
for shape in "${program_shapes[@]}"; do
  # shellcheck disable=SC2086 # two words: ranks and size
  set -- $shape
  if [ ! -x "$programs/cuda-collectives-np$1-$2" ]; then
    echo "gpu-check: FAILED: the compiled program" \
      "$programs/cuda-collectives-np$1-$2 is missing" >&2
    exit 1
  fi
done
gpus=$(nvidia-smi -L | grep -c '^GPU')
mpiexec_flags=()
if mpiexec --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
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

for shape in "${program_shapes[@]}"; do
  # shellcheck disable=SC2086 # two words: ranks and size
  set -- $shape
  echo
  echo "== gpu-check: compiled program on a CUDA mesh of $1 ranks, f32[$2]" \
    "(lines: each rank's mismatches per result)"
  out=$build/gpu-check-program-np$1-$2.log
  if ! on_ranks "$1" "$programs/cuda-collectives-np$1-$2" 2>&1 | tee "$out"; then
    echo "gpu-check: FAILED: the compiled program on $1 ranks" >&2
    exit 1
  fi
  counts=$(grep -cx '[0-9][0-9]*' "$out" || true)
  zeros=$(grep -cx '0' "$out" || true)
  if [ "$counts" != $((4 * $1)) ] || [ "$zeros" != "$counts" ]; then
    echo "gpu-check: FAILED: the compiled program on $1 ranks printed" \
      "$counts counts ($zeros zero), not $((4 * $1)) zeros" >&2
    exit 1
  fi
  echo "gpu-check: every element of the 4 results right on all $1 ranks"
done

echo
echo "== gpu-check: the pack kernels against cudaMemcpyAsync"
"$build/bin/shardrt-bench-pack"

echo
ranks=$((gpus >= 2 ? gpus : 2))
echo "== gpu-check: named collectives vs raw NCCL, $ranks ranks on $gpus GPU(s)"
on_ranks "$ranks" "$build/bin/shardrt-bench-collectives" \
  --max-mib "${SHARDC_GPU_MAX_MIB:-1024}"
