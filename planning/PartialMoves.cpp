//===- PartialMoves.cpp - What a move to a Partial layout decides ---------===//
//
// A move's decision at the level of types (ShardPlanner.h): the layout a
// move reaches (a Partial destination is reached reduced, its copies made
// locally), whether it is one the runtime can make (one reduction per
// layout, element types a reduction supports), and which ranks hold a
// Partial layout's first copy.
//
//===----------------------------------------------------------------------===//

#include "PartialMoves.h"

#include "shardc/Dialect/ElementTypes.h"
#include "shardc/Planning/ShardPlanner.h"

#include <algorithm>

using namespace mlir;
using namespace shardc;
using namespace shardc::planning;

ShardedTensorType planning::reachedBy(ShardedTensorType from,
                                      ShardedTensorType to) {
  if (from == to)
    return to; // kept as it is, partial or not: nothing moves
  auto spec = dyn_cast<PlacementsSpecAttr>(to.getSpec());
  if (!spec || !spec.hasPartial())
    return to;
  return ShardedTensorType::get(to.getContext(), to.getDims(),
                                to.getElementType(), withoutPartial(spec));
}

/// The reduction of `type`'s Partial axes; `mixed` where they differ.
static std::optional<layout::Placement::Reduce>
partialReduceOf(ShardedTensorType type, bool &mixed) {
  mixed = false;
  auto spec = dyn_cast<PlacementsSpecAttr>(type.getSpec());
  if (!spec || !spec.hasPartial())
    return std::nullopt;
  return layout::partialReduce(
      {spec.getPlacements().begin(), spec.getPlacements().end()}, mixed);
}

/// Where `to`'s partial copies past the first hold the reduction's
/// identity: its Partial axes' reduction when sum or product.
std::optional<layout::Placement::Reduce>
planning::identityPastFirstCopyOf(ShardedTensorType to) {
  bool mixed = false;
  std::optional<layout::Placement::Reduce> reduce = partialReduceOf(to, mixed);
  if (reduce && !mixed &&
      (*reduce == layout::Placement::Reduce::Sum ||
       *reduce == layout::Placement::Reduce::Product))
    return reduce;
  return std::nullopt;
}

FailureOr<MoveDecision>
planning::decideMove(ShardedTensorType from, ShardedTensorType to,
                     llvm::function_ref<InFlightDiagnostic()> emitError) {
  bool mixed = false;
  partialReduceOf(from, mixed);
  if (mixed) {
    emitError() << "redistribution from " << from
                << " reduces its Partial axes with different operations, "
                   "which is not supported yet";
    return failure();
  }
  partialReduceOf(to, mixed);
  if (mixed) {
    emitError() << "redistribution to " << to
                << " keeps partial values reduced with different "
                   "operations, which is not supported yet";
    return failure();
  }
  if (from == to)
    return MoveDecision{to, std::nullopt};
  // The copies are made of the value and a reduction's identity: numbers.
  if (to.getSpec().hasPartial() &&
      !isa<IntegerType, FloatType>(to.getElementType())) {
    emitError() << "redistribution to " << to
                << " keeps partial values of element type "
                << to.getElementType() << ", which no reduction here "
                << "supports (integers and floats only)";
    return failure();
  }
  if (to.getSpec().hasPartial()) {
    std::string why = whyNotReducible(to.getElementType());
    if (!why.empty()) {
      emitError() << "redistribution to " << to
                  << " keeps partial values, which could not be reduced: "
                  << why;
      return failure();
    }
  }
  std::optional<layout::Placement::Reduce> identity =
      identityPastFirstCopyOf(to);
  if (identity && !to.getElementType().isSignlessIntOrFloat()) {
    // The identity is a constant of the element type, and MLIR's arith
    // constants are signless.
    emitError() << "redistribution to " << to << " keeps partial values of "
                << "element type " << to.getElementType() << " reduced by "
                << layout::reduceName(*identity)
                << ", which is not supported yet for signed or unsigned "
                   "integer types (use a signless one, or max, min or avg)";
    return failure();
  }
  return MoveDecision{reachedBy(from, to), identity};
}

std::vector<int64_t> planning::firstCopyRanks(ShardedTensorType type) {
  std::vector<int64_t> ranks;
  auto spec = dyn_cast<PlacementsSpecAttr>(type.getSpec());
  if (!spec || !spec.hasPartial()) {
    for (const layout::Block &block : type.getDeviceBlocks())
      ranks.push_back(block.placement.rank);
  } else {
    const layout::Mesh &mesh = spec.getMesh().getMesh();
    const std::vector<int64_t> copies = layout::meshPartialIndices(
        mesh, {spec.getPlacements().begin(), spec.getPlacements().end()});
    for (size_t i = 0; i < copies.size(); ++i)
      if (copies[i] == 0)
        ranks.push_back(mesh.deviceAt(static_cast<int64_t>(i)));
  }
  llvm::sort(ranks);
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

bool planning::holdsFirstCopy(ShardedTensorType type, int64_t rank) {
  const std::vector<int64_t> ranks = firstCopyRanks(type);
  return std::binary_search(ranks.begin(), ranks.end(), rank);
}

/// The words of the local step that makes `to`'s partial copies (empty
/// where it keeps none).
std::string planning::partialCopiesText(ShardedTensorType to) {
  bool mixed = false;
  std::optional<layout::Placement::Reduce> reduce = partialReduceOf(to, mixed);
  if (!reduce || mixed)
    return "";
  std::string name = layout::reduceName(*reduce);
  if (!identityPastFirstCopyOf(to))
    return "then, moving nothing, every P(" + name + ") copy holds the value";
  return "then, moving nothing, the first copy of each P(" + name +
         ") group keeps the value and the others hold " +
         (*reduce == layout::Placement::Reduce::Sum ? "0" : "1");
}
