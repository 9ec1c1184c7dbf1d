//===- TensorCast.h - A tensor as another static-ness -----------*- C++ -*-===//
//
// For the passes and the rules' partition hooks: a cast between static-nesses
// and the slice of a whole value that is this rank's block.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_TENSORCAST_H
#define SHARDC_RULES_TENSORCAST_H

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace shardc {

/// `value` as a tensor of `type`, through tensor.cast when they differ (only
/// in which dims are static).
inline mlir::Value castTo(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::Value value, mlir::Type type) {
  if (value.getType() == type)
    return value;
  return mlir::tensor::CastOp::create(builder, loc, type, value);
}

/// This rank's block of `whole` (a value every rank holds whole), laid out
/// as `global`: a tensor.extract_slice at this rank's offsets and sizes,
/// made at the builder's insertion point.
inline mlir::Value sliceOwnBlock(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Operation *inside, mlir::Value whole,
                                 ShardedTensorType global,
                                 PartitionContext &context) {
  mlir::RankedTensorType local = getLocalType(global);
  llvm::SmallVector<mlir::OpFoldResult> strides(local.getRank(),
                                                b.getIndexAttr(1));
  return mlir::tensor::ExtractSliceOp::create(
      b, loc, local, whole, context.localOffsets(b, loc, inside, global),
      context.localSizes(b, loc, inside, global), strides);
}

} // namespace shardc

#endif // SHARDC_RULES_TENSORCAST_H
