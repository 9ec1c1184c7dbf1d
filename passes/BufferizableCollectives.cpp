//===- BufferizableCollectives.cpp - SPMD collectives, bufferized ---------===//
//
// The BufferizableOpInterface of the SPMD collectives: what one-shot
// bufferization must know of them, and their bufferized form, a call of the
// runtime (RuntimeLowering.h). A collective reads its input's buffer and
// writes a new buffer, its result; it writes nothing else and its result
// aliases nothing. So the analysis copies where an op after the collective
// would write in place into a buffer that is still to be read (by another
// collective, a slice, a return), and never lets a collective's result be
// written where its input lives.
//
// Lowering at bufferization, rather than as tensors wrapped in
// to_buffer/to_tensor, is what makes this exact: a call on the memref of a
// `to_buffer` is invisible to the analysis once canonicalization folds
// `to_buffer(to_tensor(%m))` into `%m`, and an op in between wrote in place
// into a value a later collective still read (a silent wrong result).
//
//===----------------------------------------------------------------------===//

#include "RuntimeLowering.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace shardc;

namespace {

/// A collective: operand 0 (its input) is read, result 0 is new.
template <typename OpTy>
struct CollectiveModel
    : public BufferizableOpInterface::ExternalModel<CollectiveModel<OpTy>,
                                                    OpTy> {
  bool bufferizesToAllocation(Operation *, Value) const { return true; }

  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }

  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }

  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }

  FailureOr<BufferLikeType> getBufferType(Operation *op, Value value,
                                          const BufferizationOptions &,
                                          const BufferizationState &,
                                          SmallVector<Value> &) const {
    auto type = cast<RankedTensorType>(value.getType());
    return cast<BufferLikeType>(
        MemRefType::get(type.getShape(), type.getElementType()));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    FailureOr<Value> input =
        getBuffer(rewriter, op->getOperand(0), options, state);
    if (failed(input))
      return failure();
    auto inputType = dyn_cast<MemRefType>(input->getType());
    if (!inputType || inputType.getMemorySpace())
      return op->emitError()
             << "cannot call the runtime on a buffer of type "
             << input->getType()
             << ": it takes memrefs in the default memory space";
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    auto allocate = [&](OpBuilder &b, Location loc, MemRefType type,
                        ValueRange sizes) {
      return options.createAlloc(b, loc, type, sizes);
    };
    FailureOr<Value> out = lowerCollectiveToRuntime(
        rewriter, op, *input, allocate, state.getSymbolTables());
    if (failed(out))
      return failure();
    replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};

template <typename... Ops> void attachCollectiveModels(MLIRContext *ctx) {
  (Ops::template attachInterface<CollectiveModel<Ops>>(*ctx), ...);
}

} // namespace

void shardc::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, ShardDialect *) {
    attachCollectiveModels<SpmdAllGatherOp, SpmdScatterOp, SpmdExchangeOp,
                           SpmdReduceScatterOp, SpmdAllReduceOp, SpmdAllToAllOp,
                           SpmdBroadcastOp, SpmdGatherOp>(ctx);
  });
}
