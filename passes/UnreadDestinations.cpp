//===- UnreadDestinations.cpp - Destinations no op reads ------------------===//
//
// A step of -shard-propagate (UnreadDestinations.h).
//
//===----------------------------------------------------------------------===//

#include "UnreadDestinations.h"

#include "shardc/Dialect/PartitionContext.h"
#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace shardc;

namespace {

/// The operands of `op` whose elements it never reads and overwrites all
/// of (destinations passed only to be written): a pack's or unpack's
/// dest, an insert_slice's dest that the slice fills, an all-parallel
/// linalg op's init its payload does not read.
SmallVector<OpOperand *> unreadDestinations(Operation *op) {
  SmallVector<OpOperand *> unread;
  if (auto pack = dyn_cast<linalg::PackOp>(op)) {
    unread.push_back(&pack.getDestMutable());
  } else if (auto unpack = dyn_cast<linalg::UnPackOp>(op)) {
    unread.push_back(&unpack.getDestMutable());
  } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    // A slice that is all of its destination (zero offsets, unit strides,
    // the destination's static sizes).
    RankedTensorType dest = insert.getDestType();
    auto zero = [](OpFoldResult v) { return isConstantIntValue(v, 0); };
    auto one = [](OpFoldResult v) { return isConstantIntValue(v, 1); };
    std::optional<SmallVector<int64_t>> sizes =
        getConstantIntValues(insert.getMixedSizes());
    if (dest.hasStaticShape() && llvm::all_of(insert.getMixedOffsets(), zero) &&
        llvm::all_of(insert.getMixedStrides(), one) && sizes &&
        llvm::equal(*sizes, dest.getShape()))
      unread.push_back(&insert.getDestMutable());
  } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    // Every loop parallel: each element of the result is written once, by
    // the payload, from the inputs alone (a reduction's init is its
    // starting value even where the payload reads it through the result).
    if (!linalgOp.hasPureTensorSemantics() ||
        linalgOp.getNumLoops() != linalgOp.getNumParallelLoops())
      return unread;
    // Each element written: the init's map a permutation of all the loops
    // (a constant, an offset, a stride, a diagonal or a dropped loop of
    // no trips leaves elements as they were).
    for (OpOperand &init : linalgOp.getDpsInitsMutable())
      if (!linalgOp.payloadUsesValueFromOperand(&init) &&
          linalgOp.getMatchingIndexingMap(&init).isPermutation())
        unread.push_back(&init);
  }
  return unread;
}

} // namespace

void shardc::emptyUnreadDestinations(ArrayRef<func::FuncOp> funcs) {
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    SmallVector<OpOperand *> unread;
    func.walk([&](Operation *op) {
      if (enclosingRuleOp(op))
        return;
      for (OpOperand *operand : unreadDestinations(op)) {
        Value dest = operand->get();
        auto type = dyn_cast<RankedTensorType>(dest.getType());
        Operation *producer = dest.getDefiningOp();
        if (!type || isa_and_nonnull<tensor::EmptyOp, ConstraintOp>(producer))
          continue;
        unread.push_back(operand);
      }
    });
    for (OpOperand *operand : unread) {
      Value dest = operand->get();
      auto type = cast<RankedTensorType>(dest.getType());
      OpBuilder b(operand->getOwner());
      Location loc = operand->getOwner()->getLoc();
      // Its sizes, read of it where they are dynamic (a tensor.dim).
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, dest);
      Value empty = tensor::EmptyOp::create(
          b, loc, sizes, type.getElementType(), type.getEncoding());
      operand->set(empty);
    }
  }
}
