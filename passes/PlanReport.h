//===- PlanReport.h - What a plan moves and what it costs -------*- C++ -*-===//
//
// The plan report of shard-plan-redistribute: per global op, the steps of its
// plan, the bytes each rank receives, the lower bound, and the modelled time.
// Definitions in docs/planner.md.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_PLANREPORT_H
#define SHARDC_PASSES_PLANREPORT_H

#include "shardc/Layout/Cost.h"

#include "mlir/IR/Operation.h"

#include <memory>
#include <string>

namespace shardc {

class PlanReport {
public:
  PlanReport(layout::Topology topology, int64_t worldSize);
  ~PlanReport();

  /// Records the plan of a global op (distribute, all_gather, redistribute)
  /// before the pass rewrites it. Other ops are ignored.
  void add(mlir::Operation *op);

  /// The report as JSON text: {"ops": [...]}.
  std::string json() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace shardc

#endif // SHARDC_PASSES_PLANREPORT_H
