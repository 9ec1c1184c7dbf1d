#!/usr/bin/env bash
# Builds shardrt-bench-overhead and runs it on 2 MPI ranks: the runtime's
# all_gather, all_to_all (even, uneven) and reduce_scatter against the raw
# MPI calls at 8 B, 64 KiB, 1 MiB and 16 MiB per rank (medians per call,
# alternating samples; the named collectives also against the raw call after
# one MPI_Allreduce of their agreement's size). On 4 ranks also all_gather,
# reduce_scatter and all_reduce over one axis of a 2x2 mesh. Arguments go to
# the benchmark (--samples N, --sizes B,B,..., --only NAME). SHARDC_BUILD
# names the build folder (default ./build), SHARDC_RANKS the number of ranks
# (default 2). SHARDC_NO_BUILD=1 runs the build folder as it is (one built
# elsewhere by scripts/gpu-check.sh --prepare), without cmake or ninja.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SHARDC_BUILD:-$root/build}
if [ -n "${SHARDC_NO_BUILD:-}" ]; then
  # A build carried from another machine (scripts/gpu-check.sh --prepare):
  # run what is there, its libraries found beside it.
  export LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
else
  if [ ! -f "$build/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  fi
  ninja -C "$build" ${SHARDC_JOBS:+-j"$SHARDC_JOBS"} shardrt-bench-overhead
fi
flags=()
if mpirun --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
  flags=(--allow-run-as-root --oversubscribe --mca btl self,vader --bind-to none)
fi
mpirun "${flags[@]}" -np "${SHARDC_RANKS:-2}" "$build/bin/shardrt-bench-overhead" "$@"
