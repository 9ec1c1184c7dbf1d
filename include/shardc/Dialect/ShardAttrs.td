//===- ShardAttrs.td - Placements, blocks and specs --------*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDATTRS_TD
#define SHARDC_DIALECT_SHARDATTRS_TD

include "shardc/Dialect/ShardBase.td"
include "shardc/Dialect/ShardInterfaces.td"

class Shard_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Shard_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Shard_DeviceAttr : Shard_Attr<"Device", "device"> {
  let summary = "A device placement, as PyTorch's remote-device strings";
  let description = [{
    Parses PyTorch's `_remote_device` strings and prints them canonically
    (as PyTorch's `str()`): `"rank:0/cuda:0"`, `"rank:1"` (printed
    `"rank:1/cpu"`), `"cuda:0"`, `"cpu"`, `"rank:0/cpu"`.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    #shard.device<"rank:0/cuda:0">
    ```
  }];
  let parameters = (ins "int64_t":$rank, "::shardc::layout::Device::Kind":$kind,
                        "int64_t":$index);
  let assemblyFormat = "`<` custom<DeviceString>($rank, $kind, $index) `>`";
  let extraClassDeclaration = [{
    /// Parses a PyTorch remote-device string; emits and returns null on error.
    static DeviceAttr parse(::llvm::StringRef text,
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
        ::mlir::MLIRContext *context);
    static DeviceAttr get(::mlir::MLIRContext *context,
                          const ::shardc::layout::Device &device);
    ::shardc::layout::Device getDevice() const;
    /// The canonical string, e.g. "rank:1/cpu".
    std::string str() const;
  }];
}

def Shard_BlockAttr : Shard_Attr<"Block", "block"> {
  let summary = "A block of a sharded tensor (PyTorch's ShardMetadata)";
  let description = [{
    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    #shard.block<offsets = [0, 5], sizes = [6, 5], placement = "rank:1/cpu">
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$offsets,
                        ArrayRefParameter<"int64_t">:$sizes,
                        "DeviceAttr":$placement);
  // The body is shared with the enumerable spec's list of `{...}` blocks.
  let assemblyFormat =
      "`<` custom<BlockBody>($offsets, $sizes, $placement) `>`";
  let extraClassDeclaration = [{
    ::shardc::layout::Block getBlock() const;
  }];
}

def Shard_ChunkSpecAttr : Shard_Attr<"ChunkSpec", "chunk",
    [DeclareAttrInterfaceMethods<Shard_ShardingSpecAttrInterface>]> {
  let summary = "Chunks one dim over the placements (ChunkShardingSpec)";
  let description = [{
    Placement `i` holds chunk `i` of dim `dim`, chunked as `torch.chunk`:
    `split = ceil(n / k)`, chunk `i` has offset `split * i` and size
    `clamp(n - split * i, 0, split)`. `dim` may be negative (from the end).

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    #shard.chunk<dim = 1, placements = ["rank:0/cpu", "rank:1/cpu"]>
    ```
  }];
  let parameters = (ins "int64_t":$dim,
                        ArrayRefParameter<"DeviceAttr">:$placements);
  let assemblyFormat = [{
    `<` `dim` `=` $dim `,` `placements` `=` custom<DeviceList>($placements) `>`
  }];
  let genVerifyDecl = 1;
}

def Shard_EnumerableSpecAttr : Shard_Attr<"EnumerableSpec", "enumerable",
    [DeclareAttrInterfaceMethods<Shard_ShardingSpecAttrInterface>]> {
  let summary = "An explicit list of blocks (EnumerableShardingSpec)";
  let description = [{
    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    #shard.enumerable<[
      {offsets = [0, 0], sizes = [5, 10], placement = "rank:0/cuda:0"},
      {offsets = [5, 0], sizes = [5, 10], placement = "rank:1/cuda:1"} ]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"BlockAttr">:$blocks);
  let assemblyFormat = "`<` custom<BlockList>($blocks) `>`";
}

