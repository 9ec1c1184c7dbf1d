// An opt tool as most ML compilers write theirs: every upstream dialect,
// extension and pass, with shardc's beside them (shardc::registerEverything
// in place of mlir::registerAllDialects and mlir::registerAllExtensions,
// which would register upstream's own `shard` dialect too). It also gives
// an op shardc has no rule for (tosa.resize) a rule of its own, as an
// external model: docs/partition.md shows this code.
#include "shardc/Dialect/Shard.h"
#include "shardc/Register.h"
#include "shardc/RegisterEverything.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

// resize of NHWC images: one loop per result dim; the images (N) and
// channels (C) are independent, each image's rows and columns are read
// whole (an output pixel reads input pixels by the scale).
struct ResizeRule
    : shardc::ShardingRuleOpInterface::ExternalModel<ResizeRule,
                                                     mlir::tosa::ResizeOp> {
  mlir::FailureOr<shardc::ShardingRule>
  getShardingRule(mlir::Operation *op) const {
    auto resize = mlir::cast<mlir::tosa::ResizeOp>(op);
    auto type =
        mlir::dyn_cast<mlir::RankedTensorType>(resize.getOutput().getType());
    if (!type || !type.hasStaticShape() || type.getRank() != 4)
      return op->emitError("resize: a rule needs a static NHWC shape");
    shardc::ShardingRule rule;
    for (int64_t dim = 0; dim < 4; ++dim) {
      shardc::ShardingRule::Loop loop;
      loop.size = type.getDimSize(dim);
      if (dim == 1 || dim == 2)
        loop.unshardable = "resize reads each image whole";
      rule.loops.push_back(loop);
    }
    rule.operands.push_back({0, -1, -1, 3}); // the input: N and C by loops
    // scale, offset, border: not tensors
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      rule.operands.emplace_back();
    rule.results.push_back({0, 1, 2, 3});   // the result: every loop
    rule.combiners.push_back(std::nullopt); // not combined from parts
    rule.inits.push_back(-1);               // no init operand
    return rule;
  }
};

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  shardc::registerEverything(registry);
  registry.addExtension(+[](mlir::MLIRContext *ctx, mlir::tosa::TosaDialect *) {
    mlir::tosa::ResizeOp::attachInterface<ResizeRule>(*ctx);
  });
  mlir::registerAllPasses();
  shardc::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "shardc beside all of upstream MLIR", registry));
}
