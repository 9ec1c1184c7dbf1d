//===- CostModelOptions.h - The cost model's options of a pass --*- C++ -*-===//
//
// Every pass that plans (-shard-plan-redistribute, -shard-propagate,
// -shard-spmd-partition) takes the cost model's options, made from the
// planning library's one table (Planning/CostModel.h) by PassCostModel.
// Private to passes/.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_COSTMODELOPTIONS_H
#define SHARDC_PASSES_COSTMODELOPTIONS_H

#include "shardc/Planning/CostModel.h"

#include "mlir/Pass/Pass.h"

namespace shardc {

/// A pass option of the cost model.
using PassCostModelFlag =
    mlir::Pass::Option<std::string, planning::CostModelOptionParser>;

/// The cost model's options of one pass. A pass holding it declares its
/// copy constructor (a clone gets options of its own, and the pass manager
/// copies their values).
class PassCostModel : public planning::CostModelFlags<PassCostModelFlag> {
public:
  explicit PassCostModel(mlir::Pass &pass)
      : CostModelFlags([&](const planning::CostModelOption &option) {
          return std::make_unique<PassCostModelFlag>(
              pass, option.name, llvm::cl::desc(option.help));
        }) {}

  /// The cost model the options give; emits (after `emitError()`'s
  /// prefix) and returns nullopt for a text a program assigned that the
  /// option refuses.
  std::optional<planning::PlanningOptions>
  model(llvm::function_ref<mlir::InFlightDiagnostic()> emitError) const {
    planning::PlanningOptions value;
    std::string problem = read(value);
    if (problem.empty())
      return value;
    emitError() << problem;
    return std::nullopt;
  }

  /// The planner of the cost model the options give (null, with an error,
  /// for a bad one).
  std::unique_ptr<planning::ShardPlanner>
  planner(llvm::function_ref<mlir::InFlightDiagnostic()> emitError) const {
    std::optional<planning::PlanningOptions> given = model(emitError);
    if (!given)
      return nullptr;
    return planning::ShardPlanner::create(*given, emitError);
  }
};

} // namespace shardc

#endif // SHARDC_PASSES_COSTMODELOPTIONS_H
