//===- PlanReport.h - The plans chosen and what they cost -------*- C++ -*-===//
//
// The planner as shard-plan-redistribute uses it: the plan chosen for each
// redistribution (cached per pair of types: modules repeat them), and the
// plan report (per global op: the steps of its plan, the bytes each rank
// receives, the lower bound, the modelled time, the candidates considered).
// Definitions in docs/planner.md.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_PLANREPORT_H
#define SHARDC_PASSES_PLANREPORT_H

#include "shardc/Dialect/Shard.h"
#include "shardc/Layout/Planner.h"

#include "mlir/IR/Operation.h"

#include <memory>
#include <string>

namespace shardc {

/// The planner's view of `type` (a mesh layout for DTensor placements).
layout::PlanLayout planLayoutOf(ShardedTensorType type);

/// The type of a step's layout: `to` for the final step; otherwise the
/// intermediate placements on `from`'s mesh (or a 1-D mesh of every rank).
ShardedTensorType stepType(const layout::PlanStep &step, ShardedTensorType from,
                           ShardedTensorType to);

class PlanReport {
public:
  /// `directOnly`: plan every redistribution as one exchange.
  PlanReport(layout::Topology topology, int64_t worldSize, bool directOnly);
  ~PlanReport();

  /// The plan chosen for moving `from` to `to` (computed once per pair).
  const layout::PlanChoice &choose(ShardedTensorType from,
                                   ShardedTensorType to);

  /// getLocalType(type), computed once per type.
  mlir::RankedTensorType localType(ShardedTensorType type);

  /// Records the plan of a global op (distribute, all_gather, gather,
  /// redistribute) before the pass rewrites it. Other ops are ignored.
  /// Emits at `op` and fails when a byte count of its entry does not fit
  /// int64.
  mlir::LogicalResult add(mlir::Operation *op);

  /// The report as JSON text: {"ops": [...]}.
  std::string json() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace shardc

#endif // SHARDC_PASSES_PLANREPORT_H
