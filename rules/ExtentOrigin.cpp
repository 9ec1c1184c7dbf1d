//===- ExtentOrigin.cpp - Where a dynamic extent comes from ---------------===//

#include "shardc/Rules/ExtentOrigin.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace shardc;

// Declared, and described, in shardc/Rules/ExtentOrigin.h.

namespace {

/// One query's walk: the loops' region arguments whose yields are being
/// followed back to them (a walk reaching one stops there: a yield traced
/// back through a tensor.dim of its own argument would come round again),
/// and the steps left to the whole query, nested walks included (each
/// loop's yield walked again per query through it: a bound, not a
/// 256-step walk per nested call). A walk cut short ends at a value of the
/// same extent as where it began: two such ends are equal only where the
/// extents are.
struct Trace {
  SmallVector<Value> checking;
  int stepsLeft = 4096;
};

std::pair<Value, int64_t> originOf(Value tensor, int64_t d, Trace &trace);

std::pair<Value, int64_t> sizeOriginOf(Value size, Trace &trace) {
  if (auto dim = size.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> index = dim.getConstantIndex())
      return originOf(dim.getSource(), *index, trace);
  return {size, -1};
}

bool takesWhole(tensor::ExtractSliceOp slice, int64_t d, Trace &trace) {
  auto size = dyn_cast<Value>(slice.getMixedSizes()[d]);
  return size && getConstantIntValue(slice.getMixedOffsets()[d]) == 0 &&
         getConstantIntValue(slice.getMixedStrides()[d]) == 1 &&
         sizeOriginOf(size, trace) == originOf(slice.getSource(), d, trace);
}

/// The value a loop's region argument `arg` has at dim `d` the extent of,
/// where every trip yields a value of its extent there (the yield's origin
/// is the argument's): its init. Null else.
Value loopInitOfSameExtent(BlockArgument arg, int64_t d, Trace &trace) {
  auto loop = dyn_cast<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
  if (!loop || llvm::is_contained(trace.checking, Value(arg)))
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
  trace.checking.push_back(arg);
  const bool same =
      originOf(yielded->get(), d, trace) == std::pair<Value, int64_t>(arg, d);
  trace.checking.pop_back();
  return same ? init : nullptr;
}

std::pair<Value, int64_t> originOf(Value tensor, int64_t d, Trace &trace) {
  for (; trace.stepsLeft > 0; --trace.stepsLeft) {
    Operation *def = tensor.getDefiningOp();
    auto type = dyn_cast<RankedTensorType>(tensor.getType());
    if (!type || d >= type.getRank())
      break;
    // A loop's region argument or result, of its init's extent where every
    // trip keeps it (an RNN's [B?, S, H] buffer written step by step).
    if (auto arg = dyn_cast<BlockArgument>(tensor)) {
      Value init = loopInitOfSameExtent(arg, d, trace);
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
            init = loopInitOfSameExtent(loop.getRegionIterArgs()[i], d, trace);
      if (!init)
        break;
      tensor = init;
      continue;
    }
    if (auto empty = dyn_cast<tensor::EmptyOp>(def)) {
      if (Value size = dyn_cast<Value>(empty.getMixedSizes()[d]))
        return sizeOriginOf(size, trace);
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
      if (sd >= 0 && takesWhole(slice, sd, trace)) {
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

} // namespace

std::pair<Value, int64_t> shardc::extentOrigin(Value tensor, int64_t d) {
  Trace trace;
  return originOf(tensor, d, trace);
}

std::pair<Value, int64_t> shardc::sizeOrigin(Value size) {
  Trace trace;
  return sizeOriginOf(size, trace);
}

bool shardc::takesDynamicDimWhole(tensor::ExtractSliceOp slice, int64_t d) {
  Trace trace;
  return takesWhole(slice, d, trace);
}
