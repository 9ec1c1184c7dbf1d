//===- BufferizationRules.cpp - Rules of bufferization ops on tensors -----===//
//
// bufferization.materialize_in_destination of a tensor into a tensor (as
// torch-mlir and IREE-side tools end a function that writes its result into
// an argument): one parallel loop per dim, indexing the source, the
// destination and the result alike; partitioned as the same op on local
// blocks (the default hook). Into a memref it has no rule: layouts are of
// tensors.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

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

} // namespace

void shardc::registerBufferizationShardingRules(DialectRegistry &registry) {
  registry.addExtension(
      +[](MLIRContext *ctx, bufferization::BufferizationDialect *) {
        bufferization::MaterializeInDestinationOp::attachInterface<
            MaterializeRuleModel>(*ctx);
      });
}
