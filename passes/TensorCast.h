//===- TensorCast.h - A tensor as another static-ness, for the passes -*- C++
//-*-===//

#ifndef SHARDC_PASSES_TENSORCAST_H
#define SHARDC_PASSES_TENSORCAST_H

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

} // namespace shardc

#endif // SHARDC_PASSES_TENSORCAST_H