def Shard_DevicePlacementSpecAttr : Shard_Attr<"DevicePlacementSpec",
    "device_placement",
    [DeclareAttrInterfaceMethods<Shard_ShardingSpecAttrInterface>]> {
  let summary = "The whole tensor on one device (DevicePlacementSpec)";
  let description = [{
    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    #shard.device_placement<"rank:0/cuda:0">
    ```
  }];
  let parameters = (ins "DeviceAttr":$device);
  let assemblyFormat = "`<` custom<DeviceRef>($device) `>`";
}

def Shard_MeshAttr : Shard_Attr<"Mesh", "mesh"> {
  let summary = "A device mesh (DTensor's DeviceMesh)";
  let description = [{
    An n-D grid of devices: its shape, optionally the device id (rank) at
    each position in row-major order (0, 1, ... by default), optionally a
    name per axis, and the device type (cpu by default). Meshes are
    attributes, named with attribute aliases, so that a sharded tensor type
    carries everything its verifier needs:

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    #mesh = #shard.mesh<shape = [2, 2], devices = [0, 2, 1, 3], axes = ["dp", "tp"], device = "cuda">
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        ArrayRefParameter<"int64_t">:$devices,
                        ArrayRefParameter<"::mlir::StringAttr">:$axes,
                        "::shardc::layout::Device::Kind":$kind);
  // `devices`, `axes` and `device` are optional, in any order.
  let assemblyFormat = [{
    `<` `shape` `=` custom<IntList>($shape) ``
        custom<MeshOptions>($devices, $axes, $kind) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::shardc::layout::Mesh getMesh() const;
  }];
}

def Shard_PlacementsSpecAttr : Shard_Attr<"PlacementsSpec", "placements",
    [DeclareAttrInterfaceMethods<Shard_ShardingSpecAttrInterface,
       ["getDeviceBlocks", "hasPartial"]>]> {
  let summary = "DTensor placements: one per mesh axis";
  let description = [{
    `S(d)` shards tensor dim `d` over the mesh axis (as torch.chunk; several
    axes sharding one dim nest, outer axis first), `R` replicates, `P(op)`
    holds partial values to be reduced with `op` (sum, avg, max, min,
    product).

    `_S(d, split)` is a strided shard (DTensor's _StridedShard): the rows of
    dim `d` the outer axes left on a device are viewed as `split` groups of
    equal size, and the axis takes its torch.chunk of every group. The heads
    of a `[B*H]` dim folded from `[B, H]` are `_S(0, B)`: each device holds
    its heads of every batch, laid one after the other in its local tensor
    (of the tensor's rank). `split` must divide every device's piece. Where
    the axis's size divides each group this is DTensor's _StridedShard; where
    it does not, DTensor cuts the piece into `split` times the axis's size
    chunks, while shardc takes torch.chunk of each group (the cut of the
    head loop the dim folds).

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), R]>
    #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), _S(0, 2)]>
    ```
  }];
  let parameters = (ins "MeshAttr":$mesh,
                        ArrayRefParameter<"::shardc::layout::Placement">:$placements);
  let assemblyFormat = [{
    `<` `mesh` `=` custom<MeshRef>($mesh) `,`
        `placements` `=` custom<PlacementList>($placements) `>`
  }];
  let genVerifyDecl = 1;
}

