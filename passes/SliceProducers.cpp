//===- SliceProducers.cpp - Slices computed where the blocks are ----------===//
//
// -shard-propagate's second step (SliceProducers.h).
//
//===----------------------------------------------------------------------===//

#include "SliceProducers.h"

#include "FunctionAttrs.h"
#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/LoopSharding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace shardc;

namespace {

/// Whether `layout` of a tensor of type `type` is not a mesh layout.
bool severalBlocks(Attribute layout, Type type) {
  auto spec = dyn_cast_or_null<ShardingSpecAttrInterface>(layout);
  auto tensor = dyn_cast<RankedTensorType>(type);
  return spec && tensor && tensor.hasStaticShape() &&
         !asMeshLayout(spec, tensor.getShape());
}

/// The box of a unit-stride, full-rank slice with static offsets and sizes.
std::optional<layout::Box> boxOf(tensor::ExtractSliceOp slice) {
  auto offsets = getConstantIntValues(slice.getMixedOffsets());
  auto strides = getConstantIntValues(slice.getMixedStrides());
  if (!offsets || !strides || !slice.getSizes().empty() ||
      slice.getType().getRank() != slice.getSourceType().getRank() ||
      llvm::any_of(*strides, [](int64_t s) { return s != 1; }))
    return std::nullopt;
  return layout::Box{std::vector<int64_t>(offsets->begin(), offsets->end()),
                     std::vector<int64_t>(slice.getStaticSizes().begin(),
                                          slice.getStaticSizes().end())};
}

/// Replaces every slice of `op`'s one result by the op computed on slices
/// of its operands, when every use is such a slice, no two overlap and
/// none is the whole (the caller erases `op` then). Whether it replaced any.
/// The linalg ops whose results the tiled ops now read through slices (a fill
/// the op's init was) are added to `next`.
bool sliceOne(linalg::LinalgOp op, SmallVectorImpl<Operation *> &next) {
  Value result = op->getResult(0);
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || !type.hasStaticShape() || result.use_empty())
    return false;
  SmallVector<tensor::ExtractSliceOp> slices;
  std::vector<layout::Box> boxes;
  for (Operation *user : result.getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || slice.getSource() != result)
      return false;
    std::optional<layout::Box> box = boxOf(slice);
    if (!box || box->sizes == type.getShape().vec())
      return false;
    for (const layout::Box &other : boxes)
      if (layout::overlaps(*box, other))
        return false;
    boxes.push_back(*box);
    slices.push_back(slice);
  }
  auto tiling = cast<TilingInterface>(op.getOperation());
  bool any = false;
  for (tensor::ExtractSliceOp slice : slices) {
    OpBuilder b(slice);
    FailureOr<TilingResult> tile = tiling.generateResultTileValue(
        b, 0, slice.getMixedOffsets(), slice.getMixedSizes());
    if (failed(tile) || tile->tiledValues.size() != 1)
      continue;
    for (Operation *tiled : tile->tiledOps)
      for (Value operand : tiled->getOperands())
        if (auto read = operand.getDefiningOp<tensor::ExtractSliceOp>())
          if (auto producer =
                  read.getSource().getDefiningOp<linalg::LinalgOp>())
            next.push_back(producer);
    Value value = tile->tiledValues.front();
    if (value.getType() != slice.getType())
      value = tensor::CastOp::create(b, slice.getLoc(), slice.getType(), value);
    slice.getResult().replaceAllUsesWith(value);
    slice.erase();
    any = true;
  }
  return any;
}

} // namespace

void shardc::sliceProducers(ModuleOp module) {
  SmallVector<func::FuncOp> changed;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    // The values laid out in several blocks, and what is computed from
    // them, in program order.
    llvm::DenseSet<Value> fed;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (severalBlocks(func.getArgAttr(i, kLayoutAttr),
                        func.getArgument(i).getType()))
        fed.insert(func.getArgument(i));
    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](Operation *op) {
      if (auto constraint = dyn_cast<ConstraintOp>(op)) {
        if (severalBlocks(constraint.getLayout(), constraint.getType()))
          fed.insert(constraint.getResult());
        else if (fed.contains(constraint.getInput()))
          fed.insert(constraint.getResult());
        return;
      }
      if (!llvm::any_of(op->getOperands(),
                        [&](Value v) { return fed.contains(v); }))
        return;
      for (Value result : op->getResults())
        fed.insert(result);
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (linalgOp && linalgOp.hasPureTensorSemantics() &&
          op->getNumResults() == 1 && isa<TilingInterface>(op))
        candidates.push_back(linalgOp);
    });
    if (fed.empty())
      return;
    // Consumers first, so that a producer's uses are slices by its turn.
    bool any = false;
    SmallVector<Operation *> work;
    for (linalg::LinalgOp op : candidates)
      work.push_back(op);
    llvm::DenseSet<Operation *> erased;
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (erased.contains(op))
        continue;
      auto linalgOp = cast<linalg::LinalgOp>(op);
      if (!linalgOp.hasPureTensorSemantics() || op->getNumResults() != 1 ||
          !isa<TilingInterface>(op))
        continue;
      SmallVector<Operation *> next;
      any |= sliceOne(linalgOp, next);
      if (op->getResult(0).use_empty()) {
        erased.insert(op);
        op->erase();
      }
      llvm::append_range(work, next);
    }
    if (any)
      changed.push_back(func);
  });
  if (changed.empty())
    return;
  // The slices of the inits the tiled ops read: of a fill, a fill of the
  // slice; of an empty tensor, an empty tensor of its size (and slices that
  // take a whole tensor fold away).
  RewritePatternSet patterns(module.getContext());
  linalg::populateSwapExtractSliceWithFillPatterns(patterns);
  tensor::populateFoldTensorEmptyPatterns(patterns);
  FrozenRewritePatternSet frozen(std::move(patterns));
  for (func::FuncOp func : changed)
    (void)applyPatternsGreedily(func, frozen);
}
