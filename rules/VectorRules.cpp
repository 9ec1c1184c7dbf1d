//===- VectorRules.cpp - Rules of vector ops on tensors -------------------===//
//
// vector.transfer_read and vector.gather of a tensor, vector.transfer_write
// and vector.scatter into one (vectorized IR: tpp-mlir's and IREE's kernels
// after linalg's vectorizer): a vector has no layout, so the tensor is read
// (written) whole on every rank: no loop; a sharded or Partial tensor is
// made whole first, and the op runs as written (the default hook), each
// rank computing the whole vector. On a memref the rule names no tensor
// (nothing to cut; the passes never ask: the op holds no tensor).
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace shardc;

namespace {

/// The op's one tensor operand (its base) read whole; the tensor it
/// results in, where it writes one, is that operand written.
template <typename OpT>
struct WholeBaseRuleModel
    : ShardingRuleOpInterface::ExternalModel<WholeBaseRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (failed(checkRankedShapes(op)))
      return failure();
    Value base = cast<OpT>(op).getBase();
    const int64_t init =
        op->getNumResults() == 1 &&
                isa<RankedTensorType>(op->getResultTypes()[0])
            ? static_cast<int64_t>(llvm::find(op->getOperands(), base) -
                                   op->operand_begin())
            : -1;
    return wholeTensorsRule(op, init);
  }
};

} // namespace

void shardc::registerVectorShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, vector::VectorDialect *) {
    vector::TransferReadOp::attachInterface<
        WholeBaseRuleModel<vector::TransferReadOp>>(*ctx);
    vector::TransferWriteOp::attachInterface<
        WholeBaseRuleModel<vector::TransferWriteOp>>(*ctx);
    vector::GatherOp::attachInterface<WholeBaseRuleModel<vector::GatherOp>>(
        *ctx);
    vector::ScatterOp::attachInterface<WholeBaseRuleModel<vector::ScatterOp>>(
        *ctx);
  });
}
