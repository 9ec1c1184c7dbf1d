#!/usr/bin/env bash
# The main job: shard-opt on the bundled example, then the generated program
# on 4 MPI ranks. Installs and builds what is missing first.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

example=$SHARDC_ROOT/examples/all_gather_6x10.mlir
ranks=${SHARDC_RANKS:-4}
out=$SHARDC_BUILD/example
mkdir -p "$out"
llvm=/usr/lib/llvm-22
opt=$SHARDC_BUILD/bin/shard-opt

echo
echo "== 1. The example ($example): a 6x10 f32 tensor, chunk-sharded on dim 1"
echo "   over 4 ranks (sizes 3, 3, 3, 1), distributed from rank 0, all-gathered."
grep -E "shard\.(distribute|all_gather|local_shards)" "$example" | sed 's/^ */   /'

echo
echo "== 2. shard-opt -shard-plan-redistribute: the SPMD collectives each rank runs"
"$opt" "$example" -shard-plan-redistribute | grep -E "shard\.spmd" | sed 's/^ */   /'

echo
echo "== 3. shard-opt -shard-lower-to-runtime: calls of the shardrt runtime"
"$opt" "$example" -shard-plan-redistribute -shard-lower-to-runtime |
  grep -E "call @shardrt|memref.global" | sed 's/^ */   /'

echo
echo "== 4. shard-opt --shard-to-llvm: down to the LLVM dialect ($out/example.ll.mlir)"
"$opt" "$example" --shard-to-llvm -o "$out/example.ll.mlir"

echo
echo "== 5. mpirun -np $ranks mlir-runner: the program on $ranks MPI ranks"
rm -f "$out"/rank.*
mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --bind-to none \
  -np "$ranks" "$SHARDC_ROOT/test/e2e/Inputs/per-rank.sh" "$out/rank" \
  "$llvm/bin/mlir-runner" -e main -entry-point-result=void \
  -shared-libs="$SHARDC_BUILD/lib/libshardrt.so,$llvm/lib/libmlir_c_runner_utils.so,$llvm/lib/libmlir_runner_utils.so" \
  "$out/example.ll.mlir"
for ((r = 0; r < ranks; ++r)); do
  echo "-- rank $r printed (its local block, then the gathered tensor):"
  grep -v "^Unranked" "$out/rank.$r" | sed 's/^/   /'
done

echo
echo "== 6. Every element of every rank, checked against its global linear index"
python3 "$SHARDC_ROOT/test/e2e/Inputs/check_ranks.py" --prefix "$out/rank" \
  --world "$ranks" --shape 6x10 --dim 1 --placements 0,1,2,3

program=$SHARDC_ROOT/examples/mlp_tensor_parallel.mlir
echo
echo "== 7. A whole program ($program): the Megatron MLP,"
echo "   W1 column-sharded and W2 row-sharded on 10 hidden features over 4 ranks."
echo "   shard-opt -shard-propagate: the layouts around the matmuls (P(sum): partial sums, reduced to R):"
"$opt" "$program" -shard-propagate | grep -E "shard\.constraint .*(P\(sum\)|\[R\]>)|linalg.matmul" |
  sed 's/#shard.placements<mesh = #shard.mesh<shape = \[4\], axes = \["tp"\]>, placements = /tp/g; s/^ */   /'
echo "   shard-opt -shard-spmd-partition: what each rank runs (local blocks, one all_reduce):"
"$opt" "$program" -shard-propagate -shard-spmd-partition |
  grep -E "func.func|linalg.matmul|shard\.spmd|dense<\[3, 3, 3, 1" |
  sed 's/ {shard.global = [^}]*}//g; s/from !shard.tensor.*: /: /; s/^ */   /'

echo
echo "== 8. mpirun -np 4 shard-run --check: the partitioned program on 4 ranks,"
echo "   every element of every rank's result checked against the program as written"
mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --bind-to none \
  -np 4 "$SHARDC_BUILD/bin/shard-run" "$program" --entry mlp --check \
  --report "$out/mlp-report.json" | sort | sed 's/^/   /'
python3 "$SHARDC_ROOT/test/e2e/Inputs/check_report.py" "$out/mlp-report.json" |
  sed 's/^/   moved: /'

model=$SHARDC_ROOT/test/e2e/model-gpt2-block.mlir
echo
echo "== 9. A real model: a GPT-2 block as torch-mlir emits it ($model,"
echo "   4 heads of 4 over 4 ranks: layer norms, fused q|k|v split by heads, causal"
echo "   softmax, attention, gelu MLP), Megatron tensor parallel; every element checked,"
echo "   and only the two 512 B all-reduces move (1536 B received per rank)"
sed -e 's/@N@/4/g; s/@H@/4/g; s/@E3@/48/g; s/@E@/16/g; s/@F@/64/g' "$model" > "$out/gpt2_block.mlir"
mpirun --allow-run-as-root --oversubscribe --mca btl self,vader --bind-to none \
  -np 4 "$SHARDC_BUILD/bin/shard-run" "$out/gpt2_block.mlir" --entry gpt2_block --check |
  sort | sed 's/^/   /'
