//===- ExtentOrigin.cpp - Where a dynamic extent comes from ---------------===//

#include "shardc/Rules/ExtentOrigin.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace shardc;

// Declared, and described, in shardc/Rules/ExtentOrigin.h.

/// extentOrigin, not following back the loops' region arguments in
/// `checking` (whose yields are being followed back to them).
static std::pair<Value, int64_t> originOf(Value tensor, int64_t d,
                                          SmallVectorImpl<Value> &checking);

/// The value a loop's region argument `arg` has at dim `d` the extent of,
/// where every trip yields a value of its extent there (the yield's origin
/// is the argument's): its init. Null else.
static Value loopInitOfSameExtent(BlockArgument arg, int64_t d,
                                  SmallVectorImpl<Value> &checking) {
  auto loop = dyn_cast<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
  if (!loop || llvm::is_contained(checking, Value(arg)))
    return nullptr;
  // Loops whose region arguments are their inits' (scf.for; not scf.while,
  // whose interface lists no inits: its getTiedLoopInit would index past
  // them).
  Block::BlockArgListType iterArgs = loop.getRegionIterArgs();
  auto at = llvm::find(iterArgs, arg);
  if (at == iterArgs.end() || loop.getInits().size() != iterArgs.size())
    return nullptr;
  Value init = loop.getInits()[std::distance(iterArgs.begin(), at)];
  OpOperand *yielded = loop.getTiedLoopYieldedValue(arg);
  if (!yielded)
    return nullptr;
  checking.push_back(arg);
  const bool same = originOf(yielded->get(), d, checking) ==
                    std::pair<Value, int64_t>(arg, d);
  checking.pop_back();
  return same ? init : nullptr;
}

std::pair<Value, int64_t> shardc::extentOrigin(Value tensor, int64_t d) {
  SmallVector<Value> checking;
  return originOf(tensor, d, checking);
}

static std::pair<Value, int64_t> originOf(Value tensor, int64_t d,
                                          SmallVectorImpl<Value> &checking) {
  for (int steps = 0; steps < 256; ++steps) {
    Operation *def = tensor.getDefiningOp();
    auto type = dyn_cast<RankedTensorType>(tensor.getType());
    if (!type || d >= type.getRank())
      break;
    // A loop's region argument or result, of its init's extent where every
    // trip keeps it (an RNN's [B?, S, H] buffer written step by step).
    if (auto arg = dyn_cast<BlockArgument>(tensor)) {
      Value init = loopInitOfSameExtent(arg, d, checking);
      if (!init)
        break;
      tensor = init;
      continue;
    }
    if (auto loop = dyn_cast<LoopLikeOpInterface>(def)) {
      std::optional<ResultRange> results = loop.getLoopResults();
      Value init;
      if (results)
        for (auto [i, result] : llvm::enumerate(*results))
          if (result == tensor && i < loop.getRegionIterArgs().size())
            init =
                loopInitOfSameExtent(loop.getRegionIterArgs()[i], d, checking);
      if (!init)
        break;
      tensor = init;
      continue;
    }
    if (auto empty = dyn_cast<tensor::EmptyOp>(def)) {
      if (Value size = dyn_cast<Value>(empty.getMixedSizes()[d]))
        return sizeOrigin(size);
      break;
    }
    Value next;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
      next = dps.getDpsInitOperand(cast<OpResult>(tensor).getResultNumber())
                 ->get();
    else if (auto castOp = dyn_cast<tensor::CastOp>(def))
      next = castOp.getSource();
    else if (auto constraint = dyn_cast<ConstraintOp>(def))
      next = constraint.getInput();
    else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
      // A dim the slice takes whole (at 0, stride 1, of the source's own
      // size): the source's, in its numbering (dropped dims skipped).
      llvm::SmallBitVector dropped = slice.getDroppedDims();
      int64_t sd = -1;
      for (int64_t k = 0, r = 0; k < slice.getSourceType().getRank(); ++k) {
        if (dropped.test(k))
          continue;
        if (r++ == d)
          sd = k;
      }
      if (sd >= 0 && takesDynamicDimWhole(slice, sd)) {
        next = slice.getSource();
        d = sd;
      }
    } else if (def->hasTrait<OpTrait::Elementwise>())
      for (Value operand : def->getOperands())
        if (auto t = dyn_cast<RankedTensorType>(operand.getType());
            t && t.getRank() == type.getRank()) {
          next = operand;
          break;
        }
    if (!next)
      break;
    tensor = next;
  }
  return {tensor, d};
}

std::pair<Value, int64_t> shardc::sizeOrigin(Value size) {
  if (auto dim = size.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> index = dim.getConstantIndex())
      return extentOrigin(dim.getSource(), *index);
  return {size, -1};
}

bool shardc::takesDynamicDimWhole(tensor::ExtractSliceOp slice, int64_t d) {
  auto size = dyn_cast<Value>(slice.getMixedSizes()[d]);
  return size && getConstantIntValue(slice.getMixedOffsets()[d]) == 0 &&
         getConstantIntValue(slice.getMixedStrides()[d]) == 1 &&
         sizeOrigin(size) == extentOrigin(slice.getSource(), d);
}
