//===- AlignToFactors.cpp - A loop sharding the tensors' layouts can say -===//
//
// alignToFactors (shardc/Rules/LoopSharding.h): drops the axes of a loop
// sharding that no layout of the op's tensors can say: a folded dim's cut
// between steps, a fold cut together with its dim's other loops where the
// layout would not hold exactly the loops' rows (foldCutIsExact), strided
// cuts that are not along a leading dim or whose groups do not divide the
// pieces, strided cuts of a loop whose partition needs one offset per rank
// (ShardingRule::whyNotStrided). Each drop is said in `why`.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/LoopSharding.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace shardc;
using layout::Placement;

/// Drops axis `axis` from `sharding` (and its split).
static void dropAxis(LoopSharding &sharding, size_t axis) {
  sharding.axisLoop[axis] = -1;
  if (axis < sharding.axisSplit.size())
    sharding.axisSplit[axis] = 1;
}

/// Whether the layout layoutUnder gives fold `fold`'s tensor under
/// `sharding` holds, on every device, exactly the rows of the folded dim
/// its loops' cuts give it, in their order: the rows b * inner + h *
/// stepInner + x for b in the device's chunk of the dim's own loop, h in
/// its chunk of the fold's loop (each nested over the axes that cut it,
/// plainly), x within a step. False past 2^16 rows of intervals.
static bool foldCutIsExact(const ShardingRule &rule,
                           const LoopSharding &sharding,
                           const ShardingRule::Fold &fold) {
  const auto &tensors = fold.result ? rule.results : rule.operands;
  ArrayRef<int64_t> dims = tensors[fold.tensor];
  const int64_t outer = dims[fold.dim];
  const layout::Mesh mesh = sharding.mesh.getMesh();
  for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis)
    if ((sharding.axisLoop[axis] == outer ||
         sharding.axisLoop[axis] == fold.loop) &&
        sharding.splitOf(axis) > 1)
      return false;
  const int64_t outerSize = rule.loops[outer].size;
  const int64_t inner = rule.loops[outer].innerFactor;
  const int64_t stepInner = rule.foldInner(fold);
  const int64_t total = outerSize * inner;
  const std::optional<int64_t> devices = mesh.size();
  if (!devices ||
      outerSize > (int64_t(1) << 16) / std::max<int64_t>(*devices, 1))
    return false;
  // The folded dim alone, as a 1-D tensor.
  PlacementsSpecAttr made = layoutUnder(rule, sharding, dims);
  std::vector<Placement> oneDim;
  for (const Placement &p : made.getPlacements()) {
    const bool here = (p.kind == Placement::Kind::Shard ||
                       p.kind == Placement::Kind::StridedShard) &&
                      p.dim == fold.dim;
    Placement q = here ? p : Placement::replicate();
    if (here)
      q.dim = 0;
    oneDim.push_back(q);
  }
  // (A shape: `{total}` alone would pick the overload taking a rank, which
  // checks no strided piece: 9 rows as (S(0), _S(0, 3)) on 2 x 2 passed,
  // and meshRows then read a layout it could not make: a crash.)
  if (!layout::checkPlacements(mesh, oneDim, std::vector<int64_t>{total}))
    return false;
  // A loop's chunk on a device: the axes that cut it, nested.
  auto chunkOf = [&](int64_t loop, const std::vector<int64_t> &coord) {
    std::vector<Placement> cuts;
    for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis)
      cuts.push_back(sharding.axisLoop[axis] == loop ? Placement::shard(0)
                                                     : Placement::replicate());
    // A device past the loop's last chunk holds none of it (3 steps over
    // 2 x 2 devices: the fourth holds no row; meshRows lists no chunk).
    const std::vector<layout::Chunk> rows =
        layout::meshRows({rule.loops[loop].size}, mesh, cuts, coord)[0];
    return rows.empty() ? layout::Chunk{0, 0} : rows.front();
  };
  auto merged = [](const std::vector<layout::Chunk> &rows) {
    std::vector<layout::Chunk> out;
    for (const layout::Chunk &c : rows) {
      if (c.size == 0)
        continue;
      if (!out.empty() && out.back().offset + out.back().size == c.offset)
        out.back().size += c.size;
      else
        out.push_back(c);
    }
    return out;
  };
  for (const std::vector<int64_t> &coord : layout::meshCoordinates(mesh)) {
    const layout::Chunk b = chunkOf(outer, coord);
    const layout::Chunk h = chunkOf(fold.loop, coord);
    std::vector<layout::Chunk> want;
    for (int64_t i = b.offset; h.size > 0 && i < b.offset + b.size; ++i)
      want.push_back({i * inner + h.offset * stepInner, h.size * stepInner});
    const std::vector<layout::Chunk> got =
        merged(layout::meshRows({total}, mesh, oneDim, coord)[0]);
    want = merged(want);
    if (got.size() != want.size())
      return false;
    for (size_t i = 0; i < got.size(); ++i)
      if (got[i].offset != want[i].offset || got[i].size != want[i].size)
        return false;
  }
  return true;
}

