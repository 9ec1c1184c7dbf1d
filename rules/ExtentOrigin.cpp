//===- ExtentOrigin.cpp - Where a dynamic extent comes from ---------------===//

#include "shardc/Rules/ExtentOrigin.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace shardc;

// Declared, and described, in shardc/Rules/ExtentOrigin.h.

std::pair<Value, int64_t> shardc::extentOrigin(Value tensor, int64_t d) {
  for (int steps = 0; steps < 256; ++steps) {
    Operation *def = tensor.getDefiningOp();
    auto type = dyn_cast<RankedTensorType>(tensor.getType());
    if (!def || !type || d >= type.getRank())
      break;
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
