//===- LoopSharding.cpp - Layouts of an op's tensors from its loops -------===//

#include "shardc/Rules/LoopSharding.h"
#include "shardc/Dialect/PartitionContext.h"

#include "mlir/IR/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace shardc;
using layout::Placement;

std::vector<const ShardingRule::Fold *>
shardc::foldsInto(const ShardingRule &rule, ArrayRef<int64_t> dims) {
  std::vector<const ShardingRule::Fold *> found;
  if (dims.empty())
    return found;
  for (const ShardingRule::Fold &f : rule.folds) {
    const auto &tensors = f.result ? rule.results : rule.operands;
    if (f.tensor < static_cast<int64_t>(tensors.size()) &&
        tensors[f.tensor].data() == dims.data() &&
        tensors[f.tensor].size() == dims.size())
      found.push_back(&f);
  }
  return found;
}

/// The placement of an axis that cuts fold `fold`'s loop, on its folded
/// dim: _S(dim, g), g the groups in each piece the axes before it leave
/// (the fold's groups over the sizes of those that cut the dim's own loop);
/// S(dim) where one group is left.
static Placement foldPlacement(const LoopSharding &sharding,
                               const ShardingRule::Fold &fold,
                               ArrayRef<int64_t> dims, size_t axis) {
  const layout::Mesh mesh = sharding.mesh.getMesh();
  int64_t before = 1;
  for (size_t a = 0; a < axis; ++a)
    if (sharding.axisLoop[a] == dims[fold.dim])
      before *= mesh.shape[a];
  const int64_t groups =
      fold.groups % before == 0 ? fold.groups / before : fold.groups;
  return groups > 1 ? Placement::strided(fold.dim, groups)
                    : Placement::shard(fold.dim);
}

PlacementsSpecAttr
shardc::layoutUnder(const ShardingRule &rule, const LoopSharding &sharding,
                    ArrayRef<int64_t> dims,
                    std::optional<Placement::Reduce> combiner) {
  std::vector<const ShardingRule::Fold *> folds = foldsInto(rule, dims);
  // (On the stack: every op's every operand asks, tens of thousands of
  // times in a large function.)
  SmallVector<Placement, 4> placements;
  for (auto [axis, loop] : llvm::enumerate(sharding.axisLoop)) {
    Placement p = Placement::replicate();
    if (loop >= 0) {
      const auto *it = llvm::find(dims, loop);
      const int64_t split = sharding.splitOf(axis);
      auto fold =
          llvm::find_if(folds, [&](const auto *f) { return f->loop == loop; });
      if (it != dims.end())
        p = split > 1 ? Placement::strided(it - dims.begin(), split)
                      : Placement::shard(it - dims.begin());
      else if (fold != folds.end())
        // The loop folds into a dim in groups: cut in each group of the
        // piece the axes before it left (those that cut the dim's own loop
        // leave groups / their sizes; one group: a plain cut). alignToFactors
        // keeps it only where that is the loops' cut, element for element.
        p = foldPlacement(sharding, **fold, dims, axis);
      else if (combiner && rule.loops[loop].reduction)
        p = Placement::partial(*combiner);
    }
    placements.push_back(p);
  }
  return PlacementsSpecAttr::get(sharding.mesh.getContext(), sharding.mesh,
                                 placements);
}

std::vector<bool> shardc::partialReadAxes(const LoopSharding &sharding) {
  std::vector<bool> axes(sharding.axisLoop.size(), false);
  if (!sharding.reads)
    return axes;
  for (Attribute read : sharding.reads)
    if (auto mesh = dyn_cast<PlacementsSpecAttr>(read))
      for (auto [a, p] : llvm::enumerate(mesh.getPlacements()))
        if (a < axes.size() && p.kind == Placement::Kind::Partial)
          axes[a] = true;
  return axes;
}

