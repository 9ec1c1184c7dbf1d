//===- ShardOps.td - Global and SPMD ops -------------------*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDOPS_TD
#define SHARDC_DIALECT_SHARDOPS_TD

include "shardc/Dialect/ShardTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/EnumAttr.td"

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

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
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

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
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

//===----------------------------------------------------------------------===//
// Layouts of ordinary tensors (whole-program sharding)
//===----------------------------------------------------------------------===//

def Shard_ConstraintOp : Shard_Op<"constraint",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Pins the layout of an ordinary tensor value";
  let description = [{
    The value, unchanged, with the layout `layout` (any sharding spec: chunk,
    enumerable, device placement or DTensor placements) pinned: whole-program
    sharding keeps it, and plans a redistribution where a producer or a user
    wants another. Values without one are free. Function arguments and
    results take the same annotation as the discardable attribute
    `shard.layout`. The spec must fit the tensor (its rank, its mesh, its
    bounds), as the sharded tensor type's verifier checks it.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    func.func @f(%w: tensor<16x10xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R, S(1)]>}, %x: tensor<8x4xf32>) {
      %y = shard.constraint %x layout #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]> : tensor<8x4xf32>
      ...
    }
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       Shard_ShardingSpecAttrInterface:$layout);
  let results = (outs AnyRankedTensor:$result);
  // `%x layout SPEC {attrs} : type`, parsed by hand after the spec: MLIR's
  // parser reads the `: type` after an inline spec as the attribute's type.
  let assemblyFormat = [{
    $input `layout` custom<ConstraintTail>($layout, attr-dict, type($input))
  }];
  let hasVerifier = 1;
}

