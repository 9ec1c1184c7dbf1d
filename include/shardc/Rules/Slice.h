//===- Slice.h - One rule for every slice of static offsets -----*- C++ -*-===//
//
// tensor.extract_slice and tosa.slice take one rule (rules/TensorRules.cpp):
// a dim the slice takes whole is cut alike in source and result, and a
// sliced dim is the window of its result dim's loop, so that cutting it
// moves only the part each rank reads.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_SLICE_H
#define SHARDC_RULES_SLICE_H

#include "shardc/Dialect/Shard.h"
#include "shardc/Dialect/ShardingRule.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace shardc {

/// The rule of `op`, a slice of `source` (operand 0) into `result` at
/// `offsets` (kDynamic: a run-time offset, or a dim the slice takes a
/// run-time size of), `sizes` (kDynamic where a dynamic dim is taken whole,
/// or at run time) and static `strides` (one each per source dim), dropping the
/// unit dims `dropped`: one loop per result dim; a source dim taken whole (from
/// 0, all of it, stride 1) indexed by its result dim's loop, any other the
/// window of that loop (none in a slice at a run-time offset: such a dim is
/// read whole, each rank slicing its part of the result from it); dropped dims
/// by none. Every other operand of `op` is read whole.
ShardingRule sliceRule(mlir::Operation *op, mlir::RankedTensorType source,
                       mlir::RankedTensorType result,
                       llvm::ArrayRef<int64_t> offsets,
                       llvm::ArrayRef<int64_t> sizes,
                       llvm::ArrayRef<int64_t> strides,
                       const llvm::SmallBitVector &dropped);

/// Where a slice of static offsets, sizes and strides lies in its source
/// (per source dim; `dropped`: the unit dims it drops).
struct SliceGeometry {
  llvm::SmallVector<int64_t> offsets, sizes, strides;
  llvm::SmallBitVector dropped;
  /// A tensor.extract_slice's (static offsets and strides).
  static SliceGeometry of(mlir::tensor::ExtractSliceOp slice);
};

/// The part of the slice a source block holds: per source dim, where it
/// starts in the block, and the first and end index of the slice it holds
/// (the part's box in the result, over the kept dims).
struct SlicePart {
  llvm::SmallVector<int64_t> inBlock, first, end;
  layout::Box box;
  bool empty() const { return box.empty(); }
};
std::optional<SlicePart> slicePartOf(const SliceGeometry &slice,
                                     const layout::Box &block);

/// The slice's result as each rank holds its parts when its source is laid
/// out as `layout` and each rank slices what its block holds, nothing
/// moved (an enumerable layout); null where some block cannot (a block
/// without a dropped index it holds elements around).
ShardingSpecAttrInterface slicePartsLayout(mlir::MLIRContext *ctx,
                                           llvm::ArrayRef<int64_t> sourceShape,
                                           const SliceGeometry &slice,
                                           ShardingSpecAttrInterface layout);

} // namespace shardc

#endif // SHARDC_RULES_SLICE_H
