//===- Reshape.h - The sharding rule of a reshape ---------------*- C++ -*-===//
//
// One rule for every op that folds or splits dims (tensor.expand_shape,
// tensor.collapse_shape, tosa.reshape): one loop per dim of the expanded
// tensor; a folded dim is indexed by its group's outermost loop of more than
// one step, with the product of the inner ones as its inner factor
// (ShardingRule::Loop::innerFactor).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_RESHAPE_H
#define SHARDC_RULES_RESHAPE_H

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "llvm/ADT/SmallBitVector.h"

namespace shardc {

/// The rule of a reshape of `op` between `expanded` and `collapsed` by
/// `reassociation` (the expanded dims each collapsed dim folds), with the
/// expanded tensor as operand (a collapse) or as result (an expand). Every
/// other operand of `op` is indexed by none.
mlir::FailureOr<ShardingRule>
reshapeRule(mlir::Operation *op, mlir::RankedTensorType expanded,
            mlir::RankedTensorType collapsed,
            llvm::ArrayRef<mlir::ReassociationIndices> reassociation,
            bool expandedIsOperand);

} // namespace shardc

namespace shardc {

/// The dims of a full-rank tensor grouped around the kept ones of a
/// rank-reduced one (`dropped` marks the unit dims it lacks): the
/// reassociation that collapses the unit dims away, or expands them back.
mlir::SmallVector<mlir::ReassociationIndices>
groupsAround(const llvm::SmallBitVector &dropped);

} // namespace shardc

#endif // SHARDC_RULES_RESHAPE_H
