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
#include "shardc/Rules/Padding.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDLOWERTORUNTIME
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// CSE makes one zero fill (or one tensor.empty) the init of every matmul of
/// its shape: one-shot's analysis then weighs each of those writes against
/// every other use of the one buffer, quadratic in the uses (a 2,500-block
/// MLP took 26 s to bufferize, 600 blocks 1.9 s). Each write beyond the first
/// gets a fill (or empty tensor) of its own, which is what bufferization
/// would have allocated for it anyway (a copy of the shared fill).
void ownInitsForEachWrite(ModuleOp module) {
  SmallVector<OpOperand *> shared;
  module.walk([&](Operation *op) {
    if (!isa<tensor::EmptyOp, linalg::FillOp>(op) || op->getNumResults() != 1)
      return;
    bool first = true;
    for (OpOperand &use : op->getResult(0).getUses()) {
      auto writer = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
      if (!writer || !writer.isDpsInit(&use))
        continue;
      if (!first)
        shared.push_back(&use);
      first = false;
    }
  });
  for (OpOperand *use : shared) {
    Operation *init = use->get().getDefiningOp();
    OpBuilder b(use->getOwner());
    IRMapping fresh;
    // A fill of an empty tensor gets an empty tensor of its own too.
    if (auto fill = dyn_cast<linalg::FillOp>(init))
      if (auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
        fresh.map(empty.getResult(), b.clone(*empty)->getResult(0));
    use->set(b.clone(*init, fresh)->getResult(0));
  }
}

/// The values `v` may share its buffer with, assuming every op that can
/// compute in place does: a cheap over-approximation of one-shot's alias
/// sets, so that its (whole-module) analysis runs only where two returned
/// tensors might alias.
class MayAlias {
public:
  explicit MayAlias(const bufferization::BufferizationOptions &options)
      : state(options) {}

  DenseSet<Value> closure(Value v) {
    DenseSet<Value> seen{v};
    SmallVector<Value> work{v};
    while (!work.empty()) {
      Value next = work.pop_back_val();
      for (Value operand : aliasedOperands(next))
        if (seen.insert(operand).second)
          work.push_back(operand);
    }
    return seen;
  }

private:
  static void addTensors(ValueRange values, SmallVectorImpl<Value> &out) {
    for (Value v : values)
      if (isa<TensorType>(v.getType()))
        out.push_back(v);
  }
  // An op with regions (loops, branches): its tensor operands and what its
  // regions yield.
  static void addRegionValues(Operation *op, SmallVectorImpl<Value> &out) {
    addTensors(op->getOperands(), out);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
          addTensors(block.back().getOperands(), out);
  }

  SmallVector<Value> aliasedOperands(Value v) {
    SmallVector<Value> out;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *parent = arg.getOwner()->getParentOp();
      if (!isa_and_nonnull<FunctionOpInterface>(parent) && parent)
        addRegionValues(parent, out);
      return out;
    }
    Operation *op = v.getDefiningOp();
    if (isa<CallOpInterface>(op)) {
      // A callee's results alias at most its arguments once each function
      // returns copies (below); an external callee's may alias each other.
      addTensors(op->getOperands(), out);
      addTensors(op->getResults().take_front(1), out);
      return out;
    }
    if (op->getNumRegions() != 0) {
      addRegionValues(op, out);
      return out;
    }
    if (auto bufferizable =
            dyn_cast<bufferization::BufferizableOpInterface>(op)) {
      for (const bufferization::AliasingOpOperand &alias :
           bufferizable.getAliasingOpOperands(v, state))
        out.push_back(alias.opOperand->get());
      return out;
    }
    addTensors(op->getOperands(), out);
    return out;
  }

  bufferization::AnalysisState state;
};

