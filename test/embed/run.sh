#!/usr/bin/env bash
# Installs shardc from BUILD into a fresh prefix, configures and builds the
# outside project against it, and runs a shard pass through it.
# Usage: run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$build/test/embed
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -G Ninja -S "$src/test/embed/project" -B "$work/build" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} \
  >"$work/configure.log"
ninja -C "$work/build" >"$work/build.log"
"$work/build/embed-demo" "$src/test/embed/input.mlir" >"$work/out.mlir" \
  2>"$work/cost.txt"
# The planning library answered: f32[6, 10], dim 1 -> dim 0 on 4 ranks; each
# rank keeps the intersection of its column and row chunk.
grep -q "^cost: [1-9][0-9]* bytes, at the bound$" "$work/cost.txt"
# The pass ran: the global op is gone, the SPMD collective is there.
grep -q "shard.spmd.all_gather %arg0 over world from" "$work/out.mlir"
! grep -q "shard.all_gather" "$work/out.mlir"
# The package installed the headers, the libraries and the runtime.
test -f "$work/prefix/include/shardc/Register.h"
test -f "$work/prefix/include/shardrt.h"
test -f "$work/prefix/bin/shard-opt"
test -x "$work/prefix/bin/shard-lsp-server"
ls "$work/prefix"/lib*/libshardrt.so >/dev/null
ls "$work/prefix"/lib*/libShardcRun.a >/dev/null
# No empty directories (the build's CMakeFiles) among the headers.
test -z "$(find "$work/prefix/include" -type d -empty)"
echo "embedding: installed package found, built, asked the planner for a cost and ran a shard pass"
