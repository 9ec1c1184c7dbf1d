#!/usr/bin/env bash
# Compiles a shard program ahead of time into an executable that needs the
# runtime but not MLIR: lowers it with shard-opt (--shard-to-llvm and the
# options given), translates it to LLVM IR (LLVM 22's mlir-translate),
# compiles that (llc), renames its `main` to `shardc_program_main` and links
# it with test/e2e/Inputs/aot-main.c (the process's main, and printI64 /
# printNewline, which mlir-runner would take from MLIR's runner utilities)
# and the runtime library named. scripts/gpu-check.sh uses it for the
# programs it runs on a GPU machine, where MLIR is not installed.
#
#   scripts/aot-compile.sh SHARD_OPT INPUT.mlir OUTPUT RUNTIME_LIB [OPTION...]
#   e.g. scripts/aot-compile.sh build/bin/shard-opt prog.mlir prog \
#          build-gpu/lib/libshardrt.so --shard-to-llvm=device-alloc=1
# Leaves OUTPUT.llvm.mlir, OUTPUT.ll and OUTPUT.o beside OUTPUT.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 SHARD_OPT INPUT.mlir OUTPUT RUNTIME_LIB [OPTION...]" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shard_opt=$1 input=$2 output=$3 runtime=$4
shift 4
tools=${LLVM_TOOLS_DIR:-/usr/lib/llvm-22/bin}
options=("$@")
[ ${#options[@]} -gt 0 ] || options=(--shard-to-llvm)
"$shard_opt" "$input" "${options[@]}" -o "$output.llvm.mlir"
"$tools/mlir-translate" --mlir-to-llvmir "$output.llvm.mlir" |
  sed -e 's/^define void @main()/define void @shardc_program_main()/' \
    >"$output.ll"
if ! grep -q '^define void @shardc_program_main()' "$output.ll"; then
  echo "$0: $input has no func.func @main() -> ()" >&2
  exit 1
fi
"$tools/llc" -O2 -filetype=obj -relocation-model=pic "$output.ll" \
  -o "$output.o"
runtime_dir=$(cd "$(dirname "$runtime")" && pwd)
${CC:-cc} "$root/test/e2e/Inputs/aot-main.c" "$output.o" "$runtime" \
  -Wl,-rpath,"$runtime_dir" -o "$output"
