//===- StaticReshape.cpp - A row-major reshape between static shapes ------===//
//
// tosa.reshape and tensor.reshape of static shapes (its shape a tensor
// operand: StableHLO's and TOSA's lowerings write it so, and Triton's) are
// one reshape, the same element order in either shape: one rule and one
// partition (shardc/Rules/Reshape.h). A fold or split of dims is the rule
// of tensor.expand_shape / collapse_shape; dims of 1 dropped and inserted
// ([N, 1, 1, C] into [1, N, C]) keep each other dim's loop; any other
// reshape keeps every dim whole.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Reshape.h"

#include "shardc/Dialect/PartitionContext.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace shardc;

namespace {

/// The groups folding `shape` into its dims other than 1 (a unit dim joins
/// the group of the dim before it; leading ones, the first group).
SmallVector<ReassociationIndices> squeezeGroups(ArrayRef<int64_t> shape) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (shape[d] != 1) {
      groups.push_back(leading);
      groups.back().push_back(d);
      leading.clear();
    } else if (groups.empty()) {
      leading.push_back(d);
    } else {
      groups.back().push_back(d);
    }
  }
  return groups;
}

/// The dims of `shape` other than 1.
SmallVector<int64_t> nonUnitDims(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> dims;
  for (auto [d, size] : llvm::enumerate(shape))
    if (size != 1)
      dims.push_back(static_cast<int64_t>(d));
  return dims;
}

/// Whether a reshape of `source` into `result` only drops and inserts dims
/// of 1 (both have the same dims other than 1, in order, at least one):
/// [N, 1, 1, C] into [1, N, C], as TOSA writes a pooled image's way into a
/// tosa.matmul.
bool movesUnitDims(RankedTensorType source, RankedTensorType result) {
  SmallVector<int64_t> from = nonUnitDims(source.getShape());
  SmallVector<int64_t> to = nonUnitDims(result.getShape());
  return !from.empty() && from.size() == to.size() &&
         llvm::all_of(llvm::zip(from, to), [&](auto pair) {
           return source.getDimSize(std::get<0>(pair)) ==
                  result.getDimSize(std::get<1>(pair));
         });
}

/// The groups of a fold (`source` of higher rank) or split (lower) between
/// two static shapes; none where the ranks are equal or the dims do not
/// fold.
std::optional<SmallVector<ReassociationIndices>>
foldGroups(RankedTensorType source, RankedTensorType result) {
  if (source.getRank() > result.getRank())
    return getReassociationIndicesForReshape(result, source);
  if (source.getRank() < result.getRank())
    return getReassociationIndicesForReshape(source, result);
  return std::nullopt;
}

} // namespace

FailureOr<ShardingRule> shardc::staticReshapeRule(Operation *op) {
  if (failed(checkStaticShapes(op)))
    return failure();
  auto source = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<ShardingRule> rule = failure();
  const bool collapses = source.getRank() > result.getRank();
  if (std::optional<SmallVector<ReassociationIndices>> groups =
          foldGroups(source, result)) {
    rule = reshapeRule(op, collapses ? source : result,
                       collapses ? result : source, *groups, collapses);
  } else {
    std::vector<bool> tensors{true};
    for (Value operand : op->getOperands().drop_front())
      tensors.push_back(isa<RankedTensorType>(operand.getType()));
    rule = ShardingRule::elementwise(
        std::vector<int64_t>(result.getShape().begin(),
                             result.getShape().end()),
        tensors);
    rule->operands[0].assign(source.getRank(), -1);
    if (movesUnitDims(source, result)) {
      // Each dim other than 1 indexed by the result dim it becomes; the
      // op is linear in its input (a Partial input stays Partial).
      for (auto [from, to] : llvm::zip(nonUnitDims(source.getShape()),
                                       nonUnitDims(result.getShape())))
        rule->operands[0][from] = to;
      rule->linear = {{0}};
    } else {
      // Neither a fold nor a split of dims: every dim whole.
      for (ShardingRule::Loop &loop : rule->loops)
        loop.unshardable = "the reshape neither folds nor splits dims";
    }
  }
  if (failed(rule))
    return failure();
  // Another tensor operand (tensor.reshape's shape) is needed whole.
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (auto type = dyn_cast<RankedTensorType>(operand.getType());
        i > 0 && type)
      rule->operands[i].assign(type.getRank(), -1);
  return rule;
}

LogicalResult shardc::partitionStaticReshape(Operation *op,
                                             PartitionContext &context) {
  Value input = op->getOperand(0);
  Value output = op->getResult(0);
  ShardedTensorType global = context.globalOf(output);
  RankedTensorType local = getLocalType(global);
  if (local == RankedTensorType::get(global.getDims(), global.getElementType()))
    return success(); // Whole on every rank: the op as it is.
  // A dim is cut: the same fold or split of this rank's block.
  auto whole = [](ShardedTensorType type) {
    return RankedTensorType::get(type.getDims(), type.getElementType());
  };
  RankedTensorType source = whole(context.globalOf(input));
  RankedTensorType result = whole(global);
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value localValue;
  std::optional<SmallVector<ReassociationIndices>> groups =
      foldGroups(source, result);
  if (groups && source.getRank() > result.getRank()) {
    localValue = tensor::CollapseShapeOp::create(b, loc, local, input, *groups);
  } else if (groups) {
    localValue = tensor::ExpandShapeOp::create(
        b, loc, local, input, *groups, context.localSizes(b, loc, op, global));
  } else {
    // Dims of 1 dropped and inserted (movesUnitDims): the block folded
    // into its dims other than 1, then unfolded into the result's.
    localValue = input;
    if (nonUnitDims(source.getShape()).size() <
        static_cast<size_t>(source.getRank()))
      localValue = tensor::CollapseShapeOp::create(
          b, loc, localValue, squeezeGroups(source.getShape()));
    if (nonUnitDims(result.getShape()).size() <
        static_cast<size_t>(result.getRank()))
      localValue = tensor::ExpandShapeOp::create(
          b, loc, local, localValue, squeezeGroups(result.getShape()),
          context.localSizes(b, loc, op, global));
  }
  context.replace(output, localValue);
  op->erase();
  return success();
}
