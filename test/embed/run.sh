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
# everything-opt links all of upstream MLIR: lld, where there is one, links
# it in a fraction of ld's time and memory.
linker=()
if command -v ld.lld >/dev/null; then
  linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
fi
cmake -G Ninja -S "$src/test/embed/project" -B "$work/build" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  "${linker[@]}" \
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
# A consumer needs neither pkg-config nor coinor-libcbc-dev: the package
# names CBC's libraries by their own files (libCbc.so.3...), not by the
# -dev package's links or a pkg-config module.
config=$(ls -d "$work/prefix"/lib*/cmake/shardc)
! grep -rq -e pkg_check_modules -e 'PkgConfig::' "$config"
grep -q 'libCbc[A-Za-z]*\.so\.[0-9]' "$config/shardcTargets.cmake"
! grep -q 'libCbc[A-Za-z]*\.so[;">]' "$config/shardcTargets.cmake"

# Beside all of upstream (shardc::registerEverything): the same dialects as
# mlir-opt (`shard` being ours), and upstream's passes and shardc's in one
# pipeline, whose result runs on 2 ranks.
tools=${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}
libs=${LLVM_LIB_DIR:-/usr/lib/llvm-22/lib}
# A tool's dialects, one per line; mlir-opt's test dialects left out.
dialects() {
  "$1" --show-dialects | sed -e 's/^Available Dialects: //' | tr ',' '\n' |
    grep -v -x -e test -e test_dyn -e test_irdl_to_cpp
}
dialects "$tools/mlir-opt" >"$work/upstream-dialects.txt"
dialects "$work/build/everything-opt" >"$work/everything-dialects.txt"
if ! diff "$work/upstream-dialects.txt" "$work/everything-dialects.txt"; then
  echo "embedding: everything-opt's dialects are not mlir-opt's" >&2
  exit 1
fi
test "$(wc -l <"$work/everything-dialects.txt")" -gt 40
# A rule of the embedder's own (everything-opt's rule for its custom op,
# docs/partition.md): the rule as IR, then rows that stay cut (each rank
# computes its 2, nothing moved) and cut columns moved first.
"$work/build/everything-opt" "$src/test/embed/custom.mlir" \
  -shard-print-sharding-rules >"$work/custom-rules.mlir"
test "$(grep -c 'tosa.custom %arg0 {domain_name = "example", implementation_attrs = "", operator_name = "row_softmax", shard.sharding_rule = #shard.rule<(\[d0, d1\]) -> (\[d0, d1\]) {d0=4, d1=6} unshardable={d1: "row_softmax reads each row whole"}>}' "$work/custom-rules.mlir")" = 2
"$work/build/everything-opt" "$src/test/embed/custom.mlir" -shard-propagate \
  -shard-spmd-partition -o "$work/custom-spmd.mlir"
# Each function's ops: @rows', then @columns'.
sed -n '/func.func @rows/,/func.func @columns/p' "$work/custom-spmd.mlir" >"$work/custom-rows.mlir"
sed -n '/func.func @columns/,$p' "$work/custom-spmd.mlir" >"$work/custom-columns.mlir"
grep -q 'tosa.custom %arg0 .* : (tensor<2x6xf32>) -> tensor<2x6xf32>' "$work/custom-rows.mlir"
! grep -q 'shard.spmd\.[a-z_]* ' "$work/custom-rows.mlir"
grep -q 'shard.spmd.all_to_all\|shard.spmd.all_gather' "$work/custom-columns.mlir"
grep -q 'tosa.custom %[0-9]* .* : (tensor<2x6xf32>) -> tensor<2x6xf32>' "$work/custom-columns.mlir"

"$work/build/everything-opt" "$src/test/embed/everything.mlir" \
  --pass-pipeline="builtin.module(shard-propagate,shard-spmd-partition,\
shard-plan-redistribute,canonicalize,cse,\
one-shot-bufferize{bufferize-function-boundaries=1},canonicalize,cse,\
convert-vector-to-scf,convert-linalg-to-loops,lower-affine,convert-scf-to-cf,\
expand-strided-metadata,lower-affine,convert-vector-to-llvm,\
finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,\
convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,\
reconcile-unrealized-casts)" -o "$work/everything.ll.mlir" 2>"$work/everything.err"
mpi=${MPIEXEC:-mpiexec}
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
rm -f "$work"/everything.rank.*
"$mpi" -n 2 "${flags[@]}" "$src/test/e2e/Inputs/per-rank.sh" \
  "$work/everything.rank" "$tools/mlir-runner" -e main \
  -entry-point-result=void \
  -shared-libs="$(ls "$work/prefix"/lib*/libshardrt.so),$libs/libmlir_c_runner_utils.so,$libs/libmlir_runner_utils.so" \
  "$work/everything.ll.mlir" 2>>"$work/everything.err"
# Nothing on stderr: no warning or error from the pipeline or the ranks.
if [ -s "$work/everything.err" ]; then
  cat "$work/everything.err" >&2
  exit 1
fi
# Each rank: row 2 of its block, then row 2 of the gathered tensor.
row="( 20, 21, 22, 23, 24, 25 )"
printf '%s\n' "( 20, 21, 22 )" "$row" | diff - "$work/everything.rank.0"
printf '%s\n' "( 23, 24, 25 )" "$row" | diff - "$work/everything.rank.1"
echo "embedding: installed package found, built, asked the planner for a cost and ran a shard pass; everything-opt gave its custom op a rule of its own (rows kept cut), registered all of upstream beside shardc (mlir-opt's dialects) and ran upstream's passes and shardc's in one pipeline, right on 2 ranks"