PlacementsSpecAttr shardc::resultLayoutUnder(const ShardingRule &rule,
                                             const LoopSharding &sharding,
                                             size_t result) {
  PlacementsSpecAttr made =
      layoutUnder(rule, sharding, rule.results[result], rule.combiners[result]);
  std::vector<bool> partial = partialReadAxes(sharding);
  if (llvm::none_of(partial, [](bool p) { return p; }))
    return made;
  std::vector<Placement> placements(made.getPlacements().begin(),
                                    made.getPlacements().end());
  for (auto [a, p] : llvm::enumerate(partial))
    if (p)
      placements[a] = Placement::partial(Placement::Reduce::Sum);
  return PlacementsSpecAttr::get(sharding.mesh.getContext(), sharding.mesh,
                                 placements);
}

LoopSharding shardc::withPartialReads(MLIRContext *ctx,
                                      const ShardingRule &rule,
                                      LoopSharding sharding, size_t group,
                                      ArrayRef<int64_t> axes) {
  SmallVector<Attribute> reads(rule.operands.size(), UnitAttr::get(ctx));
  for (int64_t operand : rule.linear[group]) {
    PlacementsSpecAttr loops =
        layoutUnder(rule, sharding, rule.operands[operand]);
    std::vector<Placement> placements(loops.getPlacements().begin(),
                                      loops.getPlacements().end());
    for (int64_t a : axes)
      placements[a] = Placement::partial(Placement::Reduce::Sum);
    reads[operand] = PlacementsSpecAttr::get(ctx, sharding.mesh, placements);
  }
  sharding.reads = ArrayAttr::get(ctx, reads);
  return sharding;
}

PlacementsSpecAttr shardc::operandLayoutUnder(const ShardingRule &rule,
                                              const LoopSharding &sharding,
                                              size_t operand,
                                              ShardingSpecAttrInterface have,
                                              ArrayRef<int64_t> shape) {
  if (ShardingSpecAttrInterface read = sharding.readOf(operand))
    if (PlacementsSpecAttr mesh = asMeshLayout(read, shape))
      return mesh;
  PlacementsSpecAttr need = layoutUnder(rule, sharding, rule.operands[operand]);
  // No window read of a tensor with a dynamic dim: a hook builds the parts
  // from block sizes made at compile time.
  if (!have || operand >= rule.windows.size() ||
      ShapedType::isDynamicShape(shape))
    return need;
  PlacementsSpecAttr mesh = asMeshLayout(have, shape);
  if (!mesh || mesh.getMesh() != sharding.mesh)
    return need;
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<Placement> kept(need.getPlacements().begin(),
                              need.getPlacements().end());
  bool any = false;
  for (auto [axis, p] : llvm::enumerate(mesh.getPlacements())) {
    if (p.kind != Placement::Kind::Shard ||
        kept[axis].kind != Placement::Kind::Replicate)
      continue;
    const int64_t dim = p.dim < 0 ? p.dim + rank : p.dim;
    const int64_t loop = dim >= 0 && dim < rank
                             ? rule.windowOf(operand, static_cast<size_t>(dim))
                             : -1;
    const int64_t shards = sharding.axisLoop[axis];
    if (loop < 0 || (shards != -1 && shards != loop))
      continue;
    kept[axis] = Placement::shard(dim);
    any = true;
  }
  if (!any)
    return need;
  // The window's parts must be one block per rank: no axis of more than
  // one device may replicate the operand.
  llvm::ArrayRef<int64_t> axes = sharding.mesh.getShape();
  for (auto [axis, p] : llvm::enumerate(kept))
    if (p.kind != Placement::Kind::Shard && axes[axis] > 1)
      return need;
  return PlacementsSpecAttr::get(sharding.mesh.getContext(), sharding.mesh,
                                 kept);
}

