//===- CheckLowered.cpp - What the LLVM lowering left behind -------------===//
//
// -shard-check-lowered: the shard-to-llvm pipeline's last pass. An op of a
// dialect the pipeline lowers, or an unrealized conversion cast, left after
// every conversion has no LLVM form: the pipeline succeeded and the module
// failed only when translated to LLVM IR, far from the op (arithmetic on
// f8 types, which IREE's tests run: "could not convert to LLVM IR"). The
// first such op is named here, at its location.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDCHECKLOWERED
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// A float type of fewer than 16 bits among `types`: f8, f6, f4 (moved as
/// bytes; MLIR 22 lowers no arithmetic on them).
Type smallFloat(TypeRange types) {
  for (Type type : types) {
    Type element = getElementTypeOrSelf(type);
    if (auto f = dyn_cast<FloatType>(element); f && f.getWidth() < 16)
      return f;
  }
  return {};
}

struct CheckLoweredPass
    : shardc::impl::ShardCheckLoweredBase<CheckLoweredPass> {
  void runOnOperation() override {
    static const llvm::StringSet<> lowered = {
        "arith", "math",   "memref",  "linalg", "tensor", "scf",
        "cf",    "func",   "complex", "affine", "index",  "bufferization",
        "tosa",  "vector", "shard"};
    // The first op of a lowered dialect; else the first cast left.
    Operation *left = nullptr, *cast = nullptr;
    getOperation().walk([&](Operation *op) {
      if (isa<UnrealizedConversionCastOp>(op)) {
        if (!cast)
          cast = op;
        return WalkResult::advance();
      }
      if (lowered.contains(op->getName().getDialectNamespace())) {
        left = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    Operation *op = left ? left : cast;
    if (!op)
      return;
    // Where the lowering left the op no location of its own, the
    // function's.
    Location loc = op->getLoc();
    for (Operation *p = op->getParentOp(); isa<UnknownLoc>(loc) && p;
         p = p->getParentOp())
      loc = p->getLoc();
    InFlightDiagnostic diag = emitError(loc)
                              << "'" << op->getName()
                              << "' has no LLVM form after the shard-to-llvm "
                                 "pipeline's conversions";
    if (Type small = smallFloat(llvm::to_vector(
            llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))))
      diag << ": MLIR 22 lowers no arithmetic on " << small
           << " (float types of fewer than 16 bits are moved as bytes, but "
              "not computed on)";
    else if (!left)
      diag << ": a conversion left a value of one type where another is "
              "used";
    signalPassFailure();
  }
};

} // namespace
