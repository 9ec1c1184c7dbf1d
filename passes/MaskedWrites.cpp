//===- MaskedWrites.cpp - Masked tensor writes as read, select, write -----===//
//
// -shard-masked-writes: a vector.transfer_write into a tensor with a mask,
// in bounds along every dim and with a minor identity permutation map (as
// -lower-vector-mask leaves a vector.mask around a transfer_write), is
// written as a transfer_read of what it overwrites, an arith.select of the
// written lanes and the read ones under the mask, and the same write
// without a mask. Upstream MLIR 22's one-shot bufferization takes a masked
// write that spans its whole tensor for a full overwrite: where the tensor
// is read again after it, the write goes to a new buffer that is not
// copied from the tensor first, so the lanes the mask leaves out hold
// whatever that memory held (a silent wrong answer, different from run to
// run). The same elements either way; the shard-to-llvm pipeline runs this
// pass before bufferizing.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDMASKEDWRITES
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// Whether `write`, under `mask`, is one to rewrite: into a tensor, in
/// bounds along every dim, a minor identity map, the mask of the vector's
/// shape (lane for lane).
bool rewritable(vector::TransferWriteOp write, Value mask) {
  VectorType vector = write.getVectorType();
  if (!mask || !isa<RankedTensorType>(write.getBase().getType()) ||
      vector.isScalable() || !write.getPermutationMap().isMinorIdentity())
    return false;
  // Out of bounds, the lanes past the end are not written either way:
  // left to the lowering.
  if (!llvm::all_of(write.getInBoundsValues(), [](bool b) { return b; }))
    return false;
  return cast<VectorType>(mask.getType()).getShape() == vector.getShape();
}

/// The write's unmasked form under `mask`, made before `at`: what it
/// overwrites read, the lanes selected, written.
Value readSelectWrite(vector::TransferWriteOp write, Value mask,
                      Operation *at) {
  OpBuilder b(at);
  Location loc = write.getLoc();
  VectorType vector = write.getVectorType();
  Type element = vector.getElementType();
  Value pad = arith::ConstantOp::create(
      b, loc, element, cast<TypedAttr>(b.getZeroAttr(element)));
  Value old = vector::TransferReadOp::create(
      b, loc, vector, write.getBase(), write.getIndices(),
      write.getPermutationMapAttr(), pad, /*mask=*/Value(),
      write.getInBoundsAttr());
  Value merged = arith::SelectOp::create(b, loc, mask, write.getVector(), old);
  return vector::TransferWriteOp::create(
             b, loc, write.getResult().getType(), merged, write.getBase(),
             write.getIndices(), write.getPermutationMapAttr(),
             /*mask=*/Value(), write.getInBoundsAttr())
      .getResult();
}

struct ShardMaskedWritesPass
    : shardc::impl::ShardMaskedWritesBase<ShardMaskedWritesPass> {
  void runOnOperation() override {
    // Its mask operand, or a vector.mask around it (without a passthru).
    SmallVector<std::pair<vector::TransferWriteOp, Operation *>> writes;
    getOperation().walk([&](Operation *op) {
      if (auto write = dyn_cast<vector::TransferWriteOp>(op)) {
        if (!isa<vector::MaskOp>(op->getParentOp()) &&
            rewritable(write, write.getMask()))
          writes.push_back({write, op});
      } else if (auto masked = dyn_cast<vector::MaskOp>(op)) {
        auto write =
            dyn_cast_or_null<vector::TransferWriteOp>(masked.getMaskableOp());
        if (write && !masked.getPassthru() && !write.getMask() &&
            masked->getNumResults() == 1 && rewritable(write, masked.getMask()))
          writes.push_back({write, op});
      }
    });
    for (auto [write, at] : writes) {
      Value mask = at == write.getOperation()
                       ? write.getMask()
                       : cast<vector::MaskOp>(at).getMask();
      Value made = readSelectWrite(write, mask, at);
      at->getResult(0).replaceAllUsesWith(made);
      at->erase();
    }
  }
};

} // namespace