LoopSharding shardc::proposalOf(const ShardingRule &rule,
                                ArrayRef<int64_t> dims,
                                PlacementsSpecAttr layout,
                                ArrayRef<int64_t> windows) {
  LoopSharding proposal{layout.getMesh(), {}};
  int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<const ShardingRule::Fold *> folds = foldsInto(rule, dims);
  bool strided = false;
  // Per dim, the product of the sizes of the axes so far that cut its own
  // loop: a fold's cut after them is in its groups over that product
  // (layoutUnder's foldPlacement).
  std::vector<int64_t> before(rank, 1);
  const std::vector<int64_t> &sizes = layout.getMesh().getMesh().shape;
  for (auto [axis, p] : llvm::enumerate(layout.getPlacements())) {
    int64_t loop = -1, split = 1;
    int64_t dim = p.dim < 0 ? p.dim + rank : p.dim;
    const bool inTensor = dim >= 0 && dim < rank;
    // A fold into `dim` in `groups` groups over the axes before.
    auto foldFor = [&](int64_t groups) {
      return llvm::find_if(folds, [&](const auto *f) {
        return f->dim == dim && f->groups == groups * before[dim] &&
               rule.shardable(f->loop);
      });
    };
    if (p.kind == Placement::Kind::Shard && inTensor && dims[dim] >= 0 &&
        before[dim] > 1 && rule.loops[dims[dim]].size == before[dim] &&
        foldFor(1) != folds.end()) {
      // The dim's own loop is cut to single steps already: a further cut
      // is the loop folded inside it (dp on the 2 batches of [B*H], then
      // tp on the heads).
      loop = (*foldFor(1))->loop;
    } else if (p.kind == Placement::Kind::Shard) {
      if (inTensor && rule.shardable(dims[dim])) {
        loop = dims[dim];
        if (axis < sizes.size())
          before[dim] *= sizes[axis];
      } else if (dim >= 0 && dim < static_cast<int64_t>(windows.size()) &&
                 rule.shardable(windows[dim]))
        loop = windows[dim];
    } else if (p.kind == Placement::Kind::StridedShard && inTensor) {
      // A loop folded into the dim in as many groups (over the axes before
      // that cut the dim's own loop); else the dim's loop cut strided.
      auto fold = foldFor(p.split);
      if (fold != folds.end()) {
        loop = (*fold)->loop;
      } else if (rule.shardable(dims[dim])) {
        loop = dims[dim];
        split = p.split;
        strided |= split > 1;
      }
    }
    proposal.axisLoop.push_back(loop);
    proposal.axisSplit.push_back(split);
  }
  if (!strided)
    proposal.axisSplit.clear();
  return proposal;
}

LoopSharding shardc::mergeProposals(const LoopSharding &base,
                                    const LoopSharding &other) {
  if (base.mesh != other.mesh)
    return base;
  LoopSharding merged = base;
  for (size_t axis = 0; axis < merged.axisLoop.size(); ++axis) {
    int64_t loop = other.axisLoop[axis];
    if (merged.axisLoop[axis] != -1 || loop == -1)
      continue;
    merged.axisLoop[axis] = loop;
    if (other.splitOf(axis) != 1) {
      merged.axisSplit.resize(merged.axisLoop.size(), 1);
      merged.axisSplit[axis] = other.splitOf(axis);
    }
  }
  return merged;
}

