//===- PlanRedistribute.h - The pass with a shared planner -----*- C++ -*-===//
//
// shard-plan-redistribute with a planner its caller owns: a tool that reads
// the plans and the report (shard-plan) plans each redistribution once, in
// the pass, instead of once for itself and again in the pass.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_PLANREDISTRIBUTE_H
#define SHARDC_PASSES_PLANREDISTRIBUTE_H

#include "PlanReport.h"

#include "shardc/Passes/Passes.h"

#include <memory>

namespace shardc {

/// The pass with `options`, planning with `shared` (built with the same cost
/// model, world size and plans) and recording every global op in it, whether
/// or not `options.report` names a file. `shared` must outlive the pass.
std::unique_ptr<mlir::Pass>
createShardPlanRedistribute(const ShardPlanRedistributeOptions &options,
                            PlanReport &shared);

} // namespace shardc

#endif // SHARDC_PASSES_PLANREDISTRIBUTE_H
