//===- ShardOps.td - Global and SPMD ops -------------------*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDOPS_TD
#define SHARDC_DIALECT_SHARDOPS_TD

include "shardc/Dialect/ShardTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"

class Shard_Op<string mnemonic, list<Trait> traits = []>
    : Op<Shard_Dialect, mnemonic, traits>;

def Shard_SrcRankAttr : ConfinedAttr<I64Attr, [IntNonNegative]>;

//===----------------------------------------------------------------------===//
// Meshes
//===----------------------------------------------------------------------===//

def Shard_MeshOp : Shard_Op<"mesh", [Symbol, HasParent<"mlir::ModuleOp">]> {
  let summary = "A named device mesh";
  let description = [{
    Declares a device mesh under a symbol name, for ops that address a mesh
    and its axes by name. Sharded tensor types carry their mesh by value (an
    attribute, usually written through an alias) so that they can be checked
    without a symbol table; `shard-validate` checks that a type's mesh and a
    declared mesh of the same axis names agree.

    ```mlir
    #dp_tp = #shard.mesh<shape = [2, 2], axes = ["dp", "tp"]>
    shard.mesh @dp_tp = #dp_tp
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Shard_MeshAttr:$mesh);
  let assemblyFormat = "$sym_name `=` qualified($mesh) attr-dict";
}

//===----------------------------------------------------------------------===//
// Global view
//===----------------------------------------------------------------------===//

def Shard_DistributeOp : Shard_Op<"distribute", [Pure]> {
  let summary = "Scatter a full tensor held by one rank into a sharded tensor";
  let description = [{
    As PyTorch's `_shard_tensor(tensor, spec, src_rank)`: the tensor's value
    on rank `src_rank` is cut into the blocks of the result's spec, and each
    block's owner receives it. The operand is ignored on the other ranks.

    ```mlir
    %s = shard.distribute %t from rank 0
        : tensor<6x10xf32> -> !shard.tensor<6x10xf32, #shard.chunk<...>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Shard_SrcRankAttr:$src_rank);
  let results = (outs Shard_ShardedTensorType:$result);
  let assemblyFormat = [{
    $source `from` `rank` $src_rank attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Shard_RedistributeOp : Shard_Op<"redistribute", [Pure]> {
  let summary = "Move a sharded tensor from one spec to another";
  let description = [{
    As PyTorch's `ShardedTensor.reshard` and `DTensor.redistribute`: same
    global shape and element type, another spec.

    ```mlir
    %b = shard.redistribute %a : !shard.tensor<8x8xf32, #A> -> !shard.tensor<8x8xf32, #B>
    ```
  }];
  let arguments = (ins Shard_ShardedTensorType:$source);
  let results = (outs Shard_ShardedTensorType:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Shard_AllGatherOp : Shard_Op<"all_gather", [Pure]> {
  let summary = "The full tensor on every rank";
  let description = [{
    Every rank receives the whole tensor, assembled from all blocks.

    ```mlir
    %t = shard.all_gather %s : !shard.tensor<6x10xf32, #shard.chunk<...>> -> tensor<6x10xf32>
    ```
  }];
  let arguments = (ins Shard_ShardedTensorType:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Shard_GatherOp : Shard_Op<"gather", [Pure]> {
  let summary = "The full tensor on one rank";
  let description = [{
    As PyTorch's `ShardedTensor.gather(dst)`: rank `dst_rank` receives the
    whole tensor; on the other ranks the value is unspecified.

    ```mlir
    %t = shard.gather %s to rank 0 : !shard.tensor<6x10xf32, #shard.chunk<...>> -> tensor<6x10xf32>
    ```
  }];
  let arguments = (ins Shard_ShardedTensorType:$source,
                       Shard_SrcRankAttr:$dst_rank);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `to` `rank` $dst_rank attr-dict `:` qualified(type($source)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Shard_LocalShardsOp : Shard_Op<"local_shards", [Pure]> {
  let summary = "This rank's block of a sharded tensor";
  let description = [{
    The block this rank owns, as an ordinary tensor. A result dim may be
    static only when every block has that size in it. On a rank that owns no
    block the value is a placeholder (dynamic dims 0, contents unspecified).
    Specs that put several blocks on one rank are not supported by this op yet.

    ```mlir
    %l = shard.local_shards %s : !shard.tensor<6x10xf32, #shard.chunk<dim = 1, ...>> -> tensor<6x?xf32>
    ```
  }];
  let arguments = (ins Shard_ShardedTensorType:$source);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Shard_FromLocalShardsOp : Shard_Op<"from_local_shards", [Pure]> {
  let summary = "A sharded tensor from each rank's block";
  let description = [{
    As PyTorch's `ShardedTensor._init_from_local_shards`: each rank passes
    the block it owns under the result's spec (ignored on ranks owning none).

    ```mlir
    %s = shard.from_local_shards %l : tensor<6x?xf32> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 1, ...>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local);
  let results = (outs Shard_ShardedTensorType:$result);
  let assemblyFormat = "$local attr-dict `:` qualified(type($local)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// SPMD view: what each rank runs, after planning.
//===----------------------------------------------------------------------===//

def Shard_LayoutAttr : TypeAttrOf<Shard_ShardedTensorType>;

def Shard_SpmdAllGatherOp : Shard_Op<"spmd.all_gather"> {
  let summary = "Collective: every rank assembles the full tensor";
  let description = [{
    Runs on every rank of the world. `local` is this rank's block under
    `layout` (ignored on ranks owning none); the result is the full tensor.

    ```mlir
    %full = shard.spmd.all_gather %l layout !shard.tensor<6x10xf32, #shard.chunk<...>>
        : tensor<6x?xf32> -> tensor<6x10xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, Shard_LayoutAttr:$layout);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $local `layout` $layout attr-dict `:` qualified(type($local)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Shard_SpmdScatterOp : Shard_Op<"spmd.scatter"> {
  let summary = "Collective: rank `root` sends each owner its block";
  let description = [{
    Runs on every rank of the world. `source` is read on rank `root` only;
    the result is this rank's block under `layout` (a placeholder on ranks
    owning none).

    ```mlir
    %l = shard.spmd.scatter %t from rank 0 layout !shard.tensor<6x10xf32, #shard.chunk<...>>
        : tensor<6x10xf32> -> tensor<6x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Shard_SrcRankAttr:$root,
                       Shard_LayoutAttr:$layout);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `from` `rank` $root `layout` $layout attr-dict `:` qualified(type($source))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Shard_SpmdRedistributeOp : Shard_Op<"spmd.redistribute"> {
  let summary = "Collective: each rank trades its block for its new block";
  let description = [{
    Runs on every rank of the world. `source` is this rank's block under
    `from` (ignored on ranks owning none); the result is its block under
    `to`. Every element a rank needs is received once, from a rank that holds
    it, or copied locally when the rank holds it already: the bytes received
    are the lower bound of the redistribution.

    ```mlir
    %b = shard.spmd.redistribute %a from !shard.tensor<6x10xf32, #shard.chunk<dim = 0, ...>>
        to !shard.tensor<6x10xf32, #shard.chunk<dim = 1, ...>>
        : tensor<?x10xf32> -> tensor<6x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Shard_LayoutAttr:$from,
                       Shard_LayoutAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `from` $from `to` $to attr-dict `:` qualified(type($source)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // SHARDC_DIALECT_SHARDOPS_TD
