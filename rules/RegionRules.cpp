//===- RegionRules.cpp - Rules of ops whose regions compute on tensors ----===//
//
// scf.forall (a parallel loop over slices of its shared outputs, as tiling
// leaves it: IREE's dispatches, graph-compiler's kernels) and vector.mask
// around a transfer of a tensor (vectorized IR with masks): ops whose
// regions read and write tensors, which no loop of a rule can follow into
// (the slices a forall's body reads and inserts are its own computation).
// Such an op runs whole on every rank: no loop; every tensor operand,
// every tensor its regions read from outside it, and every tensor result
// whole (a sharded or Partial one made whole first). Its regions are left
// as written (the default hook retypes nothing: whole blocks are the
// global tensors), as they run on every rank alike.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace shardc;

namespace {

/// Every tensor whole: operands, results and those the regions capture
/// (shardingRuleOf adds the last, whole, after the op's operands).
template <typename OpT>
struct WholeRegionRuleModel
    : ShardingRuleOpInterface::ExternalModel<WholeRegionRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (failed(checkRankedShapes(op)))
      return failure();
    return wholeTensorsRule(op);
  }
};

} // namespace

void shardc::registerRegionShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, scf::SCFDialect *) {
    scf::ForallOp::attachInterface<WholeRegionRuleModel<scf::ForallOp>>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, vector::VectorDialect *) {
    vector::MaskOp::attachInterface<WholeRegionRuleModel<vector::MaskOp>>(*ctx);
  });
}
