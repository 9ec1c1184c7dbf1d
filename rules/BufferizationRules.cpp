//===- BufferizationRules.cpp - Rules of bufferization ops on tensors -----===//
//
// bufferization.materialize_in_destination of a tensor into a tensor (as
// torch-mlir and IREE-side tools end a function that writes its result into
// an argument): one parallel loop per dim, indexing the source, the
// destination and the result alike; partitioned as the same op on local
// blocks (the default hook). Into a memref it has no rule: layouts are of
// tensors.
// bufferization.alloc_tensor (tpp-mlir's and IREE's tensor.empty before
// bufferization): any layout, as tensor.empty (a dynamic dim whole, its
// size the op's own); with a copy, the copy indexed as the result
// (elementwise); remade at this rank's block shape.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/TensorCast.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace shardc;

namespace {

struct MaterializeRuleModel
    : ShardingRuleOpInterface::ExternalModel<
          MaterializeRuleModel, bufferization::MaterializeInDestinationOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto materialize = cast<bufferization::MaterializeInDestinationOp>(op);
    auto dest = dyn_cast<RankedTensorType>(materialize.getDest().getType());
    if (!dest)
      return op->emitOpError()
             << "writes into " << materialize.getDest().getType()
             << "; a sharding rule needs a tensor destination";
    if (failed(checkStaticShapes(op)))
      return failure();
    return ShardingRule::elementwise(
        std::vector<int64_t>(dest.getShape().begin(), dest.getShape().end()),
        {true, true});
  }
};

struct AllocTensorRuleModel
    : ShardingRuleOpInterface::ExternalModel<AllocTensorRuleModel,
                                             bufferization::AllocTensorOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto alloc = cast<bufferization::AllocTensorOp>(op);
    if (failed(checkRankedShapes(op)))
      return failure();
    RankedTensorType type = alloc.getType();
    std::vector<bool> indexed;
    for (Value operand : op->getOperands())
      indexed.push_back(operand == alloc.getCopy());
    return ShardingRule::elementwise(
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
        indexed);
  }

  /// Remade at this rank's block shape (of run-time extent where blocks
  /// differ: uneven cuts), its copy this rank's block, then cast to the
  /// local type.
  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto alloc = cast<bufferization::AllocTensorOp>(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    ShardedTensorType global = context.globalOf(alloc.getResult());
    Value local;
    if (Value copy = alloc.getCopy()) {
      local = bufferization::AllocTensorOp::create(b, loc, copy.getType(),
                                                   ValueRange{}, copy, Value(),
                                                   alloc.getMemorySpaceAttr());
    } else {
      // A dynamic dim (whole: the rule's loop over it is never cut) keeps
      // the op's own size.
      SmallVector<OpFoldResult> sizes =
          context.localSizes(b, loc, op, global,
                             getMixedValues(alloc.getType().getShape(),
                                            alloc.getDynamicSizes(), b));
      SmallVector<int64_t> shape;
      SmallVector<Value> dynamic;
      dispatchIndexOpFoldResults(sizes, dynamic, shape);
      local = bufferization::AllocTensorOp::create(
          b, loc, RankedTensorType::get(shape, global.getElementType()),
          dynamic, Value(), Value(), alloc.getMemorySpaceAttr());
    }
    context.replace(alloc.getResult(),
                    castTo(b, loc, local, getLocalType(global)));
    op->erase();
    return success();
  }
};

} // namespace

void shardc::registerBufferizationShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx,
                            bufferization::BufferizationDialect *) {
    bufferization::MaterializeInDestinationOp::attachInterface<
        MaterializeRuleModel>(*ctx);
    bufferization::AllocTensorOp::attachInterface<AllocTensorRuleModel>(*ctx);
  });
}