PlacementsSpecAttr shardc::asMeshLayout(ShardingSpecAttrInterface spec,
                                        ArrayRef<int64_t> shape) {
  if (auto placements = dyn_cast<PlacementsSpecAttr>(spec))
    return placements;
  MLIRContext *ctx = spec.getContext();
  std::vector<layout::Device> devices;
  std::vector<Placement> placements;
  if (auto chunk = dyn_cast<ChunkSpecAttr>(spec)) {
    int64_t rank = static_cast<int64_t>(shape.size());
    int64_t dim = chunk.getDim() < 0 ? chunk.getDim() + rank : chunk.getDim();
    for (DeviceAttr device : chunk.getPlacements())
      devices.push_back(device.getDevice());
    placements.push_back(Placement::shard(dim));
  } else if (auto one = dyn_cast<DevicePlacementSpecAttr>(spec)) {
    devices.push_back(one.getDevice().getDevice());
    placements.push_back(Placement::replicate());
  } else {
    return nullptr;
  }
  std::vector<int64_t> ranks;
  for (const layout::Device &d : devices) {
    if (!d.hasRank() || d.kind != devices.front().kind ||
        llvm::is_contained(ranks, d.rank))
      return nullptr;
    ranks.push_back(d.rank);
  }
  // Ranks 0, 1, ... in order are the mesh's default devices.
  bool iota = true;
  for (size_t i = 0; i < ranks.size(); ++i)
    iota = iota && ranks[i] == static_cast<int64_t>(i);
  auto mesh = MeshAttr::get(ctx, {static_cast<int64_t>(ranks.size())},
                            iota ? ArrayRef<int64_t>() : ArrayRef(ranks), {},
                            devices.front().kind);
  auto result = PlacementsSpecAttr::get(ctx, mesh, placements);
  // The same blocks on the same devices, or no mesh layout at all (a device
  // index the mesh cannot say, for example).
  auto noError = [] { return InFlightDiagnostic(); };
  std::vector<layout::Block> want, got;
  if (failed(spec.getDeviceBlocks(shape, noError, want)) ||
      failed(result.getDeviceBlocks(shape, noError, got)) ||
      want.size() != got.size())
    return nullptr;
  // A device is its rank and kind: a CUDA device's index
  // ("rank:1/cuda:1") is PyTorch's metadata, which the runtime does not read
  // (each rank runs on the GPU of its node-local rank), and a mesh cannot
  // say it.
  // An empty block is the same wherever its offset says it lies (a chunk
  // spec's at split * i, PyTorch's ChunkShardingSpec: 6 for the last of 5
  // rows over 4; a mesh's at the dim's end, DTensor's).
  for (size_t i = 0; i < want.size(); ++i)
    if (!(want[i].box == got[i].box ||
          (want[i].box.empty() && got[i].box.empty())) ||
        want[i].placement.rank != got[i].placement.rank ||
        want[i].placement.kind != got[i].placement.kind)
      return nullptr;
  return result;
}

/// Blocks keyed by the rank and device kind that hold them.
using RankBoxes = std::map<std::pair<int64_t, int>, std::vector<layout::Box>>;

/// Each rank's blocks that hold elements, in table order (the order of a
/// packed view); nullopt when a block names no rank. `several`, when
/// given, is set when a rank owns several blocks, empty ones included (its
/// local view is then packed).
static std::optional<RankBoxes> boxesByRank(ShardingSpecAttrInterface spec,
                                            ArrayRef<int64_t> shape,
                                            bool *several = nullptr) {
  std::vector<layout::Block> blocks;
  if (failed(spec.getDeviceBlocks(
          shape, [] { return InFlightDiagnostic(); }, blocks)))
    return std::nullopt;
  RankBoxes boxes;
  std::map<int64_t, int64_t> owned;
  for (const layout::Block &block : blocks) {
    if (!block.placement.hasRank())
      return std::nullopt;
    if (several && ++owned[block.placement.rank] > 1)
      *several = true;
    if (!block.box.empty())
      boxes[{block.placement.rank, static_cast<int>(block.placement.kind)}]
          .push_back(block.box);
  }
  return boxes;
}

bool shardc::sameBlocks(ShardingSpecAttrInterface a,
                        ShardingSpecAttrInterface b, ArrayRef<int64_t> shape) {
  if (a == b)
    return true;
  PlacementsSpecAttr meshA = asMeshLayout(a, shape);
  return meshA && meshA == asMeshLayout(b, shape);
}

