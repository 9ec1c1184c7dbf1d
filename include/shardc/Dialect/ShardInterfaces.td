//===- ShardInterfaces.td - Sharding spec interface --------*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDINTERFACES_TD
#define SHARDC_DIALECT_SHARDINTERFACES_TD

include "mlir/IR/OpBase.td"

def Shard_ShardingSpecAttrInterface : AttrInterface<"ShardingSpecAttrInterface"> {
  let cppNamespace = "::shardc";
  let description = [{
    A sharding spec: something that, given a tensor shape, yields the list of
    blocks (offsets, sizes, placement) the tensor is cut into.
  }];
  let methods = [
    InterfaceMethod<[{
        Materializes the blocks of this spec for a tensor of `shape` into
        `blocks`. Fails, emitting through `emitError`, when the spec cannot
        apply to the shape at all (a chunk dim out of range). It does not
        check overlap or coverage: see `verifyBlocks`.
      }],
      "::llvm::LogicalResult", "getBlocks",
      (ins "::llvm::ArrayRef<int64_t>":$shape,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "std::vector<::shardc::layout::Block> &":$blocks)>,
    InterfaceMethod<[{
        Every device's block, replicas included (a mesh spec with Replicate
        or Partial axes lists a block once per device that holds it). By
        default the blocks of `getBlocks`.
      }],
      "::llvm::LogicalResult", "getDeviceBlocks",
      (ins "::llvm::ArrayRef<int64_t>":$shape,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "std::vector<::shardc::layout::Block> &":$blocks), [{}], [{
        return $_attr.getBlocks(shape, emitError, blocks);
      }]>,
    InterfaceMethod<[{
        Whether some device holds a partial value (DTensor's Partial) that a
        reduction must combine.
      }],
      "bool", "hasPartial", (ins), [{}], [{ return false; }]>,
  ];
}

#endif // SHARDC_DIALECT_SHARDINTERFACES_TD