def Shard_RedistributeOp : Shard_Op<"redistribute", [Pure]> {
  let summary = "Move a sharded tensor from one spec to another";
  let description = [{
    As PyTorch's `ShardedTensor.reshard` and `DTensor.redistribute`: same
    global shape and element type, another spec.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
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

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
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

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
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
    Where a spec puts several blocks on one rank, the result is the rank's
    packed view: a 1-D tensor of its blocks, each row-major, one after the
    other in table order (what the `_packed` runtime calls move).

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
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
    Where the spec cuts a dynamic dim, `extents` gives the run-time extent of
    every dynamic dim of the tensor, in order (a rank's block holds only its
    chunk of it); they may be omitted where no dynamic dim is cut.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %s = shard.from_local_shards %l : tensor<6x?xf32> -> !shard.tensor<6x10xf32, #shard.chunk<dim = 1, ...>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, Variadic<Index>:$extents);
  let results = (outs Shard_ShardedTensorType:$result);
  let assemblyFormat = "$local (`extents` `(` $extents^ `)`)? attr-dict `:` qualified(type($local)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// SPMD view: what each rank runs, after planning.
//===----------------------------------------------------------------------===//

def Shard_LayoutAttr : TypeAttrOf<Shard_ShardedTensorType>;

def Shard_SpmdRankOp : Shard_Op<"spmd.rank", [Pure]> {
  let summary = "This rank's index in the world";
  let description = [{
    The rank this process has in the world the program runs on (the MPI
    rank). -shard-spmd-partition reads what differs between ranks (a block's
    size when a dim does not divide evenly, which ranks hold the first copy
    of a Partial value) from constant tables indexed by it (clamped: the
    last entry stands for every rank past the table); the lowering calls
    `shardrt_rank`.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %rank = shard.spmd.rank : index
    %sizes = arith.constant dense<[3, 3, 3, 1, 0]> : tensor<5xindex>
    %i = arith.minui %rank, %c4 : index
    %n = tensor.extract %sizes[%i] : tensor<5xindex>
    ```
  }];
  let results = (outs Index:$rank);
  let assemblyFormat = "attr-dict `:` type($rank)";
}

def Shard_Reduction : I32EnumAttr<"Reduction",
    "How partial values combine (DTensor's Partial reduce_op)", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Avg", 1, "avg">,
      I32EnumAttrCase<"Max", 2, "max">,
      I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"Product", 4, "product">
    ]> {
  let cppNamespace = "::shardc";
}

def Shard_AxesAttr : OptionalAttr<DenseI64ArrayAttr>;

/// A collective over a group: `over world`, `over axes [..]` (mesh axes of
/// the layouts' mesh) or `over ranks [..]`. Every SPMD collective takes
/// `extents(%n, ...)`: the run-time extent of each dynamic dim of the
/// tensor, required where a layout cuts one (torch.chunk of the extent,
/// which a rank's block does not tell); the block tables get them at run
/// time.
class Shard_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Shard_Op<"spmd." # mnemonic, traits> {
  code groupDecls = [{
    /// The named collective this op runs, read from the attributes its row
    /// of the collective table names (layout/Collectives.h).
    ::shardc::layout::Collective getCollective() {
      return *::shardc::namedCollectiveOf(getOperation());
    }
  }];
}

def Shard_SpmdAllGatherOp : Shard_CollectiveOp<"all_gather"> {
  let summary = "Collective: each group concatenates its blocks along a dim";
  let description = [{
    Over the world, every rank assembles the whole tensor: `local` is this
    rank's block under `from` (ignored on ranks owning none) and the result
    is the full tensor.

    Over mesh axes, each group of devices that differ only along `axes`
    concatenates its blocks along `dim` (in row-major order of the axes,
    uneven sizes included): `from` has S(dim) on those axes, `to` has R, and
    the axes are the innermost that shard `dim`.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %full = shard.spmd.all_gather %l over world from !shard.tensor<6x10xf32, #shard.chunk<...>>
        : tensor<6x?xf32> -> tensor<6x10xf32>
    %rows = shard.spmd.all_gather %r over axes [1] dim 0 from !a to !b
        : tensor<2x3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, Variadic<Index>:$extents, Shard_AxesAttr:$axes,
                       OptionalAttr<I64Attr>:$dim, Shard_LayoutAttr:$from,
                       OptionalAttr<Shard_LayoutAttr>:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $local (`extents` `(` $extents^ `)`)? `over` custom<Group>($axes) (`dim` $dim^)? `from` $from (`to` $to^)?
    attr-dict `:` qualified(type($local)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = groupDecls # [{
    /// Whether the op gathers the whole tensor on every rank of the world.
    bool isWorld() { return !getAxes(); }
  }];
  let hasVerifier = 1;
}

def Shard_SpmdReduceScatterOp : Shard_CollectiveOp<"reduce_scatter"> {
  let summary = "Collective: each group reduces partial values and scatters "
                "the result along a dim";
  let description = [{
    Over mesh axes: `from` has P(reduce) on `axes` and `to` has S(dim), the
    innermost axes that shard `dim`. Each rank of a group receives its chunk
    of the group's block, reduced over the group.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %s = shard.spmd.reduce_scatter %p over axes [0] dim 0 reduce sum from !p to !s
        : tensor<4x4xf32> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, Variadic<Index>:$extents, DenseI64ArrayAttr:$axes,
                       I64Attr:$dim, Shard_Reduction:$reduce,
                       Shard_LayoutAttr:$from, Shard_LayoutAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $local (`extents` `(` $extents^ `)`)? `over` `axes` $axes `dim` $dim `reduce` $reduce `from` $from `to` $to
    attr-dict `:` qualified(type($local)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
}

def Shard_SpmdAllReduceOp : Shard_CollectiveOp<"all_reduce"> {
  let summary = "Collective: each group reduces partial values";
  let description = [{
    Over mesh axes: `from` has P(reduce) on `axes`, `to` has R. Each rank of
    a group receives the group's block, reduced over the group.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %r = shard.spmd.all_reduce %p over axes [0, 1] reduce max from !p to !r
        : tensor<4x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, Variadic<Index>:$extents, DenseI64ArrayAttr:$axes,
                       Shard_Reduction:$reduce, Shard_LayoutAttr:$from,
                       Shard_LayoutAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $local (`extents` `(` $extents^ `)`)? `over` `axes` $axes `reduce` $reduce `from` $from `to` $to
    attr-dict `:` qualified(type($local)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
}

def Shard_SpmdAllToAllOp : Shard_CollectiveOp<"all_to_all"> {
  let summary = "Collective: each group re-cuts its region along another dim";
  let description = [{
    Over one mesh axis: `from` has S(concat) on it and `to` has S(split),
    the innermost axis sharding each. Each rank cuts its block along `split`
    into one piece per rank of the group, sends piece k to rank k, and
    concatenates what it receives along `concat` (uneven sizes included).

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %t = shard.spmd.all_to_all %l over axes [1] split 1 concat 0 from !a to !b
        : tensor<2x8xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, Variadic<Index>:$extents, DenseI64ArrayAttr:$axes,
                       I64Attr:$split, I64Attr:$concat,
                       Shard_LayoutAttr:$from, Shard_LayoutAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $local (`extents` `(` $extents^ `)`)? `over` `axes` $axes `split` $split `concat` $concat `from` $from
    `to` $to attr-dict `:` qualified(type($local)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
}

def Shard_SpmdBroadcastOp : Shard_CollectiveOp<"broadcast"> {
  let summary = "Collective: the root's block to every rank of a group";
  let description = [{
    Over ranks: `from` is one block on `root`; `to` gives every rank of the
    group one copy of it.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %r = shard.spmd.broadcast %l over ranks [0, 1, 2] root 2 from !one to !all
        : tensor<4x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, Variadic<Index>:$extents, DenseI64ArrayAttr:$ranks,
                       Shard_SrcRankAttr:$root, Shard_LayoutAttr:$from,
                       Shard_LayoutAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $local (`extents` `(` $extents^ `)`)? `over` `ranks` $ranks `root` $root `from` $from `to` $to
    attr-dict `:` qualified(type($local)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
}

def Shard_SpmdGatherOp : Shard_CollectiveOp<"gather"> {
  let summary = "Collective: every rank's block to the root";
  let description = [{
    Over ranks: `from` has one block per rank and no replicas; `to` is the
    whole tensor on `root`.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %w = shard.spmd.gather %l over ranks [0, 1] root 0 from !rows to !whole
        : tensor<?x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$local, Variadic<Index>:$extents, DenseI64ArrayAttr:$ranks,
                       Shard_SrcRankAttr:$root, Shard_LayoutAttr:$from,
                       Shard_LayoutAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $local (`extents` `(` $extents^ `)`)? `over` `ranks` $ranks `root` $root `from` $from `to` $to
    attr-dict `:` qualified(type($local)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = groupDecls;
  let hasVerifier = 1;
}

def Shard_SpmdScatterOp : Shard_Op<"spmd.scatter"> {
  let summary = "Collective: rank `root` sends each owner its block";
  let description = [{
    Over the world. `source` is read on rank `root` only; the result is this
    rank's block under `to` (a placeholder on ranks owning none).

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %l = shard.spmd.scatter %t over world root 0 to !shard.tensor<6x10xf32, #shard.chunk<...>>
        : tensor<6x10xf32> -> tensor<6x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Variadic<Index>:$extents, Shard_SrcRankAttr:$root,
                       Shard_LayoutAttr:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source (`extents` `(` $extents^ `)`)? `over` `world` `root` $root `to` $to attr-dict `:` qualified(type($source))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Shard_SpmdExchangeOp : Shard_Op<"spmd.exchange"> {
  let summary = "Collective: each rank trades its block for its new block";
  let description = [{
    The general step, where no named collective fits: grouped
    point-to-point messages of box intersections over the world. `source` is
    this rank's block under `from` (ignored on ranks owning none); the result
    is its block under `to`. Every element a rank needs is received once,
    from a rank that holds it, or copied locally when the rank holds it
    already: the bytes received are the lower bound of the redistribution.
    A `from` with Partial placements is reduced on arrival.

    `to world` is the whole tensor on every rank of the world (however many
    there are at run time): what an all_gather of a layout with replicas
    becomes, since a rank that holds a replica receives only what it lacks
    (an all_gather would send it its own block again). The result is the
    whole tensor; `from` has no Partial values.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %b = shard.spmd.exchange %a from !shard.tensor<6x10xf32, #shard.chunk<dim = 0, ...>>
        to !shard.tensor<6x10xf32, #shard.chunk<dim = 1, ...>>
        : tensor<?x10xf32> -> tensor<6x?xf32>
    %w = shard.spmd.exchange %r from !shard.tensor<4x4xf32, #shard.placements<...[S(0), R]>>
        to world : tensor<2x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, Variadic<Index>:$extents, Shard_LayoutAttr:$from,
                       OptionalAttr<Shard_LayoutAttr>:$to);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source (`extents` `(` $extents^ `)`)? `from` $from `to` ($to^) : (`world`)? attr-dict `:`
    qualified(type($source)) `->` qualified(type($result))
  }];
  let extraClassDeclaration = [{
    /// Whether the destination is the whole tensor on every rank.
    bool isToWorld() { return !getTo(); }
  }];
  let hasVerifier = 1;
}

#endif // SHARDC_DIALECT_SHARDOPS_TD
