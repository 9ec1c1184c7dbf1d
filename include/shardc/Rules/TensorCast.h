//===- TensorCast.h - A tensor as another static-ness -----------*- C++ -*-===//
//
// For the passes and the rules' partition hooks: a cast between static-nesses
// and the slice of a whole value that is this rank's block.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_TENSORCAST_H
#define SHARDC_RULES_TENSORCAST_H

#include "shardc/Dialect/PartitionContext.h"
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
/// as `global`, made at the builder's insertion point: a tensor.extract_slice
/// at this rank's offsets and sizes; under a strided layout, whose rank
/// holds rows of several groups at no one offset, each of its boxes sliced
/// and placed one after the other in its local tensor (rules/OwnBlock.cpp).
mlir::Value sliceOwnBlock(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Operation *inside, mlir::Value whole,
                          ShardedTensorType global, PartitionContext &context);

} // namespace shardc

#endif // SHARDC_RULES_TENSORCAST_H
