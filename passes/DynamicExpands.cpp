//===- DynamicExpands.cpp - Expands the strided-metadata expansion takes -===//
//
// -shard-dynamic-expands: every tensor.expand_shape that splits one dim
// into two or more dims of run-time size (torch-mlir's aten.linear on a
// [B?, S?, K] input: the matmul's [B*S, N] rows expanded back into [B, S,
// N]) is written as the tensor.reshape of its source into the same shape
// (the same elements in the same order; the shape a tensor.from_elements
// of the sizes). Upstream MLIR 22's -expand-strided-metadata crashes
// (memref::ReinterpretCastOp::build reading a dynamic stride as a
// constant) on the memref.expand_shape bufferization makes of such a
// split; a reshape bufferizes to memref.reshape, which lowers. The
// shard-to-llvm pipeline (which shard-run lowers with) runs this pass
// before bufferizing.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDDYNAMICEXPANDS
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Whether `expand` splits a dim into two or more dims of run-time size.
bool splitsIntoDynamicDims(tensor::ExpandShapeOp expand) {
  RankedTensorType result = expand.getResultType();
  return llvm::any_of(expand.getReassociationIndices(),
                      [&](const ReassociationIndices &group) {
                        return llvm::count_if(group, [&](int64_t d) {
                                 return result.isDynamicDim(d);
                               }) > 1;
                      });
}

struct ShardDynamicExpandsPass
    : shardc::impl::ShardDynamicExpandsBase<ShardDynamicExpandsPass> {
  void runOnOperation() override {
    SmallVector<tensor::ExpandShapeOp> expands;
    getOperation().walk([&](tensor::ExpandShapeOp expand) {
      if (splitsIntoDynamicDims(expand))
        expands.push_back(expand);
    });
    for (tensor::ExpandShapeOp expand : expands) {
      OpBuilder b(expand);
      Location loc = expand.getLoc();
      SmallVector<Value> sizes;
      for (OpFoldResult size : expand.getMixedOutputShape())
        sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
      Value shape = tensor::FromElementsOp::create(b, loc, sizes);
      Value reshaped = tensor::ReshapeOp::create(b, loc, expand.getResultType(),
                                                 expand.getSrc(), shape);
      expand.replaceAllUsesWith(reshaped);
      expand.erase();
    }
  }
};

} // namespace
