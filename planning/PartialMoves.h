//===- PartialMoves.h - What a move to a Partial layout keeps ---*- C++ -*-===//
//
// Internal to the planning library: what the planner's summaries and op
// plans read of a Partial destination (the decisions themselves,
// decideMove and reachedBy, are in ShardPlanner.h).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_PARTIALMOVES_H
#define SHARDC_PLANNING_PARTIALMOVES_H

#include "shardc/Dialect/Shard.h"

#include <optional>
#include <string>

namespace shardc {
namespace planning {

/// Where `to`'s partial copies past the first hold the reduction's
/// identity: its Partial axes' reduction when sum or product.
std::optional<layout::Placement::Reduce>
identityPastFirstCopyOf(ShardedTensorType to);

/// The words of the local step that makes `to`'s partial copies (empty
/// where it keeps none).
std::string partialCopiesText(ShardedTensorType to);

} // namespace planning
} // namespace shardc

#endif // SHARDC_PLANNING_PARTIALMOVES_H
