//===- CostModelOptions.h - The cost model's options of a pass --*- C++ -*-===//
//
// Every pass that plans (-shard-plan-redistribute, -shard-propagate,
// -shard-spmd-partition) declares the cost model's options alike
// (Passes.td's CostModelOptions), and so does the shard-to-llvm pipeline
// (ShardToLLVMOptions). These read them into the planning library's one
// options struct, PlanningOptions, and hand them on from one pass or
// pipeline to the passes it runs. Private to passes/.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_COSTMODELOPTIONS_H
#define SHARDC_PASSES_COSTMODELOPTIONS_H

#include "shardc/Planning/ShardPlanner.h"

namespace shardc {

/// The cost model `from` (a pass, its generated options struct, or the
/// pipeline's options) describes. -1, the default of alpha-us and
/// beta-gbps, keeps the link's value; any other value is checked by the
/// planner.
template <typename From>
planning::PlanningOptions costModelOptionsOf(const From &from) {
  planning::PlanningOptions o;
  o.link = from.link;
  if (from.alphaUs != -1)
    o.alphaUs = from.alphaUs;
  if (from.betaGBps != -1)
    o.betaGBps = from.betaGBps;
  o.topologyFile = from.topologyFile;
  o.worldSize = from.worldSize;
  o.plans = from.plans;
  return o;
}

/// Copies the cost model's options of `from` to `to` (another pass's
/// generated options struct).
template <typename To, typename From>
void copyCostModelOptions(const From &from, To &to) {
  to.link = from.link;
  to.alphaUs = from.alphaUs;
  to.betaGBps = from.betaGBps;
  to.topologyFile = from.topologyFile;
  to.worldSize = from.worldSize;
  to.plans = from.plans;
}

} // namespace shardc

#endif // SHARDC_PASSES_COSTMODELOPTIONS_H
