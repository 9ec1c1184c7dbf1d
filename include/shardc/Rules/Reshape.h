//===- Reshape.h - The sharding rule of a reshape ---------------*- C++ -*-===//
//
// One rule for every op that folds or splits dims (tensor.expand_shape,
// tensor.collapse_shape, tosa.reshape, tensor.reshape): one loop per dim of the
// expanded tensor; a folded dim is indexed by its group's outermost loop of
// more than one step, with the product of the inner ones as its inner factor
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

/// The rule of a row-major reshape of `op`'s operand 0 into its result 0,
/// both of static shapes (tosa.reshape; tensor.reshape, its shape a tensor
/// operand, needed whole): a fold or split of dims (reshapeRule), dims of 1
/// dropped and inserted (each other dim keeps its loop), or every dim whole.
mlir::FailureOr<ShardingRule> staticReshapeRule(mlir::Operation *op);

/// Its partition: where a dim is cut, the same fold or split of this rank's
/// block (tensor.collapse_shape / expand_shape) replaces `op`; whole on
/// every rank, `op` as it is.
mlir::LogicalResult partitionStaticReshape(mlir::Operation *op,
                                           PartitionContext &context);

} // namespace shardc

namespace shardc {

/// The dims of a full-rank tensor grouped around the kept ones of a
/// rank-reduced one (`dropped` marks the unit dims it lacks): the
/// reassociation that collapses the unit dims away, or expands them back.
mlir::SmallVector<mlir::ReassociationIndices>
groupsAround(const llvm::SmallBitVector &dropped);

/// The unit dims a rank-reducing slice of static `sizes` (one per dim of
/// the full-rank tensor) drops to give a tensor of `reducedShape`, decided
/// as MLIR's tensor.extract_slice / insert_slice getDroppedDims decide them
/// (matched from the last dim, a size-1 dim kept where the reduced dim is
/// 1 too). For a slice whose rank-reduced tensor is a local block, pass
/// its global shape: the op's own getDroppedDims reads the local type.
llvm::SmallBitVector droppedDims(llvm::ArrayRef<int64_t> sizes,
                                 llvm::ArrayRef<int64_t> reducedShape);

} // namespace shardc

#endif // SHARDC_RULES_RESHAPE_H
