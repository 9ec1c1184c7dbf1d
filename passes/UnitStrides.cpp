//===- UnitStrides.cpp - A slice's dims of size 1 at stride 1 -------------===//
//
// -shard-unit-strides: every tensor.extract_slice and tensor.insert_slice
// with a static size of 1 and a static stride other than 1 along some dim
// gets stride 1 there (one element is read or written there either way).
// Upstream MLIR 22's -expand-strided-metadata crashes in
// memref::SubViewOp::getDroppedDims on the subview bufferization makes of
// a rank-reducing slice whose dims are all of size 1 with another stride on
// one; the shard-to-llvm pipeline runs this pass before bufferizing.
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

struct ShardUnitStridesPass
    : shardc::impl::ShardUnitStridesBase<ShardUnitStridesPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      OpBuilder b(op);
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
        if (auto strides = unitStrides(slice.getMixedSizes(),
                                       slice.getMixedStrides(), b)) {
          auto made = tensor::ExtractSliceOp::create(
              b, slice.getLoc(), slice.getType(), slice.getSource(),
              slice.getMixedOffsets(), slice.getMixedSizes(), *strides);
          slice.replaceAllUsesWith(made.getResult());
          slice.erase();
        }
      } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
        if (auto strides = unitStrides(insert.getMixedSizes(),
                                       insert.getMixedStrides(), b)) {
          auto made = tensor::InsertSliceOp::create(
              b, insert.getLoc(), insert.getSource(), insert.getDest(),
              insert.getMixedOffsets(), insert.getMixedSizes(), *strides);
          insert.replaceAllUsesWith(made.getResult());
          insert.erase();
        }
      }
    });
  }
};

} // namespace
