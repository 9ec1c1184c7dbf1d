//===- RankZero.h - Work done once, on rank 0, for every rank -*- C++ -*-===//
//
// What every rank of a shard-run would compute alike (the search of
// -shard-propagate, the program as written) is computed on rank 0 and sent
// to the others, who wait without spinning: on ranks that share cores, N
// copies of the same work would take N times as long.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUN_RANKZERO_H
#define SHARDC_RUN_RANKZERO_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace shardc::run {

/// Sends `size` bytes at `data` from rank 0 to every rank's `data`. Every
/// rank calls it.
void broadcastRaw(void *data, long long size);

/// Sends rank 0's `value` to every rank.
template <typename T> void broadcastValue(T &value) {
  broadcastRaw(&value, static_cast<long long>(sizeof value));
}

/// Runs `propagate` (-shard-propagate) on `copy` once, on rank 0, and gives
/// every rank its result (MLIR bytecode), so that every rank partitions the
/// very same choice. Every rank calls it. Rank 0 says why where it fails;
/// the others fail with it, quietly.
mlir::LogicalResult propagateOnRankZero(mlir::OwningOpRef<mlir::ModuleOp> &copy,
                                        std::unique_ptr<mlir::Pass> propagate);

} // namespace shardc::run

#endif // SHARDC_RUN_RANKZERO_H
