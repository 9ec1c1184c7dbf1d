//===- FloatZeroPoints.cpp - TOSA's float zero points as constants --------===//
//
// -shard-float-zero-points: a TOSA op on floating-point tensors whose zero
// point is a value rather than a constant (a function argument, as
// upstream MLIR's own tests give tosa.matmul's and tosa.negate's) gets a
// constant zero there. TOSA requires a floating-point zero point to be 0,
// so the program computes the same; upstream MLIR 22's lowering to linalg
// refuses tosa.matmul's and tosa.conv2d's zero points that are not
// constants ("failed to legalize"), and builds tosa.negate's result with a
// garbage extent on a dim of run-time size (which the partition makes of an
// uneven cut), so that the program ran past its buffers. The shard-to-llvm
// pipeline runs this pass before that lowering.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDFLOATZEROPOINTS
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// The zero-point operands of a TOSA op (none for other ops).
SmallVector<OpOperand *, 2> zeroPoints(Operation *op) {
  SmallVector<OpOperand *, 2> out;
  auto add = [&](OpOperand &operand) { out.push_back(&operand); };
  TypeSwitch<Operation *>(op)
      .Case<tosa::MatMulOp>([&](tosa::MatMulOp o) {
        add(o.getAZpMutable());
        add(o.getBZpMutable());
      })
      .Case<tosa::NegateOp>([&](tosa::NegateOp o) {
        add(o.getInput1ZpMutable());
        add(o.getOutputZpMutable());
      })
      .Case<tosa::AvgPool2dOp>([&](tosa::AvgPool2dOp o) {
        add(o.getInputZpMutable());
        add(o.getOutputZpMutable());
      })
      .Case<tosa::Conv2DOp, tosa::Conv3DOp, tosa::DepthwiseConv2DOp,
            tosa::TransposeConv2DOp>([&](auto o) {
        add(o.getInputZpMutable());
        add(o.getWeightZpMutable());
      });
  return out;
}

struct ShardFloatZeroPointsPass
    : shardc::impl::ShardFloatZeroPointsBase<ShardFloatZeroPointsPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      for (OpOperand *zp : zeroPoints(op)) {
        auto type = dyn_cast<RankedTensorType>(zp->get().getType());
        if (!type || !isa<FloatType>(type.getElementType()) ||
            matchPattern(zp->get(), m_Constant()))
          continue;
        OpBuilder b(op);
        auto zero = tosa::ConstOp::create(
            b, op->getLoc(), type,
            DenseElementsAttr::get(type,
                                   b.getFloatAttr(type.getElementType(), 0.0)));
        zp->set(zero);
      }
    });
  }
};

} // namespace
