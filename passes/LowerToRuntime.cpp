//===- LowerToRuntime.cpp - shard-lower-to-runtime ------------------------===//
//
// Bufferizes the module, the SPMD collectives becoming calls of the shardrt
// C ABI (their BufferizableOpInterface, BufferizableCollectives.cpp), and
// shard.spmd.rank a call of shardrt_rank.
//
//===----------------------------------------------------------------------===//

#include "RuntimeLowering.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"

#include "FunctionAttrs.h"
#include "shardc/Passes/RuntimeCalls.h"
#include "shardc/Register.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDLOWERTORUNTIME
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct LowerToRuntimePass
    : shardc::impl::ShardLowerToRuntimeBase<LowerToRuntimePass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    ShardLowerToRuntimeBase::getDependentDialects(registry);
    // The bufferization models of every dialect the programs use, the
    // collectives' included.
    registerAllDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Global ops left here were never planned.
    WalkResult unplanned = module.walk([&](Operation *op) {
      if (!isa_and_nonnull<ShardDialect>(op->getDialect()) ||
          isSpmdCollective(op) || isa<SpmdRankOp, MeshOp>(op))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' must be planned first: run "
                         "-shard-plan-redistribute before "
                         "-shard-lower-to-runtime";
      return WalkResult::interrupt();
    });
    if (unplanned.wasInterrupted())
      return signalPassFailure();
    // Collectives the runtime cannot run, named once here rather than again
    // by bufferization.
    bool runnable = true;
    module.walk([&](Operation *op) {
      if (isSpmdCollective(op))
        runnable &= succeeded(runtimeCallOf(op));
    });
    if (!runnable)
      return signalPassFailure();
    // A negative static padding (tensor.pad's verifier lets one that
    // overflows the result's size through) segfaulted upstream's
    // bufferization of the pad (a fuzzed test input).
    WalkResult negative = module.walk([&](tensor::PadOp pad) {
      // A static padding of INT64_MIN reads as a dynamic one with no value
      // (tensor.pad's verifier lets it through; bufferization then reads an
      // operand that is not there).
      if (llvm::count_if(pad.getStaticLow(), ShapedType::isDynamic) !=
              static_cast<int64_t>(pad.getLow().size()) ||
          llvm::count_if(pad.getStaticHigh(), ShapedType::isDynamic) !=
              static_cast<int64_t>(pad.getHigh().size())) {
        pad.emitOpError() << "names more dynamic paddings than it has values "
                             "(a static padding of -9223372036854775808 reads "
                             "as a dynamic one)";
        return WalkResult::interrupt();
      }
      for (int64_t p :
           llvm::concat<const int64_t>(pad.getStaticLow(), pad.getStaticHigh()))
        if (!ShapedType::isDynamic(p) && p < 0) {
          pad.emitOpError() << "pads by " << p
                            << "; -shard-lower-to-runtime lowers "
                               "non-negative padding only";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (negative.wasInterrupted())
      return signalPassFailure();

    // This rank: shardrt_rank().
    SymbolTableCollection tables;
    SmallVector<SpmdRankOp> ranks;
    module.walk([&](SpmdRankOp op) { ranks.push_back(op); });
    for (SpmdRankOp op : ranks) {
      OpBuilder b(op);
      FailureOr<Value> rank = lowerRankToRuntime(b, op, tables);
      if (failed(rank))
        return signalPassFailure();
      op.getRank().replaceAllUsesWith(*rank);
      op.erase();
    }

    // A function returning one tensor twice (`return %v, %v`, as a
    // program may) returns one buffer twice after bufferization, which
    // assumes a call's results do not alias: a callee writing in place into
    // one of them then changed the other (a mismatch on every rank). Each
    // repeat is returned as a copy of its own.
    module.walk([&](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 4> returned;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value v = operand.get();
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || returned.insert(v).second)
          continue;
        // (A copy takes its sizes from what it copies.)
        operand.set(bufferization::AllocTensorOp::create(
            b, ret.getLoc(), type, ValueRange(), /*copy=*/v));
      }
    });

    // Elementwise arith and math ops on tensors as linalg, then one-shot
    // bufferization, which lowers the collectives.
    OpPassManager bufferize(ModuleOp::getOperationName());
    bufferize.addPass(createConvertElementwiseToLinalgPass());
    bufferization::OneShotBufferizePassOptions options;
    options.bufferizeFunctionBoundaries = true;
    // Loops that carry a collective's result (a gathered tensor yielded to
    // the next iteration) yield a new buffer each time; the deallocation
    // pipeline frees the previous one.
    options.allowReturnAllocsFromLoops = true;
    options.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
    bufferize.addPass(bufferization::createOneShotBufferizePass(options));
    if (failed(runPipeline(bufferize, module)))
      return signalPassFailure();

    // A partitioned function's global types (shard.global) documented its
    // blocks; below the runtime calls nothing reads them.
    module.walk([&](func::FuncOp func) {
      auto drop = [](unsigned, NamedAttrList &attrs) {
        attrs.erase(kGlobalAttr);
      };
      editFunctionAttrs(func, drop, drop);
    });
    // Mesh declarations mean nothing at run time.
    for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
  }
};

} // namespace