def Shard_OpShardingAttr : Shard_Attr<"OpSharding", "sharding"> {
  let summary = "An op's sharding: the loop each mesh axis cuts";
  let description = [{
    The decision -shard-propagate makes for an op with a sharding rule,
    written on the op as `shard.sharding` and read by -shard-spmd-partition:
    for each axis of the mesh, the loop of the op's rule it cuts (`dK`: loop
    K; `-`: none, the op runs whole along that axis). A user may pin it:
    propagation honours it or says why it cannot.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %c = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d0, d2]>}
        ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    ```

    On a 2x2 mesh this cuts the rows (loop 0) on axis 0 and the contracted
    dim (loop 2) on axis 1: the result is partial on axis 1.

    `dK strided N` cuts loop K strided (DTensor's _StridedShard): every dim
    the loop indexes is `_S(dim, N)`, the piece the outer axes left viewed
    as N groups, each cut by torch.chunk (a batched matmul over [B*H]
    whose heads are cut on every batch: `d0 strided 2` for B = 2).

    `reads`, when present, says per operand (then per tensor its regions
    read from outside it) the layout the op reads it in where that is not
    the one its loops give (`unit` where it is): an operand kept cut along
    a window (`tensor.extract_slice` of a dim its layout cuts, `tensor.pad`,
    `tensor.concat`), or one of several blocks per rank read as it is. The
    op's rule decides which it may be (-shard-propagate and
    -shard-spmd-partition refuse any other):

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    %s = tensor.extract_slice %x[0, 2] [8, 4] [1, 1] {shard.sharding = #shard.sharding<mesh = #m, loops = [-], reads = [#shard.placements<mesh = #m, placements = [S(1)]>]>}
        : tensor<8x8xf32> to tensor<8x4xf32>
    ```
  }];
  let parameters = (ins "MeshAttr":$mesh,
                        ArrayRefParameter<"int64_t">:$loops,
                        OptionalArrayRefParameter<"int64_t">:$splits,
                        OptionalParameter<"::mlir::ArrayAttr">:$reads);
  let assemblyFormat = [{
    `<` `mesh` `=` custom<MeshRef>($mesh) `,`
        `loops` `=` custom<AxisLoops>($loops, $splits)
        (`,` `reads` `=` $reads^)? `>`
  }];
  let genVerifyDecl = 1;
}

def Shard_ShardingRuleAttr : Shard_Attr<"ShardingRule", "rule"> {
  let summary = "An op's sharding rule: which loop indexes each tensor dim";
  let description = [{
    The rule of an op with loops (shardc/Dialect/ShardingRule.h): per
    operand (then per tensor its regions read from outside it) and per
    result, the loop that indexes each dim (`dK`; `_`: none, the dim is
    needed whole; `[]`: the operand is not a ranked tensor), the loops'
    sizes, and what else partitioning needs (a matmul's rule):

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    #shard.rule<([d0, d2], [d2, d1], [d0, d1]) -> ([d0, d1]) {d0=8, d1=4, d2=16} reduction={d2} combiners=[sum] inits=[2] linear=[[0, 2], [1, 2]]>
    ```

    `reduction` lists the reduction loops (results are not indexed by
    them), `combiners` per result the reduction that combines partial
    results (`none`: not known, such loops may not be cut), `inits` per
    result the operand holding its initial value (`none`),
    `unshardable={dK: "why"}` loops that may not be cut,
    `unstrided={dK: "why"}` loops that may not be cut strided (the op's
    partition needs one offset per rank along them: a payload reading
    its index, a lookup's rows; a window's loop may not either),
    `folds={dK*F}`
    loops that index a folded dim as its outer factor over F inner
    elements, `windows={N: [_, dK]}` per operand the loop whose window
    of a dim the op reads, and `linear=[[0, 2], [1, 2]]` the groups of
    operands every result is linear in (read P(sum) on an axis that cuts
    no loop, they make the results P(sum) there). Rules come from ShardingRuleOpInterface;
    -shard-print-sharding-rules writes each op's as `shard.sharding_rule`,
    and an op without the interface that carries one is sharded by it
    (docs/partition.md). Verified alone (every loop named exists, a
    reduction loop indexes no result, ...) and against its op
    (shardc::verifyRuleFor: counts, ranks and sizes).
  }];
  let parameters = (ins AttrParameter<"::shardc::ShardingRule", "the rule",
                                      "const ::shardc::ShardingRule &">:$rule);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // SHARDC_DIALECT_SHARDATTRS_TD