std::string shardc::whyNotCutInGroups(const ShardingRule &rule, int64_t loop,
                                      int64_t split) {
  if (std::string why = rule.whyNotStrided(loop); !why.empty())
    return why;
  const ShardingRule::Loop &info = rule.loops[loop];
  // Groups the split does not divide are torch.chunk's, as in the layouts
  // (layout::meshRows): every dim the loop alone indexes is cut alike. But
  // [2*4] into [4, 2] with d0 cut in 2 groups gave the operand and the
  // result different rows.
  if (info.innerFactor != 1 ||
      llvm::any_of(rule.folds,
                   [&](const ShardingRule::Fold &f) { return f.loop == loop; }))
    return "it indexes a folded dim, whose groups are not its own";
  return "";
}

LoopSharding shardc::alignToFactors(const ShardingRule &rule,
                                    LoopSharding sharding, std::string *why) {
  if (why)
    why->clear();
  if (!sharding.mesh)
    return sharding;
  layout::Mesh mesh = sharding.mesh.getMesh();
  auto note = [&](const std::string &text) {
    if (why)
      *why += (why->empty() ? "" : "; ") + text;
  };
  // A folded loop stays cut only where no other axis cuts its folded dim
  // (its groups are then the whole dim's: _S(dim, groups)).
  for (const ShardingRule::Fold &f : rule.folds) {
    const auto &tensors = f.result ? rule.results : rule.operands;
    const int64_t outer = tensors[f.tensor][f.dim];
    bool cut = false, outerCut = false, otherFold = false;
    for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis) {
      const int64_t loop = sharding.axisLoop[axis];
      cut |= loop == f.loop;
      if (loop < 0 || loop == f.loop)
        continue;
      if (loop == outer)
        outerCut = true;
      else if (llvm::any_of(rule.folds, [&](const ShardingRule::Fold &g) {
                 return g.result == f.result && g.tensor == f.tensor &&
                        g.dim == f.dim && g.loop == loop;
               }))
        otherFold = true;
    }
    if (!cut || (!outerCut && !otherFold))
      continue;
    // The dim's own loop cut too (dp on the batches of [B*H], tp on the
    // heads): kept where the layout says the loops' cut exactly.
    if (!otherFold && foldCutIsExact(rule, sharding, f))
      continue;
    std::string axesNamed;
    for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis)
      if (sharding.axisLoop[axis] == f.loop) {
        axesNamed += (axesNamed.empty() ? "" : ", ") +
                     axisName(sharding.mesh, static_cast<int64_t>(axis));
        dropAxis(sharding, axis);
      }
    note("d" + std::to_string(f.loop) + " (folded into dim " +
         std::to_string(f.dim) + " in " + std::to_string(f.groups) +
         " groups) is not sharded on " + axesNamed +
         ": another axis cuts the folded dim, and the layout cannot say "
         "both cuts");
  }
  // Each loop's steps of inner elements: as a folded dim's outer factor
  // (innerFactor), and where it folds into one in groups.
  std::vector<std::pair<int64_t, int64_t>> steps;
  for (size_t loop = 0; loop < rule.loops.size(); ++loop)
    steps.push_back({static_cast<int64_t>(loop), rule.loops[loop].innerFactor});
  for (const ShardingRule::Fold &f : rule.folds)
    steps.push_back({f.loop, rule.foldInner(f)});
  for (auto [loop, inner] : steps) {
    if (inner <= 1)
      continue;
    // The axes that shard the loop, nested in mesh order, as a mesh of
    // their own: the loop's blocks and the folded dim's must be the same
    // cuts, scaled by the inner factor.
    layout::Mesh axes;
    std::vector<Placement> placements;
    for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis)
      if (sharding.axisLoop[axis] == loop) {
        axes.shape.push_back(mesh.shape[axis]);
        placements.push_back(Placement::shard(0));
      }
    if (axes.shape.empty())
      continue;
    const int64_t size = rule.loops[loop].size;
    std::vector<layout::Block> stepBlocks =
        layout::meshBlocks({size}, axes, placements, layout::Device::Kind::CPU);
    std::vector<layout::Block> folded = layout::meshBlocks(
        {size * inner}, axes, placements, layout::Device::Kind::CPU);
    bool aligned = stepBlocks.size() == folded.size();
    for (size_t b = 0; aligned && b < stepBlocks.size(); ++b)
      aligned =
          folded[b].box.offsets[0] == stepBlocks[b].box.offsets[0] * inner &&
          folded[b].box.sizes[0] == stepBlocks[b].box.sizes[0] * inner;
    if (aligned)
      continue;
    std::string axesNamed;
    for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis)
      if (sharding.axisLoop[axis] == loop) {
        axesNamed += (axesNamed.empty() ? "" : ", ") +
                     axisName(sharding.mesh, static_cast<int64_t>(axis));
        dropAxis(sharding, axis);
      }
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "d" << loop << " (" << size << " steps of " << inner
       << " elements of a folded dim of " << size * inner
       << ") is not sharded on " << axesNamed
       << ": torch.chunk cuts the folded dim between its steps";
    note(text);
  }
  // Strided cuts the loop does not allow (whyNotCutInGroups; a folded
  // loop's cut is strided in its fold's groups, which its rule chose, so
  // only the partition's need of one offset applies to it).
  for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis) {
    const int64_t loop = sharding.axisLoop[axis];
    const int64_t split = sharding.splitOf(axis);
    if (loop < 0)
      continue;
    const bool folded =
        llvm::any_of(rule.folds, [&](const auto &f) { return f.loop == loop; });
    const std::string reason = split > 1 ? whyNotCutInGroups(rule, loop, split)
                               : folded  ? rule.whyNotStrided(loop)
                                         : std::string();
    if (reason.empty())
      continue;
    note("d" + std::to_string(loop) + " is not cut strided on " +
         axisName(sharding.mesh, static_cast<int64_t>(axis)) + ": " + reason);
    dropAxis(sharding, axis);
  }
  // Strided cuts: every tensor's groups must divide its pieces.
  bool strided =
      llvm::any_of(sharding.axisSplit, [](int64_t s) { return s > 1; });
  for (const ShardingRule::Fold &f : rule.folds)
    strided |= llvm::is_contained(sharding.axisLoop, f.loop);
  if (!strided)
    return sharding;
  // Strided only along a tensor's leading dim (every dim before it of one
  // element): a rank's rows are then one block per group; along a later
  // dim they are a block per row of the dims before, too many to plan.
  auto valid = [&](ArrayRef<int64_t> dims) {
    std::vector<int64_t> shape;
    for (int64_t loop : dims)
      shape.push_back(
          loop < 0 ? 1 : rule.loops[loop].size * rule.loops[loop].innerFactor);
    PlacementsSpecAttr made = layoutUnder(rule, sharding, dims);
    for (const Placement &p : made.getPlacements())
      if (p.kind == Placement::Kind::StridedShard)
        for (int64_t d = 0; d < p.dim; ++d)
          if (dims[d] < 0 || shape[d] > 1)
            return false;
    return static_cast<bool>(layout::checkPlacements(
        mesh, {made.getPlacements().begin(), made.getPlacements().end()},
        shape));
  };
  bool ok = true;
  for (const auto *tensors : {&rule.operands, &rule.results})
    for (const std::vector<int64_t> &dims : *tensors)
      ok = ok && valid(dims);
  if (ok)
    return sharding;
  for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis) {
    const int64_t loop = sharding.axisLoop[axis];
    const bool folds =
        llvm::any_of(rule.folds, [&](const auto &f) { return f.loop == loop; });
    if (sharding.splitOf(axis) > 1 || (loop >= 0 && folds)) {
      note("d" + std::to_string(loop) + " is not cut strided on " +
           axisName(sharding.mesh, static_cast<int64_t>(axis)) +
           ": its groups do not divide every device's piece, or it cuts a "
           "dim after one of more than one element");
      dropAxis(sharding, axis);
    }
  }
  return sharding;
}
