//===- DecomposeAggregates.cpp - linalg.softmax as linalg ops
//--------------===//
//
// -shard-decompose-aggregates: every op of linalg's AggregatedOpInterface
// (linalg.softmax) replaced by the ops of its own decomposition, so that
// linalg-to-loops can lower it. Run after -shard-spmd-partition: the op is
// sharded as one (its rule), then decomposed on each rank's blocks.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDDECOMPOSEAGGREGATES
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

struct DecomposeAggregatesPass
    : shardc::impl::ShardDecomposeAggregatesBase<DecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    // Upstream's decompositions build float arithmetic on tensors
    // (softmax: max's identity, exp, division): an integer softmax crashed
    // it (no float identity) and a memref one left invalid IR.
    auto unfit = [](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return !tensor || !isa<FloatType>(tensor.getElementType());
    };
    for (linalg::AggregatedOpInterface op : aggregates)
      if (llvm::any_of(op->getOperandTypes(), unfit) ||
          llvm::any_of(op->getResultTypes(), unfit) ||
          op->getNumResults() == 0) {
        op->emitOpError() << "could not be decomposed into linalg ops: its "
                             "operands and results must be ranked tensors "
                             "of floats";
        return signalPassFailure();
      }
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
      if (failed(parts)) {
        op->emitOpError() << "could not be decomposed into linalg ops";
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *parts);
    }
  }
};

} // namespace
