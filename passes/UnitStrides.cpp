//===- UnitStrides.cpp - Slices the strided-metadata expansion takes -----===//
//
// -shard-unit-strides: every tensor.extract_slice and tensor.insert_slice
// with a static size of 1 and a static stride other than 1 along some dim
// gets stride 1 there (one element is read or written there either way);
// a rank-reducing one with a stride other than 1 left is written as the
// slice at full rank and a tensor.collapse_shape of the dims it drops (an
// extract), or a tensor.expand_shape of its source and the insert at full
// rank. Upstream MLIR 22's -expand-strided-metadata crashes in
// memref::SubViewOp::getDroppedDims on the subview bufferization makes of
// a rank-reducing slice with another stride than 1 (whose dims of size 1
// are more than it drops, or all of size 1); the shard-to-llvm pipeline
// runs this pass before bufferizing.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDUNITSTRIDES
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// The strides of a slice of `sizes` and `strides`, each dim of static
/// size 1 at stride 1; nullopt where none changes.
std::optional<SmallVector<OpFoldResult>>
unitStrides(ArrayRef<OpFoldResult> sizes, ArrayRef<OpFoldResult> strides,
            Builder &b) {
  SmallVector<OpFoldResult> out(strides);
  bool changed = false;
  for (size_t d = 0; d < sizes.size() && d < strides.size(); ++d) {
    std::optional<int64_t> size = getConstantIntValue(sizes[d]);
    std::optional<int64_t> stride = getConstantIntValue(strides[d]);
    if (size == 1 && stride && *stride != 1) {
      out[d] = b.getIndexAttr(1);
      changed = true;
    }
  }
  if (!changed)
    return std::nullopt;
  return out;
}

/// Whether every stride is the constant 1.
bool allUnit(ArrayRef<OpFoldResult> strides) {
  return llvm::all_of(strides, [](OpFoldResult stride) {
    return getConstantIntValue(stride) == 1;
  });
}

/// The groups that fold the dims of a slice (of `rank` dims) into those it
/// keeps: each dropped dim joins the next kept one (those after the last
/// kept one, the last group); none where it keeps no dim.
SmallVector<ReassociationIndices>
groupsAround(const llvm::SmallBitVector &dropped, int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t d = 0; d < rank; ++d) {
    pending.push_back(d);
    if (!dropped.test(d)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

struct ShardUnitStridesPass
    : shardc::impl::ShardUnitStridesBase<ShardUnitStridesPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      OpBuilder b(op);
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
        std::optional<SmallVector<OpFoldResult>> unit =
            unitStrides(slice.getMixedSizes(), slice.getMixedStrides(), b);
        SmallVector<OpFoldResult> strides =
            unit ? *unit : slice.getMixedStrides();
        const int64_t rank = slice.getSourceType().getRank();
        const bool reduced = slice.getType().getRank() < rank;
        if (reduced && !allUnit(strides)) {
          // At full rank, then the dropped dims folded away.
          RankedTensorType full = RankedTensorType::get(
              slice.getStaticSizes(), slice.getType().getElementType());
          auto made = tensor::ExtractSliceOp::create(
              b, slice.getLoc(), full, slice.getSource(),
              slice.getMixedOffsets(), slice.getMixedSizes(), strides);
          auto folded = tensor::CollapseShapeOp::create(
              b, slice.getLoc(), slice.getType(), made.getResult(),
              groupsAround(slice.getDroppedDims(), rank));
          slice.replaceAllUsesWith(folded.getResult());
          slice.erase();
        } else if (unit) {
          auto made = tensor::ExtractSliceOp::create(
              b, slice.getLoc(), slice.getType(), slice.getSource(),
              slice.getMixedOffsets(), slice.getMixedSizes(), strides);
          slice.replaceAllUsesWith(made.getResult());
          slice.erase();
        }
      } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
        std::optional<SmallVector<OpFoldResult>> unit =
            unitStrides(insert.getMixedSizes(), insert.getMixedStrides(), b);
        SmallVector<OpFoldResult> strides =
            unit ? *unit : insert.getMixedStrides();
        const int64_t rank = insert.getDestType().getRank();
        Value source = insert.getSource();
        if (insert.getSourceType().getRank() < rank && !allUnit(strides)) {
          // The source at full rank (its dropped dims of 1 back), then the
          // insert at full rank.
          RankedTensorType full = RankedTensorType::get(
              insert.getStaticSizes(), insert.getSourceType().getElementType());
          source = tensor::ExpandShapeOp::create(
              b, insert.getLoc(), full, source,
              groupsAround(insert.getDroppedDims(), rank),
              insert.getMixedSizes());
        } else if (!unit) {
          return;
        }
        auto made = tensor::InsertSliceOp::create(
            b, insert.getLoc(), source, insert.getDest(),
            insert.getMixedOffsets(), insert.getMixedSizes(), strides);
        insert.replaceAllUsesWith(made.getResult());
        insert.erase();
      }
    });
  }
};

} // namespace
