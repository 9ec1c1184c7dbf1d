//===- TensorCast.h - A tensor as another static-ness -----------*- C++ -*-===//
//
// For the passes and the rules' partition hooks.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_TENSORCAST_H
#define SHARDC_RULES_TENSORCAST_H

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

#endif // SHARDC_RULES_TENSORCAST_H
