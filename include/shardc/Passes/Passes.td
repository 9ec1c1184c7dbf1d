//===- Passes.td - shard passes ----------------------------*- tablegen -*-===//

#ifndef SHARDC_PASSES_PASSES_TD
#define SHARDC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

// Every pass that plans (-shard-plan-redistribute, -shard-propagate,
// -shard-spmd-partition) also takes the cost model's options: link,
// alpha-us, beta-gbps, topology, plans, world-size and peak-gflops. They are
// declared once, in the planning library's table (Planning/CostModel.h),
// and each of these passes adds them from it (passes/CostModelOptions.h),
// as do the shard-to-llvm pipeline, shard-run, shard-plan and Python.

def ShardPlanRedistribute : Pass<"shard-plan-redistribute", "mlir::ModuleOp"> {
  let summary = "Plan global shard ops into SPMD collectives";
  let description = [{
    Rewrites the global view (values of the sharded tensor type) into what
    each rank runs: every sharded value becomes this rank's block, an
    ordinary tensor of the spec's local type, and every global op becomes
    SPMD collectives on those blocks. Function signatures are converted too.

    Before:
    <!-- check: excerpt test/Passes/Inputs/doc-plan-redistribute.mlir -->
    ```mlir
    func.func @f(%s: !shard.tensor<6x10xf32, #shard.chunk<dim = 1,
        placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>)
        -> tensor<6x10xf32> {
      %t = shard.all_gather %s : !shard.tensor<...> -> tensor<6x10xf32>
      return %t : tensor<6x10xf32>
    }
    ```
    After:
    <!-- check: output build/bin/shard-opt test/Passes/Inputs/doc-plan-redistribute.mlir -shard-plan-redistribute -->
    ```mlir
    func.func @f(%arg0: tensor<6x?xf32>) -> tensor<6x10xf32> {
      %0 = shard.spmd.all_gather %arg0 over world from !shard.tensor<...> : tensor<6x?xf32> -> tensor<6x10xf32>
      return %0 : tensor<6x10xf32>
    }
    ```
    distribute is a scatter and all_gather an all_gather. A redistribute
    (or a gather to one rank) gets the cheapest of several correct plans
    under the alpha-beta cost model (`link`, `alpha-us`, `beta-gbps`,
    `topology`): one exchange in which every rank receives what it lacks
    once (the lower bound), a chain of exchanges one mesh axis at a time,
    a reduce-scatter before gathering Partial values, or an all_gather then
    a local slice; `plans=direct` keeps the single exchange. Every step is a
    move between two valid layouts, so every plan is correct, and each is
    emitted as the collective it is: all_gather, reduce_scatter, all_reduce
    or all_to_all over mesh axes, broadcast or gather over ranks, or the
    general exchange (docs/planner.md). The planning library
    (ShardPlanner::stepsOf) makes every choice, several blocks per rank
    included. `report=FILE.json` writes each op's steps, bytes per rank,
    lower bound, modelled time and candidates. A Partial destination is
    moved whole on its Partial axes, then made partial where it lies (the
    first copy keeps the value for sum and product, the others hold the
    identity; planning::decideMove); Partial axes reduced two ways are
    reported as not supported yet, never planned wrongly.

    Besides the options below it takes the cost model's (`link`,
    `alpha-us`, `beta-gbps`, `topology`, `plans`, `world-size`,
    `peak-gflops`), declared once for every pass, the pipeline, shard-plan
    and Python (Planning/CostModel.h; docs/planner.md, "The cost model").
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
  let options = [
    Option<"report", "report", "std::string", "\"\"",
           "Write the plan report (JSON) to this file">,
  ];
}

def ShardLowerToRuntime : Pass<"shard-lower-to-runtime", "mlir::ModuleOp"> {
  let summary = "Bufferize, lowering SPMD collectives to calls of the shardrt C ABI";
  let description = [{
    Bufferizes the module (elementwise ops on tensors as linalg first, then
    one-shot bufferization across function boundaries with identity layouts
    there, loops allowed to yield new buffers), and each SPMD collective
    becomes a `func.call` of the runtime (`shardrt_mlir_<function>_<dtype>`)
    on unranked memrefs, with the layouts' block tables (and a named
    collective's groups) as constant globals: the world all_gather and the
    scatter call `all_gather` and `scatter`, an exchange `redistribute`
    (`redistribute_reduce` from Partial values), a named collective over mesh
    axes or ranks `group_collective` (one native collective per group: MPI's
    on CPU blocks, NCCL's on CUDA blocks; the exchange when a rank holds
    several blocks). The mapping is `runtimeCallOf`
    (RuntimeCalls.h), which shard-plan --execute runs too; `shard.spmd.rank`
    becomes `shardrt_rank()`.

    The collectives are lowered where bufferization decides which buffers
    ops write in place: the collectives' BufferizableOpInterface (registered
    with the dialects, so an embedder's own `-one-shot-bufferize` lowers them
    the same way) says a collective reads its input and writes a new buffer.
    So the analysis copies where a later op would write in place into a value
    that a collective, a slice or a return still reads. One-shot takes a
    call's results to be new buffers: a function returns as a copy each
    result that may share its buffer with an earlier result (`return %h, %h`,
    or a tensor and a slice of it) or be a constant's, which its callers
    could otherwise write in place.

    The casts to unranked memrefs (whose LLVM lowering puts descriptors on
    the stack) and the call sit in a private wrapper,
    `@__shard_call_<runtime function>` (memrefs passed with every size and
    stride dynamic, so one wrapper serves every shape), so that a collective
    in a loop of millions of iterations frees its descriptors on every
    return:

    Before:
    <!-- check: excerpt test/Passes/Inputs/doc-lower-to-runtime.mlir -->
    ```mlir
    %t = shard.spmd.all_gather %l over world from !shard.tensor<...>
        : tensor<6x?xf32> -> tensor<6x10xf32>
    ```
    After:
    <!-- check: output build/bin/shard-opt test/Passes/Inputs/doc-lower-to-runtime.mlir -shard-lower-to-runtime -->
    ```mlir
    func.func private @__shard_call_shardrt_mlir_all_gather_f32(%arg0: memref<?x?xf32, strided<[?, ?], offset: ?>>, ...) {
      %cast = memref.cast %arg0 : memref<?x?xf32, strided<[?, ?], offset: ?>> to memref<*xf32>
      ...
      call @shardrt_mlir_all_gather_f32(%cast, %cast_0, %cast_1, %arg3) : (memref<*xf32>, memref<*xf32>, memref<*xi64>, i32) -> ()
      return
    }
    ...
    memref.global "private" constant @__shard_blocks_... : memref<4x5xi64> = dense<[[0, 0, 0, 6, 3], [1, 0, 3, 6, 3], ...]>
    func.func @f(%arg0: memref<6x?xf32>) -> memref<6x10xf32> {
      %alloc = memref.alloc() {alignment = 64 : i64} : memref<6x10xf32>
      %0 = memref.get_global @__shard_blocks_... : memref<4x5xi64>
      ...
      %cast = memref.cast %arg0 : memref<6x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
      ...
      call @__shard_call_shardrt_mlir_all_gather_f32(%cast, %cast_0, %cast_1, %c0_i32) : (...) -> ()
      return %alloc : memref<6x10xf32>
    }
    ```
    Blocks on "cuda" placements pass the CUDA device code (NCCL backend).
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def ShardInferChunkSpec : Pass<"shard-infer-chunk-spec", "mlir::ModuleOp"> {
  let summary = "Recognize chunk specs and mesh placements in explicit blocks";
  let description = [{
    Rewrites every sharded tensor type of the module (function signatures,
    values, attributes):

    - an enumerable spec becomes a chunk spec exactly when PyTorch's
      `_infer_sharding_spec_from_shards_metadata` would infer one: exactly
      one dim carries non-zero offsets and the sorted sizes and offsets along
      it are torch.chunk's; the placements are ordered by offset. Otherwise
      it stays enumerable.
    - with `blocks-to-mesh`, an enumerable spec that is still enumerable
      becomes `#shard.placements` when its blocks are exactly a grid of
      torch.chunk cuts, one Shard mesh axis per cut dim, on distinct ranks.
    - with `mesh-to-blocks` (instead), a `#shard.placements` spec without
      Replicate or Partial axes becomes the explicit blocks DTensor gives
      every device (nested sharding of one dim included).

    Before:
    <!-- check: excerpt test/Passes/Inputs/doc-infer-chunk-spec.mlir -->
    ```mlir
    func.func private @f(!shard.tensor<11xf32, #shard.enumerable<[
      {offsets = [3], sizes = [3], placement = "rank:1/cpu"},
      {offsets = [0], sizes = [3], placement = "rank:0/cpu"},
      {offsets = [9], sizes = [2], placement = "rank:3/cpu"},
      {offsets = [6], sizes = [3], placement = "rank:2/cpu"} ]>>)
    ```
    After:
    <!-- check: output-wrapped build/bin/shard-opt test/Passes/Inputs/doc-infer-chunk-spec.mlir -shard-infer-chunk-spec -->
    ```mlir
    func.func private @f(!shard.tensor<11xf32, #shard.chunk<dim = 0,
        placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]>>)
    ```
  }];
  let options = [
    Option<"blocksToMesh", "blocks-to-mesh", "bool", "false",
           "Also recognize grids of blocks as Shard placements on a mesh">,
    Option<"meshToBlocks", "mesh-to-blocks", "bool", "false",
           "Instead, write Shard-only mesh placements as explicit blocks">,
  ];
}

def ShardFloatZeroPoints
    : Pass<"shard-float-zero-points", "mlir::ModuleOp"> {
  let summary = "Give TOSA ops on floats constant zero points";
  let description = [{
    A TOSA op on floating-point tensors (`tosa.matmul`, `tosa.negate`,
    `tosa.avg_pool2d`, the convolutions) whose zero point is a value rather
    than a constant (a function argument, as upstream MLIR's own tests give
    them) gets a `tosa.const` zero there. TOSA requires a floating-point
    zero point to be 0, so the program computes the same. Upstream MLIR
    22's lowering to linalg refuses such zero points of `tosa.matmul` and
    the convolutions ("failed to legalize"), and builds `tosa.negate`'s
    result with a garbage extent on a dim of run-time size (which the
    partition makes of an uneven cut): the program ran past its buffers.
    The shard-to-llvm pipeline runs this pass before that lowering.
  }];
  let dependentDialects = ["mlir::tosa::TosaDialect"];
}

def ShardUnitStrides : Pass<"shard-unit-strides", "mlir::ModuleOp"> {
  let summary = "Give each dim of size 1 of a slice a stride of 1, and a "
                "strided rank-reducing slice its full rank";
  let description = [{
    A `tensor.extract_slice` or `tensor.insert_slice` reads or writes one
    element along a dim of size 1, whatever its stride there; this pass
    writes that stride as 1. A rank-reducing slice with another stride than
    1 left is written at full rank: an extract as the slice at full rank
    and a `tensor.collapse_shape` of the dims it drops, an insert as a
    `tensor.expand_shape` of its source and the insert at full rank.
    Upstream MLIR 22's -expand-strided-metadata crashes
    (memref::SubViewOp::getDroppedDims) on the subview bufferization makes
    of a rank-reducing slice whose dims are all of size 1 with another
    stride on one (`tensor.extract_slice %t[1, 3] [1, 1] [3, 1] :
    tensor<3x4xf32> to tensor<1xf32>`, a valid program), or that has more
    dims of size 1 than it drops and another stride on one (`[2, 1, 1, 1]
    [2, 1, 1, 1] : tensor<3x1x2x2xf32> to tensor<2x1xf32>`); the
    shard-to-llvm pipeline (which shard-run lowers with) runs this pass
    before bufferizing.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def ShardMaskedTransfers : Pass<"shard-masked-transfers", "mlir::ModuleOp"> {
  let summary = "Write masked transfers of tensors in forms upstream MLIR "
                "lowers right";
  let description = [{
    A masked `vector.transfer_write` into a tensor (its mask operand, or a
    `vector.mask` around it), in bounds along every dim and with a minor
    identity permutation map, is written as a `vector.transfer_read` of
    what it overwrites, an `arith.select` of the written lanes and the read
    ones under the mask, and the same write without a mask: upstream MLIR
    22's one-shot bufferization takes a masked write spanning its whole
    tensor for a full overwrite and, where the tensor is read again after
    it, writes a new buffer not copied from the tensor, the lanes the mask
    leaves out undefined. A `vector.mask` with a passthru around a
    `vector.transfer_read` of a tensor is written as the read with its mask
    operand and an `arith.select` of its lanes and the passthru's:
    -lower-vector-mask leaves it as it is, and buffer deallocation then
    puts ops inside its region. The same elements either way; the
    shard-to-llvm pipeline (which shard-run lowers with) runs this pass
    before bufferizing.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def ShardCheckLowered : Pass<"shard-check-lowered", "mlir::ModuleOp"> {
  let summary = "Refuse a module that the LLVM lowering left ops of the "
                "dialects it lowers in";
  let description = [{
    The last pass of the shard-to-llvm pipeline. An op of a dialect the
    pipeline lowers (arith, math, memref, linalg, tensor, scf, cf, func,
    complex, affine, index, bufferization, tosa, vector, shard) or an
    unrealized conversion cast left after every conversion has no LLVM
    form: the pipeline would succeed and the module fail only when
    translated to LLVM IR ("could not convert to LLVM IR", far from the
    op). This pass names the first such op, at its location, with its
    types; arithmetic on float types of fewer than 16 bits (f8, f6, f4:
    moved as bytes, but MLIR 22 lowers no arithmetic on them) is said so.
  }];
}

def ShardDynamicExpands : Pass<"shard-dynamic-expands", "mlir::ModuleOp"> {
  let summary = "Write a tensor.expand_shape that splits a dim into several "
                "dims of run-time size as a tensor.reshape";
  let description = [{
    A `tensor.expand_shape` that splits one dim into two or more dims of
    run-time size (torch-mlir's `aten.linear` on a `[B?, S?, K]` input
    expands the matmul's rows back: `tensor.expand_shape %y [[0, 1], [2]]
    output_shape [%b, %s, 6] : tensor<?x6xf32> into tensor<?x?x6xf32>`)
    becomes the `tensor.reshape` of its source into the same shape (the
    same elements in the same order), the shape a `tensor.from_elements` of
    its output sizes (`%shape = tensor.from_elements %b, %s, %c6 :
    tensor<3xindex>`, `tensor.reshape %y(%shape) : (tensor<?x6xf32>,
    tensor<3xindex>) -> tensor<?x?x6xf32>`; test/Passes/
    shard-dynamic-expands.mlir checks it).

    Upstream MLIR 22's -expand-strided-metadata crashes
    (memref::ReinterpretCastOp::build reading a dynamic stride as a
    constant) on the `memref.expand_shape` bufferization makes of such a
    split, a valid program; a reshape bufferizes to `memref.reshape`, which
    lowers. The shard-to-llvm pipeline (which shard-run lowers with) runs
    this pass before bufferizing, after partitioning.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def ShardDecomposeAggregates
    : Pass<"shard-decompose-aggregates", "mlir::ModuleOp"> {
  let summary = "Decompose linalg.softmax (and every other aggregated op), "
                "tensor.gather, linalg.pack and linalg.unpack into the ops "
                "they stand for";
  let description = [{
    Rewrites each op of linalg's AggregatedOpInterface (linalg.softmax as
    torch-mlir and TOSA-based ingress emit it) into the ops its
    decomposition gives: for softmax, a max reduction, an exponential of the
    difference, a sum reduction and a division. -shard-propagate and
    -shard-spmd-partition shard linalg.softmax as it is (its rule keeps the
    normalized dim whole); the shard-to-llvm pipeline runs this pass after
    partitioning, since the loops that lower linalg to code do not take
    aggregated ops.

    Each `tensor.gather` (which nothing upstream bufferizes) becomes a
    `linalg.generic` over its result whose payload reads the element's
    coordinates along the gathered dims from the indices and the source
    there (`tensor.extract`), the other dims at their own index.

    Each `linalg.pack` and `linalg.unpack` (mmt4d data tiling; nothing
    upstream bufferizes them) becomes the pad, reshape and transpose it
    stands for, or their inverse (upstream's `linalg::lowerPack` and
    `lowerUnPack`); one that lowering refuses (tiles of run-time size) is
    an error naming it. They have no sharding rule: under auto=true they
    run whole on every rank.

    Each `tensor.bitcast` of ranked tensors (torch-mlir's `aten.view.dtype`;
    nothing upstream bufferizes it) becomes the elementwise `linalg.generic`
    of `arith.bitcast` it is (its sharding rule is elementwise: each rank
    reinterprets its own block).
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def ShardPrintShardingRules
    : Pass<"shard-print-sharding-rules", "mlir::ModuleOp"> {
  let summary = "Write each op's sharding rule on it, as a #shard.rule";
  let description = [{
    Gives every op on tensors with a sharding rule (ShardingRuleOpInterface:
    linalg structured ops, elementwise arith and math ops, constants, tensor
    ops, an embedder's own ops) a `shard.sharding_rule` attribute, its rule
    as a `#shard.rule` (parsed, printed and verified like any attribute), so
    that rules are checked in lit tests directly (as Shardy's
    `-sdy-populate-op-sharding-rules` does). The rule names the op's loops
    `d0`, `d1`, ... (as `#shard.sharding` does), lists per operand (then per
    tensor its regions read from outside it) and per result the loop that
    indexes each dim (`_` for a dim no loop indexes alone, which may not be
    sharded; `[]` for an operand that is not a ranked tensor), then the
    loops' sizes, the reduction loops with each result's combiner, the loops
    that may not be sharded with why, the operand that holds each result's
    initial value, and the groups of operands the results are linear in:

    Before:
    <!-- check: excerpt test/Passes/Inputs/doc-print-sharding-rules.mlir -->
    ```mlir
    %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>)
                       outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
    ```
    After:
    <!-- check: output-wrapped build/bin/shard-opt test/Passes/Inputs/doc-print-sharding-rules.mlir -shard-print-sharding-rules -->
    ```mlir
    %0 = linalg.matmul {shard.sharding_rule = #shard.rule<([d0, d2], [d2, d1], [d0, d1]) -> ([d0, d1])
        {d0=8, d1=16, d2=4} reduction={d2} combiners=[sum] inits=[2] linear=[[0, 2], [1, 2]]>}
        ins(%arg0, %arg1 : tensor<8x4xf32>, tensor<4x16xf32>) outs(%arg2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    ```

    The written rule is read back: an op without a rule of its own that
    carries one is sharded by it (its local form the op itself on local
    blocks), and one on an op with a rule of its own must be that rule.
    An op whose rule cannot be made (a dynamic size) gets the rule's error,
    and the pass fails.
  }];
  let dependentDialects = ["shardc::ShardDialect"];
}

def ShardValidate : Pass<"shard-validate", "mlir::ModuleOp"> {
  let summary = "Check every sharded tensor against the world it will run on";
  let description = [{
    Every sharded tensor type is checked when it is built (ranks, signs,
    bounds, overlaps named pair by pair with the shared box, gaps named as
    boxes; see the type's verifier), so every tool rejects an invalid spec.
    This pass adds the checks that need to know where the program runs, and
    a summary:

    - `world-size=N`: every block's rank (and every mesh device id) must be
      below N; each offending block is named.
    - `report`: a remark per distinct sharded tensor type: its blocks, the
      ranks that hold them, and the elements per rank (min, max).

    <!-- check: excerpt test/Passes/Inputs/doc-validate.mlir -->
    ```mlir
    func.func private @f(!shard.tensor<8xf32, #shard.chunk<dim = 0,
        placements = ["rank:0", "rank:1", "rank:2"]>>)
    ```
    `shard-opt -shard-validate="world-size=2"` rejects it, naming the block:
    <!-- check: output-wrapped ! build/bin/shard-opt test/Passes/Inputs/doc-validate.mlir -shard-validate=world-size=2 2>&1 -->
    ```
    ...: error: '!shard.tensor<8xf32, #shard.chunk<dim = 0, placements = ["rank:0/cpu", "rank:1/cpu", "rank:2/cpu"]>>':
        block #2 (offsets [6], sizes [2]) is placed on rank 2 but the world has 2 ranks
    ```
  }];
  let options = [
    Option<"worldSize", "world-size", "int64_t", "0",
           "The number of ranks the program runs on, 1 to 2^31 - 1 (0: not "
           "checked)">,
    Option<"report", "report", "bool", "false",
           "Emit a summary remark per sharded tensor type">,
  ];
}

def ShardPropagate : Pass<"shard-propagate", "mlir::ModuleOp"> {
  let summary = "Give every tensor value of a sharded program a layout";
  let description = [{
    Starting from the layouts the program pins (`shard.layout` on function
    arguments and results, `shard.constraint` on values), gives every tensor
    value of every function they reach a layout, forward from operands and
    backward from uses, to a fixed point, in time linear in the program's
    size. Each compute op is sharded through its sharding rule
    (ShardingRuleOpInterface: linalg ops from their indexing maps,
    elementwise arith and math ops, constants, tensor.empty): a mesh axis
    shards a loop, and every operand and result dim that loop indexes is
    sharded alike. A sharded reduction loop leaves the result Partial.
    `scf.for`, `scf.if`, `func.call` and `func.return` carry layouts across.

    First, in each function that gets layouts: tensor.cast chains to and
    from dynamic shapes are folded (canonicalization, where the function
    has dynamic shapes), and a linalg op computed from a tensor laid out in
    several blocks per rank whose result is read only through disjoint
    slices is computed once per slice from slices of its operands, so that
    each slice is computed where its blocks are (docs/partition.md).

    Where the layouts an op's tensors ask for conflict (two loops wanting one
    mesh axis, or users wanting different layouts of a value), each
    candidate sharding is costed by the planner (the redistributions it
    forces, under the alpha-beta cost model) and the cheapest is kept: the
    least modelled time, then the fewest bytes received, then the first
    candidate (operand order); `explain` says why in a remark.

    The result is written back for people and for `-shard-spmd-partition`: every
    function argument and result gets `shard.layout`; every op with a
    sharding rule gets the sharding chosen for it, `shard.sharding`; every
    op result is followed by a `shard.constraint` with its layout; wherever
    a use needs another layout than its value has, a `shard.constraint`
    with the layout it needs stands before the use (two constraints in a
    row are a redistribution). Running the pass again changes nothing.

    Before:
    <!-- check: excerpt test/Passes/Inputs/doc-propagate.mlir -->
    ```mlir
    func.func @mlp(%x: tensor<8x16xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>},
                   %w: tensor<16x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>})
        -> tensor<8x12xf32> {
      %e = tensor.empty() : tensor<8x12xf32>
      %y = linalg.matmul ins(%x, %w : ...) outs(%e : tensor<8x12xf32>) -> tensor<8x12xf32>
      return %y : tensor<8x12xf32>
    }
    ```
    After:
    <!-- check: output build/bin/shard-opt test/Passes/Inputs/doc-propagate.mlir -shard-propagate -->
    ```mlir
    #mesh = #shard.mesh<shape = [2]>
    #layout_S1 = #shard.placements<mesh = #mesh, placements = [S(1)]>
    ...
    func.func @mlp(%arg0: ..., %arg1: ...) -> (tensor<8x12xf32> {shard.layout = #layout_S1}) {
      %0 = tensor.empty() {shard.sharding = #shard.sharding<mesh = #mesh, loops = [d1]>} : tensor<8x12xf32>
      %1 = shard.constraint %0 layout #layout_S1 : tensor<8x12xf32>
      %2 = linalg.matmul {shard.sharding = #shard.sharding<mesh = #mesh, loops = [d1]>} ins(%arg0, %arg1 : ...) outs(%1 : tensor<8x12xf32>) -> tensor<8x12xf32>
      %3 = shard.constraint %2 layout #layout_S1 : tensor<8x12xf32>
      return %3 : tensor<8x12xf32>
    }
    ```
    An op with tensors that no rule covers, in a function that gets
    layouts, is an error naming the op. A value needed in another layout
    is moved once per layout, just before the first op of its own block
    that needs it so (a weight used in a loop is gathered once, before
    it). A function that gets layouts and holds tensors of dynamic shape is
    canonicalized first, so that the static shapes its tensor.cast,
    tensor.empty and tensor.dim ops name reach the ops between them (as in
    torch-mlir's output); a tensor whose shape stays dynamic is an error.

    Besides the options below it takes the cost model's (`link`,
    `alpha-us`, `beta-gbps`, `topology`, `plans`, `world-size`,
    `peak-gflops`), declared once for every pass, the pipeline, shard-plan
    and Python (Planning/CostModel.h; docs/planner.md, "The cost model").
  }];
  let dependentDialects = ["shardc::ShardDialect"];
  let options = [
    Option<"explain", "explain", "bool", "false",
           "Emit a remark at each op whose tensors asked for conflicting "
           "shardings: the candidates, what each moves, and which was kept; "
           "with search=whole, at every decision: the sharding kept, its "
           "cost, the best rejected one and what it would have forced">,
    Option<"search", "search", "shardc::PropagationSearch",
           "shardc::PropagationSearch::Whole",
           "How layouts are chosen",
           [{::llvm::cl::values(
             clEnumValN(shardc::PropagationSearch::Greedy, "greedy",
                        "op by op in program order, from the layouts "
                        "already known"),
             clEnumValN(shardc::PropagationSearch::Whole, "whole",
                        "every op's sharding and free value's layout of a "
                        "function together, at least modelled time: exact "
                        "(dynamic programming, else a relaxation's bound "
                        "met, else an integer program) up "
                        "to exact-ops ops, dynamic programming or local "
                        "search past it; loops and branches inside, their "
                        "moves and compute counted per trip; calls with "
                        "their callee's layouts (default)"))}]>,
    Option<"autoShard", "auto", "bool", "false",
           "Automatic sharding: a function that carries a mesh "
           "(shard.mesh = #shard.mesh<...>) and no layouts gets every "
           "argument's, result's and value's layout chosen by search=whole "
           "(an argument's shard.batch = d cuts its dim d on the mesh's "
           "first axis); implies search=whole">,
    Option<"exactOps", "exact-ops", "int64_t", "200",
           "search=whole: the most ops a function may have to be solved "
           "exactly (0 to 10^6; past it: local search)">,
    Option<"solverNodes", "solver-nodes", "int64_t", "20000",
           "search=whole: each integer program's branch-and-bound nodes "
           "(1 to 2^31 - 1), a limit that stops it alike on every run "
           "(past it the best found, said not proven)">,
    Option<"solverIterations", "solver-iterations", "int64_t", "50000",
           "search=whole: each integer program's relaxation's dual simplex "
           "iterations (1 to 2^31 - 1), a limit that stops it alike on "
           "every run (past it the program is not solved: the search's own "
           "answer stands, said not proven)">,
    Option<"memoryBudget", "memory-budget", "int64_t", "0",
           "search=whole: the most bytes a rank may hold at once in a "
           "function: at each op, the values live there (arguments "
           "throughout; others from their definition to their last use), "
           "each its largest block and every copy of it its ops need "
           "(0: none given: under auto=true on a mesh of CUDA devices, an "
           "80 GB GPU's memory, 80000000000; else no budget); an error "
           "names the least found when nothing fits">,
    Option<"loopTrips", "loop-trips", "int64_t", "10",
           "search=whole: how many times a loop without a static trip "
           "count (scf.while, scf.for of dynamic bounds) is counted to run "
           "(1 to 10^9): the moves and compute inside it count that many "
           "times">,
  ];
}

def ShardPartition : Pass<"shard-spmd-partition", "mlir::ModuleOp"> {
  let summary = "Rewrite annotated functions into what each rank runs";
  let description = [{
    Rewrites every function that has layouts (after `-shard-propagate`)
    into its per-rank (SPMD) form. Arguments and results become this rank's
    block, with the global type kept as `shard.global`; compute ops run on
    local blocks, the same op (torch.chunk on every operand alike, so a dim
    that does not divide evenly gets a dynamic size, read from a table by
    `shard.spmd.rank`; nothing is padded or dropped); `tensor.empty` and
    constants build this rank's block; the init of a reduction whose loop
    is sharded holds its value on the first copy of the Partial result and
    the combiner's identity elsewhere. Every `shard.constraint` whose layout
    differs from its input's becomes the planner's cheapest collectives,
    through `-shard-plan-redistribute` (the same planning library), which
    this pass runs on the module; `report=FILE.json` writes its plan
    report.

    Before (after -shard-propagate):
    <!-- check: output build/bin/shard-opt test/Passes/Inputs/doc-spmd-partition.mlir -shard-propagate -->
    ```mlir
    #mesh = #shard.mesh<shape = [4]>
    #layout_R = #shard.placements<mesh = #mesh, placements = [R]>
    #layout_S0 = #shard.placements<mesh = #mesh, placements = [S(0)]>
    ...
    func.func @f(%arg0: tensor<10xf32> {shard.layout = #layout_S0}) -> (tensor<10xf32> {shard.layout = #layout_R}) {
      %0 = math.exp %arg0 {shard.sharding = #shard.sharding<mesh = #mesh, loops = [d0]>} : tensor<10xf32>
      %1 = shard.constraint %0 layout #layout_S0 : tensor<10xf32>
      %2 = shard.constraint %1 layout #layout_R : tensor<10xf32>
      return %2 : tensor<10xf32>
    }
    ```
    After:
    <!-- check: output build/bin/shard-opt test/Passes/Inputs/doc-spmd-partition.mlir -shard-propagate -shard-spmd-partition -->
    ```mlir
    func.func @f(%arg0: tensor<?xf32> {shard.global = !shard.tensor<10xf32, #layout_S0>}) -> (tensor<10xf32> {shard.global = !shard.tensor<10xf32, #layout_R>}) {
      %0 = math.exp %arg0 : tensor<?xf32>
      %1 = shard.spmd.all_gather %0 over axes [0] dim 0 from !shard.tensor<10xf32, #layout_S0> to ... : tensor<?xf32> -> tensor<10xf32>
      return %1 : tensor<10xf32>
    }
    ```
    A value without a layout in a function that has some, an op whose
    operands' layouts disagree with its sharding rule, and a layout a
    compute op cannot take (several blocks on one rank) are errors: run
    `-shard-propagate` first.

    Besides the options below it takes the cost model's (`link`,
    `alpha-us`, `beta-gbps`, `topology`, `plans`, `world-size`,
    `peak-gflops`), declared once for every pass, the pipeline, shard-plan
    and Python (Planning/CostModel.h; docs/planner.md, "The cost model").
  }];
  let dependentDialects = [
    "shardc::ShardDialect",
    "mlir::arith::ArithDialect",
    "mlir::cf::ControlFlowDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"report", "report", "std::string", "\"\"",
           "Write the plan report (JSON) of the redistributions to this file">,
  ];
}

#endif // SHARDC_PASSES_PASSES_TD
