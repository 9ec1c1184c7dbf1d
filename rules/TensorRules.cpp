//===- TensorRules.cpp - Rules of tensor dialect ops ----------------------===//
//
// tensor.empty: one parallel loop per dim and no tensor operand, so it takes
// any layout; partitioned into an empty tensor of this rank's block sizes.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/TensorCast.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace shardc;

namespace {

struct EmptyRuleModel
    : ShardingRuleOpInterface::ExternalModel<EmptyRuleModel,
                                             tensor::EmptyOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto type = cast<tensor::EmptyOp>(op).getType();
    // Its operands are the sizes of dynamic dims, which a sharded result
    // does not have.
    if (!type.hasStaticShape())
      return op->emitOpError() << "has a result of dynamic shape " << type
                               << "; sharding needs static shapes";
    return ShardingRule::elementwise(
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
        std::vector<bool>(op->getNumOperands(), false));
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto empty = cast<tensor::EmptyOp>(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    ShardedTensorType global = context.globalOf(empty.getResult());
    Value local = tensor::EmptyOp::create(
        b, loc, context.localSizes(b, loc, op, global),
        global.getElementType());
    context.replace(empty.getResult(),
                    castTo(b, loc, local, getLocalType(global)));
    empty.erase();
    return success();
  }
};

} // namespace

void shardc::registerTensorShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::EmptyOp::attachInterface<EmptyRuleModel>(*ctx);
  });
}