bool shardc::sameElementsOnRanks(ShardingSpecAttrInterface a,
                                 ShardingSpecAttrInterface b,
                                 ArrayRef<int64_t> shape) {
  if (sameBlocks(a, b, shape))
    return true;
  // Blocks at the nominal extent of a dynamic dim a layout cuts tell
  // nothing of the run time's (nested and flat cuts agree at 64 rows).
  if (a.hasPartial() || b.hasPartial() || cutsDynamicDim(a, shape) ||
      cutsDynamicDim(b, shape))
    return false;
  bool severalA = false, severalB = false;
  auto boxesA = boxesByRank(a, shape, &severalA);
  auto boxesB = boxesByRank(b, shape, &severalB);
  return boxesA && boxesB && *boxesA == *boxesB && severalA == severalB;
}

std::string shardc::axisName(MeshAttr mesh, int64_t axis) {
  if (axis < static_cast<int64_t>(mesh.getAxes().size()))
    return mesh.getAxes()[axis].str();
  return "axis " + std::to_string(axis);
}

std::string shardc::describeSharding(const LoopSharding &sharding) {
  std::string text;
  for (size_t axis = 0; axis < sharding.axisLoop.size(); ++axis) {
    if (sharding.axisLoop[axis] < 0)
      continue;
    if (!text.empty())
      text += ", ";
    text += "d" + std::to_string(sharding.axisLoop[axis]) +
            (sharding.splitOf(axis) > 1
                 ? " strided in " + std::to_string(sharding.splitOf(axis)) +
                       " groups"
                 : std::string()) +
            " on " + axisName(sharding.mesh, axis);
  }
  if (text.empty())
    text = "nothing sharded";
  // The operands read P(sum), with the axes they are partial on.
  std::vector<bool> partial = partialReadAxes(sharding);
  if (llvm::none_of(partial, [](bool p) { return p; }))
    return text;
  std::string operands, axes;
  for (size_t i = 0; i < sharding.reads.size(); ++i)
    if (auto mesh = dyn_cast<PlacementsSpecAttr>(sharding.reads[i]);
        mesh && mesh.hasPartial())
      operands += (operands.empty() ? "#" : ", #") + std::to_string(i);
  for (auto [a, p] : llvm::enumerate(partial))
    if (p)
      axes += (axes.empty() ? "" : ", ") + axisName(sharding.mesh, a);
  return text + ", reading " + operands + " P(sum) on " + axes;
}

PlacementsSpecAttr shardc::meshFormOn(MeshAttr mesh,
                                      ShardingSpecAttrInterface spec,
                                      ArrayRef<int64_t> shape) {
  if (!mesh || !spec)
    return nullptr;
  auto want = boxesByRank(spec, shape);
  if (!want)
    return nullptr;
  // R or S(dim) on each axis: (rank + 1)^axes candidates, at most a few
  // hundred for the meshes and ranks programs have.
  const size_t axes = mesh.getShape().size();
  const int64_t choices = static_cast<int64_t>(shape.size()) + 1;
  double count = std::pow(static_cast<double>(choices), axes);
  if (count > 4096)
    return nullptr;
  std::vector<int64_t> pick(axes, 0);
  for (int64_t n = 0; n < static_cast<int64_t>(count); ++n) {
    std::vector<Placement> placements;
    for (size_t a = 0; a < axes; ++a)
      placements.push_back(pick[a] == 0 ? Placement::replicate()
                                        : Placement::shard(pick[a] - 1));
    auto candidate =
        PlacementsSpecAttr::get(mesh.getContext(), mesh, placements);
    auto have = boxesByRank(candidate, shape);
    if (have && *have == *want)
      return candidate;
    for (size_t a = 0; a < axes; ++a) {
      if (++pick[a] < choices)
        break;
      pick[a] = 0;
    }
  }
  return nullptr;
}