/// One-shot bufferization takes the results of a call to be buffers of their
/// own unless one is a callee's argument: a function returning one buffer
/// twice, or a buffer and a view of it (`return %h, %h` or `return %h,
/// %slice_of_h`, as a program may), gave its caller two results it took to
/// be apart, and a callee then computing in place on one of them changed the
/// other (a mismatch on every rank). Likewise a function returning a
/// constant returned its global, which a caller computing in place on the
/// result overwrote for every later call. Each returned tensor that may
/// share its buffer with an earlier one, or be a constant's (by one-shot's
/// own alias analysis), is returned as a copy of its own. Where the analysis
/// fails, bufferization reports why.
void returnAliasesAsCopies(
    ModuleOp module, const bufferization::OneShotBufferizePassOptions &pass) {
  // The analysis bufferization will run, as the pass's options make it.
  bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = pass.bufferizeFunctionBoundaries;
  options.allowReturnAllocsFromLoops = pass.allowReturnAllocsFromLoops;

  // Only returns whose tensors might alias (by the cheap test) are asked of
  // the analysis: per returned tensor, the read-only buffers (constants) it
  // may be.
  struct Suspect {
    func::ReturnOp ret;
    SmallVector<SmallVector<Value>> readOnly;
  };
  SmallVector<Suspect> suspects;
  {
    MayAlias mayAlias(options);
    bufferization::AnalysisState plain(options);
    module.walk([&](func::ReturnOp ret) {
      DenseSet<Value> before;
      Suspect suspect{ret, {}};
      bool suspected = false;
      for (Value v : ret.getOperands()) {
        SmallVector<Value> &readOnly = suspect.readOnly.emplace_back();
        if (!isa<RankedTensorType>(v.getType()))
          continue;
        DenseSet<Value> aliases = mayAlias.closure(v);
        suspected |= llvm::any_of(
            aliases, [&](Value alias) { return before.contains(alias); });
        for (Value alias : aliases)
          if (auto result = dyn_cast<OpResult>(alias))
            if (auto bufferizable =
                    dyn_cast<bufferization::BufferizableOpInterface>(
                        result.getOwner());
                bufferizable && !bufferizable.isWritable(result, plain))
              readOnly.push_back(result);
        suspected |= !readOnly.empty();
        before.insert(aliases.begin(), aliases.end());
      }
      if (suspected)
        suspects.push_back(std::move(suspect));
    });
  }
  if (suspects.empty())
    return;

  // One analysis: a copy is a new buffer, read where the return read what
  // it copies, so no other result's buffer or in-place decision changes
  // (a second analysis found no more copies on every test; it doubled the
  // time where thousands of results might alias).
  bufferization::OneShotAnalysisState state(module, options);
  if (failed(bufferization::analyzeModuleOp(module, state)))
    return;
  SmallVector<OpOperand *> copies;
  for (const Suspect &suspect : suspects) {
    SmallVector<Value> before;
    for (OpOperand &operand : suspect.ret->getOpOperands()) {
      Value v = operand.get();
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      auto aliases = [&](Value other) {
        return state.areAliasingBufferizedValues(other, v);
      };
      // A callee's result may be written in place by its caller: never a
      // constant's buffer (a global every call returns).
      if (llvm::any_of(before, aliases) ||
          llvm::any_of(suspect.readOnly[operand.getOperandNumber()], aliases))
        copies.push_back(&operand);
      before.push_back(v);
    }
  }
  for (OpOperand *operand : copies) {
    OpBuilder b(operand->getOwner());
    Value v = operand->get();
    // (A copy takes its sizes from what it copies.)
    operand->set(bufferization::AllocTensorOp::create(
        b, v.getLoc(), cast<RankedTensorType>(v.getType()), ValueRange(),
        /*copy=*/v));
  }
}

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
    // A function in its global view (layouts on its arguments or results)
    // was never partitioned: its layouts would reach the buffers.
    WalkResult global = module.walk([&](func::FuncOp func) {
      auto laidOut = [&](const char *what, unsigned count,
                         auto attrOf) -> bool {
        for (unsigned i = 0; i < count; ++i)
          if (attrOf(i)) {
            func.emitError()
                << "'" << kLayoutAttr << "' of " << what << " #" << i
                << ": the function is in its global view; run "
                   "-shard-propagate and -shard-spmd-partition "
                   "before -shard-lower-to-runtime";
            return true;
          }
        return false;
      };
      if (laidOut(
              "argument", func.getNumArguments(),
              [&](unsigned i) { return func.getArgAttr(i, kLayoutAttr); }) ||
          laidOut("result", func.getNumResults(), [&](unsigned i) {
            return func.getResultAttr(i, kLayoutAttr);
          }))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (global.wasInterrupted())
      return signalPassFailure();
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
      // (bufferization would read an operand that is not there).
      if (failed(checkPaddingValues(pad)))
        return WalkResult::interrupt();
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

    // Elementwise arith and math ops on tensors as linalg (each writing into
    // its first operand of the result's type, so in place where it may),
    // then one-shot bufferization, which lowers the collectives.
    OpPassManager elementwise(ModuleOp::getOperationName());
    elementwise.addPass(createConvertElementwiseToLinalgPass());
    if (failed(runPipeline(elementwise, module)))
      return signalPassFailure();
    bufferization::OneShotBufferizePassOptions options;
    options.bufferizeFunctionBoundaries = true;
    // Loops that carry a collective's result (a gathered tensor yielded to
    // the next iteration) yield a new buffer each time; the deallocation
    // pipeline frees the previous one.
    options.allowReturnAllocsFromLoops = true;
    options.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
    ownInitsForEachWrite(module);
    returnAliasesAsCopies(module, options);

    // Each module's functions bufferized with their module, nested modules
    // first: bufferization crosses function boundaries within one module
    // only, and an outer module's analysis met a nested module's
    // collectives as ops of unknown effects (a file with a function beside
    // a nested module that needs a collective did not lower).
    SmallVector<ModuleOp> modules;
    module.walk<WalkOrder::PostOrder>(
        [&](ModuleOp each) { modules.push_back(each); });
    for (ModuleOp each : modules) {
      OpPassManager bufferize(ModuleOp::getOperationName());
      bufferize.addPass(bufferization::createOneShotBufferizePass(options));
      if (failed(runPipeline(bufferize, each)))
        return signalPassFailure();
    }

    // A partitioned function's global types (shard.global) documented its
    // blocks; below the runtime calls nothing reads them.
    module.walk([&](func::FuncOp func) {
      auto drop = [](unsigned, NamedAttrList &attrs) {
        attrs.erase(kGlobalAttr);
      };
      editFunctionAttrs(func, drop, drop);
    });
    // Mesh declarations mean nothing at run time.
    for (ModuleOp each : modules)
      for (MeshOp mesh : llvm::make_early_inc_range(each.getOps<MeshOp>()))
        mesh.erase();
  }
};

} // namespace
