//===- MaskedTransfers.cpp - Masked transfers upstream lowers wrong -------===//
//
// -shard-masked-transfers: masked transfers of tensors in forms upstream
// MLIR 22 lowers right, the same elements either way (the shard-to-llvm
// pipeline runs it before bufferizing):
// - a vector.transfer_write into a tensor with a mask (its mask operand,
//   or a vector.mask around it), in bounds along every dim, with a minor
//   identity permutation map, is written as a transfer_read of what it
//   overwrites, an arith.select of the written lanes and the read ones
//   under the mask, and the same write without a mask. One-shot
//   bufferization takes a masked write that spans its whole tensor for a
//   full overwrite: where the tensor is read again after it, the write
//   goes to a new buffer that is not copied from the tensor first, so the
//   lanes the mask leaves out hold whatever that memory held (a silent
//   wrong answer, different from run to run);
// - a vector.mask with a passthru around a transfer_read of a tensor (the
//   masked-off lanes take the passthru's) is written as the read with its
//   mask operand, then an arith.select of its lanes and the passthru's:
//   -lower-vector-mask leaves such a mask as it is, and buffer
//   deallocation then puts ops inside its region ("'vector.mask' op
//   expects only one operation to mask").
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDMASKEDTRANSFERS
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

/// A vector.mask with a passthru around a transfer_read of a tensor
/// (minor identity map, the mask lane for lane): the read masked by its
/// operand, its lanes selected against the passthru's.
bool rewritePassthruRead(vector::MaskOp masked) {
  auto read = dyn_cast_or_null<vector::TransferReadOp>(masked.getMaskableOp());
  VectorType vector = read ? read.getVectorType() : VectorType();
  if (!read || !masked.getPassthru() || read.getMask() ||
      !isa<RankedTensorType>(read.getBase().getType()) || vector.isScalable() ||
      !read.getPermutationMap().isMinorIdentity() ||
      cast<VectorType>(masked.getMask().getType()).getShape() !=
          vector.getShape())
    return false;
  OpBuilder b(masked);
  Location loc = read.getLoc();
  Value lanes = vector::TransferReadOp::create(
      b, loc, vector, read.getBase(), read.getIndices(),
      read.getPermutationMapAttr(), read.getPadding(), masked.getMask(),
      read.getInBoundsAttr());
  Value merged = arith::SelectOp::create(b, loc, masked.getMask(), lanes,
                                         masked.getPassthru());
  masked.getResult(0).replaceAllUsesWith(merged);
  masked.erase();
  return true;
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

struct ShardMaskedTransfersPass
    : shardc::impl::ShardMaskedTransfersBase<ShardMaskedTransfersPass> {
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
    SmallVector<vector::MaskOp> reads;
    getOperation().walk([&](vector::MaskOp masked) {
      if (masked.getPassthru() && masked->getNumResults() == 1)
        reads.push_back(masked);
    });
    for (vector::MaskOp masked : reads)
      rewritePassthruRead(masked);
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
