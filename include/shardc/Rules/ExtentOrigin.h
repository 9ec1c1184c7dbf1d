//===- ExtentOrigin.h - Where a dynamic extent comes from -------*- C++ -*-===//
//
// Tracing a tensor's dynamic dim back to what gives it its extent: the
// extract_slice rule (a dynamic size that takes a dim whole) and the
// partition (the run-time extent of a dim a layout cuts) ask it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_EXTENTORIGIN_H
#define SHARDC_RULES_EXTENTORIGIN_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Value.h"

#include <utility>

namespace shardc {

/// Where dim `d` of `tensor` gets its extent: followed back through ops
/// whose result has that dim of an operand (destination-passing ops from
/// their init, casts, layout constraints, elementwise ops, slices taking it
/// whole; a loop's carried value or result to its init, where every trip
/// yields a value of that origin) to a tensor.empty's size operand (and on,
/// through sizeOrigin: {size, -1}), or else the tensor and dim reached. Two
/// dims with one origin have one extent (a dynamic slice size proven whole by
/// it; the partition's run-time extent of a cut dim).
std::pair<mlir::Value, int64_t> extentOrigin(mlir::Value tensor, int64_t d);

/// The origin of an index value: a tensor.dim's dim's origin, else itself
/// ({size, -1}). Every walk ends: a loop's yield followed back to its own
/// carried value stops there, and one query takes a bounded number of
/// steps in all (a walk cut short ends at a value of the same extent).
std::pair<mlir::Value, int64_t> sizeOrigin(mlir::Value size);

/// Whether `slice` takes dim `d` of its source (the source's numbering)
/// whole at a size only the run time knows: at 0, stride 1, a size whose
/// origin is the dim's own.
bool takesDynamicDimWhole(mlir::tensor::ExtractSliceOp slice, int64_t d);

} // namespace shardc

#endif // SHARDC_RULES_EXTENTORIGIN_H