/// The layouts `op` computes its results in from operand `operand` laid out
/// as `have` (layoutInPlace); empty when it cannot, or has no rule
/// interface.
static SmallVector<ShardingSpecAttrInterface>
inPlaceResults(Operation *op, const ShardingRule &rule, size_t operand,
               ShardingSpecAttrInterface have) {
  auto iface = dyn_cast<ShardingRuleOpInterface>(op);
  if (!iface || !have)
    return {};
  SmallVector<ShardingSpecAttrInterface> layouts(rule.operands.size(), nullptr);
  if (operand >= layouts.size())
    return {};
  layouts[operand] = have;
  SmallVector<ShardingSpecAttrInterface> results;
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    if (!isa<RankedTensorType>(result.getType())) {
      results.push_back(nullptr);
      continue;
    }
    ShardingSpecAttrInterface layout =
        iface.layoutInPlace(static_cast<unsigned>(i), layouts);
    if (!layout)
      return {};
    results.push_back(layout);
  }
  // An op without tensor results (tensor.extract, tensor.dim) computes
  // none in place: it reads the operand as its rule says. (All null, the
  // callers' every-result check held vacuously and kept an enumerable
  // operand, which the partition then found no sharding in.)
  if (llvm::all_of(results,
                   [](ShardingSpecAttrInterface layout) { return !layout; }))
    return {};
  return results;
}

ShardingSpecAttrInterface shardc::operandLayoutUnder(
    Operation *op, const ShardingRule &rule, const LoopSharding &sharding,
    size_t operand, ShardingSpecAttrInterface have, ArrayRef<int64_t> shape) {
  if (ShardingSpecAttrInterface read = sharding.readOf(operand))
    return read;
  PlacementsSpecAttr need =
      operandLayoutUnder(rule, sharding, operand, have, shape);
  if (!have || asMeshLayout(have, shape) || !sharding.mesh)
    return need;
  SmallVector<ShardingSpecAttrInterface> results =
      inPlaceResults(op, rule, operand, have);
  if (results.empty())
    return need;
  for (auto [i, layout] : llvm::enumerate(results)) {
    if (!layout)
      continue;
    auto type = cast<RankedTensorType>(op->getResult(i).getType());
    PlacementsSpecAttr mesh =
        meshFormOn(sharding.mesh, layout, type.getShape());
    if (!mesh || mesh != resultLayoutUnder(rule, sharding, i))
      return need;
  }
  return have;
}

std::optional<LoopSharding>
shardc::inPlaceProposal(Operation *op, const ShardingRule &rule, MeshAttr mesh,
                        size_t operand, ShardingSpecAttrInterface have) {
  if (!mesh)
    return std::nullopt;
  SmallVector<ShardingSpecAttrInterface> results =
      inPlaceResults(op, rule, operand, have);
  std::optional<LoopSharding> proposal;
  for (auto [i, layout] : llvm::enumerate(results)) {
    if (!layout)
      continue;
    auto type = cast<RankedTensorType>(op->getResult(i).getType());
    PlacementsSpecAttr form = meshFormOn(mesh, layout, type.getShape());
    if (!form)
      return std::nullopt;
    LoopSharding one = proposalOf(rule, rule.results[i], form);
    if (proposal && *proposal != one)
      return std::nullopt;
    proposal = one;
  }
  return proposal;
}

LoopSharding shardc::loopShardingOf(OpShardingAttr attr) {
  LoopSharding sharding{
      attr.getMesh(),
      std::vector<int64_t>(attr.getLoops().begin(), attr.getLoops().end())};
  sharding.axisSplit.assign(attr.getSplits().begin(), attr.getSplits().end());
  sharding.reads = attr.getReads();
  return sharding;
}

OpShardingAttr shardc::opShardingAttrOf(const LoopSharding &sharding) {
  std::vector<int64_t> splits;
  for (size_t a = 0; a < sharding.axisLoop.size(); ++a)
    splits.push_back(sharding.splitOf(a));
  if (llvm::all_of(splits, [](int64_t s) { return s == 1; }))
    splits.clear();
  return OpShardingAttr::get(sharding.mesh.getContext(), sharding.mesh,
                             sharding.axisLoop, splits, sharding.reads);
}

