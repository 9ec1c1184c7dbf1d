//===- Padding.h - What a tensor.pad's paddings must be ---------*- C++ -*-===//
//
// The check every reader of a tensor.pad's paddings makes first: its rule
// (rules/TensorPlaceRules.cpp) and -shard-lower-to-runtime.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_PADDING_H
#define SHARDC_RULES_PADDING_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace shardc {

/// Refuses, at the op, a tensor.pad that names more dynamic paddings than
/// it has values: a static padding of INT64_MIN reads as a dynamic one,
/// which tensor.pad's verifier lets through, and whatever reads the
/// paddings (getMixedLowPad, bufferization, the printer) then reads an
/// operand that is not there.
mlir::LogicalResult checkPaddingValues(mlir::tensor::PadOp pad);

} // namespace shardc

#endif // SHARDC_RULES_PADDING_H
