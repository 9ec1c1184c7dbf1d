// An opt tool as most ML compilers write theirs: every upstream dialect,
// extension and pass, with shardc's beside them (shardc::registerEverything
// in place of mlir::registerAllDialects and mlir::registerAllExtensions,
// which would register upstream's own `shard` dialect too). It also gives
// its own custom op (a tosa.custom, which shardc has no rule for) a rule,
// as an external model: docs/partition.md shows this code.
#include "shardc/Dialect/Shard.h"
#include "shardc/Register.h"
#include "shardc/RegisterEverything.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

// The embedder's own custom op (tosa.custom, domain "example", operator
// "row_softmax": a softmax along the last dim): one loop per dim; the
// rows are independent, each row is read whole.
struct RowSoftmaxRule
    : shardc::ShardingRuleOpInterface::ExternalModel<RowSoftmaxRule,
                                                     mlir::tosa::CustomOp> {
  mlir::FailureOr<shardc::ShardingRule>
  getShardingRule(mlir::Operation *op) const {
    auto custom = mlir::cast<mlir::tosa::CustomOp>(op);
    if (custom.getDomainName() != "example" ||
        custom.getOperatorName() != "row_softmax")
      return op->emitError("custom: no rule for ")
             << custom.getDomainName() << "." << custom.getOperatorName();
    if (op->getNumOperands() != 1 || op->getNumResults() != 1 ||
        op->getOperand(0).getType() != op->getResult(0).getType())
      return op->emitError("row_softmax: one input, one result alike");
    auto type =
        mlir::dyn_cast<mlir::RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() || type.getRank() < 1)
      return op->emitError("row_softmax: a rule needs a static shape");
    shardc::ShardingRule rule;
    std::vector<int64_t> dims;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      shardc::ShardingRule::Loop loop;
      loop.size = type.getDimSize(dim);
      if (dim == type.getRank() - 1)
        loop.unshardable = "row_softmax reads each row whole";
      rule.loops.push_back(loop);
      dims.push_back(dim);
    }
    rule.operands.push_back(dims);          // the input: every loop
    rule.results.push_back(dims);           // the result: every loop
    rule.combiners.push_back(std::nullopt); // not combined from parts
    rule.inits.push_back(-1);               // no init operand
    return rule;
  }
};

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  shardc::registerEverything(registry);
  registry.addExtension(+[](mlir::MLIRContext *ctx, mlir::tosa::TosaDialect *) {
    mlir::tosa::CustomOp::attachInterface<RowSoftmaxRule>(*ctx);
  });
  mlir::registerAllPasses();
  shardc::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "shardc beside all of upstream MLIR", registry));
}