LoopSharding shardc::withReads(Operation *op, const ShardingRule &rule,
                               LoopSharding sharding,
                               ArrayRef<ShardingSpecAttrInterface> have) {
  if (sharding.reads)
    return sharding;
  SmallVector<Value> operands(op->getOperands());
  llvm::append_range(operands, capturedTensors(op));
  MLIRContext *ctx = op->getContext();
  SmallVector<Attribute> reads(rule.operands.size(), UnitAttr::get(ctx));
  bool any = false;
  for (size_t i = 0; i < reads.size() && i < have.size() && i < operands.size();
       ++i) {
    auto type = dyn_cast<RankedTensorType>(operands[i].getType());
    if (!type || !have[i])
      continue;
    ShardingSpecAttrInterface need =
        operandLayoutUnder(op, rule, sharding, i, have[i], type.getShape());
    if (sameBlocks(need, layoutUnder(rule, sharding, rule.operands[i]),
                   type.getShape()))
      continue;
    reads[i] = need;
    any = true;
  }
  if (any)
    sharding.reads = ArrayAttr::get(ctx, reads);
  return sharding;
}

std::string shardc::invalidSharding(const ShardingRule &rule,
                                    const LoopSharding &sharding) {
  for (auto [axis, loop] : llvm::enumerate(sharding.axisLoop)) {
    if (loop < 0)
      continue;
    if (loop >= static_cast<int64_t>(rule.loops.size()))
      return rule.loops.empty()
                 ? "its rule has no loops, not d" + std::to_string(loop)
                 : "its rule's loops are d0 to d" +
                       std::to_string(rule.loops.size() - 1) + ", not d" +
                       std::to_string(loop);
    if (!rule.loops[loop].unshardable.empty())
      return "d" + std::to_string(loop) +
             " may not be sharded: " + rule.loops[loop].unshardable;
  }
  std::string why;
  if (alignToFactors(rule, sharding, &why) != sharding)
    return why;
  return "";
}

/// `attr` as the IR prints it.
static std::string printed(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << attr;
  return text;
}

/// Why the Partial axes of the layouts `sharding` reads operands in are
/// not ones its rule lets it read them in ("" when they are): on each
/// such axis, P(sum), no loop sharded, and the operands read Partial there
/// exactly one of the rule's linear groups.
static std::string invalidPartialReads(const ShardingRule &rule,
                                       const LoopSharding &sharding) {
  std::vector<bool> axes = partialReadAxes(sharding);
  for (auto [a, partial] : llvm::enumerate(axes)) {
    if (!partial)
      continue;
    const std::string axis = axisName(sharding.mesh, a);
    if (sharding.axisLoop[a] >= 0)
      return "it reads operands Partial on " + axis + ", which shards loop d" +
             std::to_string(sharding.axisLoop[a]) +
             " (a Partial read needs an axis that shards no loop)";
    std::vector<int64_t> group;
    for (size_t i = 0; i < sharding.reads.size(); ++i) {
      auto mesh = dyn_cast<PlacementsSpecAttr>(sharding.reads[i]);
      if (!mesh || a >= mesh.getPlacements().size())
        continue;
      const Placement &p = mesh.getPlacements()[a];
      if (p.kind != Placement::Kind::Partial)
        continue;
      if (p.reduce != Placement::Reduce::Sum)
        return "it reads operand #" + std::to_string(i) + " P(" +
               layout::reduceName(p.reduce) + ") on " + axis +
               "; only P(sum) passes through a linear op";
      group.push_back(static_cast<int64_t>(i));
    }
    if (!llvm::is_contained(rule.linear, group)) {
      std::string names;
      for (int64_t i : group)
        names += (names.empty() ? "#" : ", #") + std::to_string(i);
      std::string groups;
      for (const std::vector<int64_t> &g : rule.linear) {
        groups += groups.empty() ? "[" : ", [";
        for (auto [k, i] : llvm::enumerate(g))
          groups += (k ? ", #" : "#") + std::to_string(i);
        groups += "]";
      }
      return "it reads operands " + names + " Partial on " + axis +
             ", which are not a group its results are linear in (" +
             (rule.linear.empty() ? std::string("its rule has none")
                                  : "its rule's: " + groups) +
             ")";
    }
  }
  return "";
}

