//===- ControlFlow.h - Where layouts flow through control flow ---*- C++
//-*-===//
//
// One description, for every pass, of how tensors pass through an op with
// regions: MLIR's RegionBranchOpInterface (which values each branch point
// forwards to which region arguments or results) and LoopLikeOpInterface
// (trip counts). scf.for, scf.while, scf.if, scf.execute_region,
// scf.index_switch, affine.for, affine.if and any op of another dialect that
// implements the interfaces are handled alike: -shard-propagate's graph,
// its search and its write-back, and -shard-spmd-partition read this, and
// none names an op kind. Private to passes/.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_CONTROLFLOW_H
#define SHARDC_PASSES_CONTROLFLOW_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace shardc {

/// Values control flow passes along as one: the region arguments and
/// results of an op that receive a common forwarded operand (scf.for's and
/// affine.for's init, iter_arg, yield and result, scf.while's after-region
/// argument and result, scf.if's result), which share one layout, and those
/// operands (inits, yields, a condition's values), each of which must reach
/// it in that layout.
struct FlowGroup {
  /// The op's results first, then region arguments, each in order.
  llvm::SmallVector<mlir::Value, 2> values;
  /// Forwarded operands, the op's own (entry) first, then its terminators'
  /// in region order.
  llvm::SmallVector<mlir::OpOperand *, 2> sources;
  /// "result #i" where the group holds a result, else "carried value #i"
  /// (the region argument's place among those its region receives).
  std::string what;
};

/// Whether layouts follow tensors through `op`'s regions: `op` implements
/// RegionBranchOpInterface, has no sharding rule, each of its regions is
/// empty or one block ending in a RegionBranchTerminatorOpInterface op, and
/// every tensor it defines (result or region argument) receives forwarded
/// values and every tensor it or its terminators use is forwarded. Others
/// (scf.forall's parallel inserts, scf.parallel's reductions, regions of
/// several blocks) are not entered.
bool carriesLayouts(mlir::Operation *op);

/// Whether `op` is the terminator of an op that carriesLayouts.
bool forwardsLayouts(mlir::Operation *op);

/// The groups of an op that carriesLayouts, in the order their first
/// values appear among its successors (tensors and other values alike).
llvm::SmallVector<FlowGroup> flowGroups(mlir::Operation *op);

/// How many times `region` of `op` runs per run of `op`: 1 where it does
/// not branch back to itself, else the loop's static trip count
/// (LoopLikeOpInterface), else nullopt (unknown).
std::optional<uint64_t> runsPerEntry(mlir::Operation *op, mlir::Region &region);

} // namespace shardc

#endif // SHARDC_PASSES_CONTROLFLOW_H
