// Parses a module, asks the planning library what the all_gather's
// redistribution to a chunk spec would cost (as a propagation pass weighing
// layouts does, without building IR), plans it with shardc's pass, prints
// the result: what a larger ML compiler does when it embeds shardc.
#include "shardc/Passes/Passes.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Register.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: embed-demo FILE.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  shardc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  // The cost of moving the argument to chunks of dim 0 on the same ranks.
  auto fn = *module->getOps<mlir::func::FuncOp>().begin();
  auto from = mlir::cast<shardc::ShardedTensorType>(fn.getArgumentTypes()[0]);
  auto chunk = mlir::cast<shardc::ChunkSpecAttr>(from.getSpec());
  auto to = shardc::ShardedTensorType::get(
      &context, from.getShape(), from.getElementType(),
      shardc::ChunkSpecAttr::get(&context, 0, chunk.getPlacements()));
  std::unique_ptr<shardc::planning::ShardPlanner> planner =
      shardc::planning::ShardPlanner::create(
          {}, [&] { return mlir::emitError(mlir::UnknownLoc::get(&context)); });
  if (!planner)
    return 1;
  const shardc::planning::PlanSummary &cost = planner->cost(from, to);
  llvm::errs() << "cost: " << cost.bytesReceivedTotal << " bytes, "
               << (cost.atLowerBound() ? "at" : "above") << " the bound\n";

  mlir::PassManager pm(&context);
  pm.addPass(shardc::createShardPlanRedistribute());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