/// Why the layouts `sharding` reads `op`'s operands in are not ones its
/// rule lets it read them in ("" when they are): per operand named, the
/// layout operandLayoutUnder keeps when the operand has it.
static std::string invalidReads(Operation *op, const ShardingRule &rule,
                                const LoopSharding &sharding) {
  if (!sharding.reads)
    return "";
  if (sharding.reads.size() != rule.operands.size())
    return "it reads " + std::to_string(sharding.reads.size()) +
           " operands; its rule has " + std::to_string(rule.operands.size());
  SmallVector<Value> operands(op->getOperands());
  llvm::append_range(operands, capturedTensors(op));
  LoopSharding loops{sharding.mesh, sharding.axisLoop};
  if (std::string why = invalidPartialReads(rule, sharding); !why.empty())
    return why;
  for (size_t i = 0; i < sharding.reads.size(); ++i) {
    ShardingSpecAttrInterface read = sharding.readOf(i);
    if (!read)
      continue;
    auto type = i < operands.size()
                    ? dyn_cast<RankedTensorType>(operands[i].getType())
                    : RankedTensorType();
    std::string which = "operand #" + std::to_string(i);
    if (!type || !type.hasStaticShape())
      return which + " is not a tensor of static shape to read in a layout";
    // The layout must be one of the operand's (the checks a value's layout
    // passes), its first problem said.
    std::string problem;
    {
      ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &d) {
        if (problem.empty())
          problem = d.str();
        return success();
      });
      if (failed(verifyLayoutOf(type, read,
                                [&] { return mlir::emitError(op->getLoc()); })))
        return which + " cannot be read in " + printed(read) + ": " + problem;
    }
    // A partial read is checked as the layout it is elsewhere
    // (invalidPartialReads checked its Partial axes).
    if (auto mesh = dyn_cast<PlacementsSpecAttr>(read);
        mesh && mesh.hasPartial())
      read = withoutPartial(mesh);
    ShardingSpecAttrInterface kept =
        operandLayoutUnder(op, rule, loops, i, read, type.getShape());
    if (!sameBlocks(kept, read, type.getShape())) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << which << " may not be read in " << read << " under these loops ("
         << kept << " is what they read it in)";
      return text;
    }
  }
  return "";
}

mlir::FailureOr<std::optional<LoopSharding>>
shardc::pinnedSharding(mlir::Operation *op, const ShardingRule &rule,
                       llvm::StringRef pass) {
  mlir::Attribute attr = op->getAttr(kOpShardingAttr);
  if (!attr)
    return std::optional<LoopSharding>();
  auto pinned = mlir::dyn_cast<OpShardingAttr>(attr);
  if (!pinned)
    return op->emitOpError() << "has " << kOpShardingAttr << " = " << attr
                             << ", which is not a #shard.sharding";
  LoopSharding sharding = loopShardingOf(pinned);
  if (std::string why = invalidSharding(rule, sharding); !why.empty())
    return op->emitOpError() << "has the sharding " << attr << ", which "
                             << pass << " cannot give it: " << why;
  if (std::string why = invalidReads(op, rule, sharding); !why.empty())
    return op->emitOpError() << "has the sharding " << attr << ", which "
                             << pass << " cannot give it: " << why;
  return std::optional<LoopSharding>(std::move(sharding));
}
