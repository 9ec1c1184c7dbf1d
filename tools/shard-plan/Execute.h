//===- Execute.h - shard-plan --execute: run a planned program ---*- C++
//-*-===//

#ifndef SHARDC_TOOLS_SHARD_PLAN_EXECUTE_H
#define SHARDC_TOOLS_SHARD_PLAN_EXECUTE_H

#include "shardc/Dialect/Shard.h"
#include "shardc/Planning/Planner.h"

#include "shardrt.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace shardc {

/// An element type --execute fills and checks: one the runtime moves (the
/// element-type table's).
struct Dtype {
  shardrt_dtype rt;
  int64_t bytes;
};

/// The Dtype of `type`, or nullopt when the runtime does not move it.
std::optional<Dtype> executableDtype(mlir::Type type);

/// Runs the planned program (-shard-plan-redistribute's output for
/// `from` -> `to`) on this rank, collective by collective, and checks every
/// element of its destination block. Returns whether this rank is fine;
/// `report` gets its lines ("rank R: OK, ..."), counting the bytes `plan`
/// says this rank receives.
bool executeOnRank(mlir::ModuleOp program, ShardedTensorType from,
                   ShardedTensorType to, const planning::Plan &plan, int rank,
                   const Dtype &dtype, std::string &report);

} // namespace shardc

#endif // SHARDC_TOOLS_SHARD_PLAN_EXECUTE_H
