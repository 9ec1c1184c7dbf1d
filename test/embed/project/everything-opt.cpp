// An opt tool as most ML compilers write theirs: every upstream dialect,
// extension and pass, with shardc's beside them (shardc::registerEverything
// in place of mlir::registerAllDialects and mlir::registerAllExtensions,
// which would register upstream's own `shard` dialect too). It also gives
// an op shardc has no rule for (tosa.argmax) a rule of its own, as an
// external model: docs/partition.md shows this code.
#include "shardc/Dialect/Shard.h"
#include "shardc/Register.h"
#include "shardc/RegisterEverything.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

// argmax over `axis`: one loop per input dim; the rows (every other dim)
// are independent, the axis is reduced and needed whole.
struct ArgMaxRule
    : shardc::ShardingRuleOpInterface::ExternalModel<ArgMaxRule,
                                                     mlir::tosa::ArgMaxOp> {
  mlir::FailureOr<shardc::ShardingRule>
  getShardingRule(mlir::Operation *op) const {
    auto argmax = mlir::cast<mlir::tosa::ArgMaxOp>(op);
    auto type =
        mlir::dyn_cast<mlir::RankedTensorType>(argmax.getInput().getType());
    if (!type || !type.hasStaticShape())
      return op->emitError("argmax: a rule needs a static shape");
    shardc::ShardingRule rule;
    rule.operands.emplace_back();
    rule.results.emplace_back();
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      shardc::ShardingRule::Loop loop;
      loop.size = type.getDimSize(dim);
      loop.reduction = dim == argmax.getAxis();
      if (loop.reduction)
        loop.unshardable = "argmax needs the whole axis";
      rule.loops.push_back(loop);
      rule.operands[0].push_back(dim); // the input: every loop
      if (!loop.reduction)
        rule.results[0].push_back(dim); // the result: every loop but the axis
    }
    rule.combiners.push_back(std::nullopt); // not combined from parts
    rule.inits.push_back(-1);               // no init operand
    return rule;
  }
};

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  shardc::registerEverything(registry);
  registry.addExtension(+[](mlir::MLIRContext *ctx, mlir::tosa::TosaDialect *) {
    mlir::tosa::ArgMaxOp::attachInterface<ArgMaxRule>(*ctx);
  });
  mlir::registerAllPasses();
  shardc::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "shardc beside all of upstream MLIR", registry));
}
