//===- Planner.cpp - Choosing the plan of a redistribution ----------------===//

#include "shardc/Planning/Planner.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>
#include <tuple>
#include <unordered_map>

namespace shardc {
namespace planning {
using namespace layout;

std::vector<std::pair<const Box *, int64_t>> PlanLayout::distinctBoxes() const {
  std::vector<const Box *> boxes;
  boxes.reserve(table.boxes.size());
  for (const Box &box : table.boxes)
    if (!box.empty())
      boxes.push_back(&box);
  std::sort(boxes.begin(), boxes.end(), [](const Box *a, const Box *b) {
    return std::tie(a->offsets, a->sizes) < std::tie(b->offsets, b->sizes);
  });
  std::vector<std::pair<const Box *, int64_t>> distinct;
  for (const Box *box : boxes) {
    if (!distinct.empty() && *distinct.back().first == *box)
      ++distinct.back().second;
    else
      distinct.emplace_back(box, 1);
  }
  return distinct;
}

bool PlanLayout::hasCopies() const {
  for (const auto &[box, holders] : distinctBoxes())
    if (holders > 1)
      return true;
  return false;
}

bool PlanLayout::severalPerRank() const {
  std::vector<int> owners = table.owners;
  std::sort(owners.begin(), owners.end());
  return std::adjacent_find(owners.begin(), owners.end()) != owners.end();
}

PlanLayout meshLayout(const std::vector<int64_t> &shape, const Mesh &mesh,
                      const std::vector<Placement> &placements) {
  PlanLayout layout;
  layout.shape = shape;
  layout.isMesh = true;
  layout.mesh = mesh;
  layout.placements = placements;
  layout.table = blockTableOf(
      meshDeviceBlocks(shape, mesh, placements, Device::Kind::CPU));
  bool mixed = false;
  if (partialReduce(placements, mixed))
    layout.partial = meshBlockPartialIndices(shape, mesh, placements);
  return layout;
}

PlanLayout blockLayout(const std::vector<int64_t> &shape,
                       const std::vector<Block> &blocks) {
  PlanLayout layout;
  layout.shape = shape;
  layout.table = blockTableOf(blocks);
  return layout;
}

const char *stepKindName(StepKind kind) {
  switch (kind) {
  case StepKind::Exchange:
    return "exchange";
  case StepKind::ReduceExchange:
    return "reduce_exchange";
  case StepKind::AllGather:
    return "all_gather";
  case StepKind::LocalCopy:
    return "local_copy";
  }
  return "?";
}

RankTraffic PlanStep::trafficOf(int r) const {
  if (const RankTraffic *t = traffic.find(r))
    return *t;
  return otherRanks > 0 ? others : RankTraffic();
}

std::map<int, int64_t> Plan::received() const {
  std::map<int, int64_t> total;
  for (const PlanStep &step : steps)
    for (const auto &[r, t] : step.traffic)
      total[r] += t.received;
  return total;
}

namespace {
/// A candidate's step as choosePlan weighs it: the step (the memo's, or
/// made for that choice) and whether it ends in the destination.
struct StepAt {
  const PlanStep *step;
  bool final;
};
} // namespace
static const PlanStep &stepOf(const PlanStep &step) { return step; }
static const PlanStep &stepOf(const StepAt &at) { return *at.step; }

/// Elements received in all over `steps` (steps, or StepAt's); nullopt
/// past int64.
template <typename Steps>
static std::optional<int64_t> receivedOver(const Steps &steps) {
  int64_t total = 0, others = 0;
  for (const auto &each : steps) {
    const PlanStep &step = stepOf(each);
    for (const auto &[r, t] : step.traffic)
      if (__builtin_add_overflow(total, t.received, &total))
        return std::nullopt;
    if (__builtin_mul_overflow(step.others.received, step.otherRanks,
                               &others) ||
        __builtin_add_overflow(total, others, &total))
      return std::nullopt;
  }
  return total;
}

std::optional<int64_t> Plan::receivedTotal() const {
  return receivedOver(steps);
}

namespace {

bool sameLayout(const PlanLayout &a, const PlanLayout &b) {
  return a.table.boxes == b.table.boxes && a.table.owners == b.table.owners &&
         a.partial == b.partial && a.omittedReplicas == b.omittedReplicas;
}

/// Which link a message between two ranks crosses: on a mesh whose axes
/// the topology describes, the slowest axis along which their coordinates
/// differ; otherwise the slowest link of the topology.
class Links {
public:
  Links(const PlanLayout &from, const PlanLayout &to,
        const PlannerOptions &options)
      : topology(options.topology), fallback(options.topology.slowest()) {
    const PlanLayout *meshed =
        from.isMesh ? &from : (to.isMesh ? &to : nullptr);
    if (!meshed)
      return;
    mesh = &meshed->mesh;
    size = mesh->size().value_or(0);
    // Without device ids, a rank is its position.
    for (size_t i = 0; i < mesh->devices.size(); ++i)
      position[mesh->devices[i]] = static_cast<int64_t>(i);
    perAxis = topology.axes.size() == mesh->shape.size();
  }

  /// Calls `fn(axis)` for each mesh axis along which `a` and `b` differ,
  /// innermost first; false when either is off the mesh (or there is none).
  template <typename Fn> bool forEachDiffering(int a, int b, Fn fn) const {
    if (!mesh)
      return false;
    std::optional<int64_t> pa = positionOf(a), pb = positionOf(b);
    if (!pa || !pb)
      return false;
    int64_t x = *pa, y = *pb;
    for (int64_t d = static_cast<int64_t>(mesh->shape.size()) - 1;
         d >= 0 && x != y; --d) {
      if (x % mesh->shape[d] != y % mesh->shape[d])
        fn(d);
      x /= mesh->shape[d];
      y /= mesh->shape[d];
    }
    return true;
  }

  /// Writes rank `r`'s coordinates along the mesh's axes to `coords`;
  /// false when it is off the mesh (or there is none).
  bool coordinates(int r, int64_t *coords) const {
    if (!mesh)
      return false;
    std::optional<int64_t> p = positionOf(r);
    if (!p)
      return false;
    int64_t x = *p;
    for (int64_t d = static_cast<int64_t>(mesh->shape.size()) - 1; d >= 0;
         --d) {
      coords[d] = x % mesh->shape[d];
      x /= mesh->shape[d];
    }
    return true;
  }

  /// The mesh axes along which `a` and `b` differ, ascending; nullopt when
  /// either is off the mesh (or there is none).
  std::optional<std::vector<int64_t>> differing(int a, int b) const {
    std::vector<int64_t> axes;
    if (!forEachDiffering(a, b, [&](int64_t d) { axes.push_back(d); }))
      return std::nullopt;
    std::reverse(axes.begin(), axes.end());
    return axes;
  }

  Link link(const std::optional<std::vector<int64_t>> &axes) const {
    if (!perAxis || !axes || axes->empty())
      return fallback;
    Link worst = topology.axes[(*axes)[0]];
    for (int64_t a : *axes)
      worst = Link::worst(worst, topology.axes[a]);
    return worst;
  }

  size_t meshRank() const { return mesh ? mesh->shape.size() : 0; }
  /// Whether pairs of ranks may cross different links.
  bool perPair() const { return perAxis; }

private:
  std::optional<int64_t> positionOf(int r) const {
    if (mesh->devices.empty())
      return r >= 0 && r < size ? std::optional<int64_t>(r) : std::nullopt;
    auto it = position.find(r);
    if (it == position.end())
      return std::nullopt;
    return it->second;
  }

  const Topology &topology;
  Link fallback;
  const Mesh *mesh = nullptr;
  int64_t size = 0;
  std::unordered_map<int64_t, int64_t> position;
  bool perAxis = false;
};

/// The dim a reduce-scatter over the partial copies of `layout` splits:
/// the longest of its first non-empty block (the lowest on ties).
int64_t scatterDim(const PlanLayout &layout) {
  for (const Box &box : layout.table.boxes) {
    if (box.empty())
      continue;
    int64_t best = 0;
    for (size_t d = 1; d < box.rank(); ++d)
      if (box.sizes[d] > box.sizes[best])
        best = static_cast<int64_t>(d);
    return best;
  }
  return 0;
}

/// The slowest a plan may be and still count as fast as one of `fastest`
/// (chosenCandidate's near ties).
double nearTieLimit(double fastest) { return fastest * (1 + kNearTie) + 1e-9; }

/// Builds and costs candidate chains, remembering the steps already costed.
class Candidates {
public:
  Candidates(const PlanLayout &src, const PlanLayout &dst,
             const PlannerOptions &options, StepMemo *memo)
      : src(src), dst(dst), options(options), memo(memo) {}

  /// The step from `from` to `to`: the memo's, or made for this choice.
  const PlanStep &step(const PlanLayout &from, const PlanLayout &to) {
    return memo ? memo->step(from, to, options, own)
                : own.emplace_back(exchangeStep(from, to, options));
  }
  /// The all_gather-then-slice candidate's steps: the memo's, or made for
  /// this choice.
  const PlanStep &gather(const PlanLayout &from, const PlanLayout &to) {
    return memo ? memo->gather(from, to, options, own)
                : own.emplace_back(allGatherStep(from, options, &to.table));
  }
  const PlanStep &slice(const PlanStep &gathered, const PlanLayout &to) {
    return memo ? memo->slice(gathered, to, options, own)
                : own.emplace_back(exchangeStep(gathered.to, to, options));
  }

  /// A chain of intermediate placements on the source's mesh, then `dst`.
  void addChain(const std::string &name,
                const std::vector<std::vector<Placement>> &intermediates) {
    // Every step ends in reduced values (the SPMD collectives do): a chain
    // through a layout that keeps Partial placements cannot run.
    for (const std::vector<Placement> &p : intermediates)
      for (const Placement &placement : p)
        if (placement.kind == Placement::Kind::Partial)
          return;
    // A layout the chain passes through must be one (meshDeviceBlocks
    // assumes checked placements): a strided cut past the cap on blocks is
    // not.
    for (const std::vector<Placement> &p : intermediates)
      if (memo ? !memo->placeable(src.shape, src.mesh, p)
               : !layout::checkPlacements(src.mesh, p, src.shape))
        return;
    // Nor may it cut a dim that must stay whole, nor cut a dynamic one
    // strided.
    const int64_t rank = static_cast<int64_t>(src.shape.size());
    auto listed = [](const std::vector<int64_t> &dims, int64_t d) {
      return std::find(dims.begin(), dims.end(), d) != dims.end();
    };
    for (const std::vector<Placement> &p : intermediates)
      for (const Placement &placement : p)
        if (placement.cuts())
          if (std::optional<int64_t> d =
                  layout::normalizeDim(placement.dim, rank);
              d && (listed(options.wholeDims, *d) ||
                    (placement.kind == Placement::Kind::StridedShard &&
                     listed(options.dynamicDims, *d))))
            return;
    const PlanLayout *at = &src;
    std::vector<PlanLayout> made;
    std::vector<const PlanLayout *> layouts;
    made.reserve(intermediates.size());
    for (const std::vector<Placement> &p : intermediates) {
      const PlanLayout *kept =
          memo ? memo->layout(src.shape, src.mesh, p) : nullptr;
      if (!kept) {
        made.push_back(meshLayout(src.shape, src.mesh, p));
        kept = &made.back();
      }
      layouts.push_back(kept);
    }
    std::vector<StepAt> steps;
    double us = 0;
    for (size_t i = 0; i <= layouts.size(); ++i) {
      const PlanLayout &next = i < layouts.size() ? *layouts[i] : dst;
      if (sameLayout(*at, next))
        continue;
      const PlanStep &step = this->step(*at, next);
      steps.push_back({&step, i == layouts.size()});
      at = &step.to;
      us += step.us;
      if (pastNearTies(us))
        return;
    }
    add(name, std::move(steps));
  }

  /// Where only the chosen plan is wanted (choosePlanCost): whether a
  /// chain whose steps so far take `us` is slower than every plan the
  /// choice may make (chosenCandidate's near ties of the fastest weighed
  /// so far, which only fall): its later steps are not costed.
  bool pastNearTies(double us) const {
    return onlyChosen && !plans.empty() && us > nearTieLimit(fastestSoFar);
  }
  /// Set by choosePlanCost.
  bool onlyChosen = false;

  void add(const std::string &name, std::vector<StepAt> steps) {
    // The same sequence of layouts under another name is the same plan.
    for (const Candidate &c : plans) {
      if (c.steps.size() != steps.size())
        continue;
      bool same = true;
      for (size_t i = 0; i < c.steps.size() && same; ++i)
        same = c.steps[i].step->kind == steps[i].step->kind &&
               sameLayout(c.steps[i].step->to, steps[i].step->to);
      if (same)
        return;
    }
    double us = 0;
    for (const StepAt &at : steps)
      us += at.step->us;
    fastestSoFar = plans.empty() ? us : std::min(fastestSoFar, us);
    plans.push_back({name, std::move(steps), us});
  }

  /// A candidate as weighed: its steps are the memo's (or this choice's),
  /// copied into a Plan only where it is kept.
  struct Candidate {
    std::string name;
    std::vector<StepAt> steps;
    double us;
  };
  std::vector<Candidate> plans;

  static Plan made(const Candidate &c) {
    Plan plan;
    plan.name = c.name;
    plan.us = c.us;
    plan.steps.reserve(c.steps.size());
    for (const StepAt &at : c.steps) {
      plan.steps.push_back(*at.step);
      plan.steps.back().final = at.final;
    }
    return plan;
  }

private:
  const PlanLayout &src, &dst;
  const PlannerOptions &options;
  StepMemo *memo;
  /// The steps made for this choice alone (not in the memo).
  std::deque<PlanStep> own;
  /// The least time of `plans`.
  double fastestSoFar = 0;
};

std::string axesText(const std::vector<int64_t> &axes) {
  std::string text = "[";
  for (size_t i = 0; i < axes.size(); ++i)
    text += (i ? ", " : "") + std::to_string(axes[i]);
  return text + "]";
}

/// Orders in which to change the axes in `differ`: ascending, descending,
/// and by link, slowest and fastest first (when the topology has axes).
std::vector<std::vector<int64_t>> axisOrders(const std::vector<int64_t> &differ,
                                             const Topology &topology,
                                             size_t meshRank) {
  std::vector<std::vector<int64_t>> orders{differ};
  orders.push_back({differ.rbegin(), differ.rend()});
  if (topology.axes.size() == meshRank) {
    auto slower = [&](int64_t a, int64_t b) {
      const Link &x = topology.axes[a], &y = topology.axes[b];
      return x.betaGBps < y.betaGBps ||
             (x.betaGBps == y.betaGBps && x.alphaUs > y.alphaUs);
    };
    std::vector<int64_t> order = differ;
    std::stable_sort(order.begin(), order.end(), slower);
    orders.push_back(order);
    std::reverse(order.begin(), order.end());
    orders.push_back(order);
  }
  std::sort(orders.begin(), orders.end());
  orders.erase(std::unique(orders.begin(), orders.end()), orders.end());
  return orders;
}

} // namespace

namespace {

/// The device blocks of a table (on ranks, for the collectives' checks).
std::vector<Block> blocksOf(const BlockTable &table) {
  std::vector<Block> blocks(table.size());
  for (size_t b = 0; b < table.size(); ++b) {
    blocks[b].box = table.boxes[b];
    blocks[b].placement.rank = table.owners[b];
  }
  return blocks;
}

} // namespace

std::optional<Collective> namedCollective(const PlanLayout &from,
                                          const PlanLayout &to) {
  if (from.omittedReplicas > 0 || to.omittedReplicas > 0)
    return std::nullopt;
  if (from.isMesh && to.isMesh && sameMesh(from.mesh, to.mesh))
    return axisCollective(from.shape, from.mesh, from.placements,
                          to.placements);
  // A broadcast or a gather moves values as they are: not partial ones.
  if (from.hasPartial() || from.severalPerRank() || to.severalPerRank())
    return std::nullopt;
  return rankCollective(from.shape, blocksOf(from.table), blocksOf(to.table));
}

namespace {

/// exchangeStep without the collective's name: its traffic and time.
PlanStep exchangeStepCost(const PlanLayout &from, const PlanLayout &to,
                          const PlannerOptions &options) {
  PlanStep step;
  step.to = to;
  Links links(from, to, options);
  const std::vector<int64_t> *partial =
      from.hasPartial() ? &from.partial : nullptr;
  if (!links.perPair()) {
    // One link for every pair: a rank's time is its messages and bytes, and
    // the pairs matter only for the axes they cross, listed until they cross
    // every axis (or leave the mesh).
    MeshAxesCrossed crossing;
    crossing.axes = links.meshRank();
    crossing.coordinates = [&](int r, int64_t *coords) {
      return links.coordinates(r, coords);
    };
    std::optional<RankTrafficTable> traffic =
        exchangeTrafficByBox(from.table, partial, to.table, &crossing);
    if (traffic) {
      step.traffic = std::move(*traffic);
      bool moves = false;
      const Link link = links.link(std::nullopt);
      for (const auto &[r, t] : step.traffic) {
        moves |= t.receivePeers > 0;
        step.us = std::max(
            {step.us,
             link.timeUs(t.receivePeers, static_cast<double>(t.received) *
                                             options.elementBytes),
             link.timeUs(t.sendPeers,
                         static_cast<double>(t.sent) * options.elementBytes)});
      }
      step.kind = from.hasPartial() ? StepKind::ReduceExchange
                  : !moves          ? StepKind::LocalCopy
                                    : StepKind::Exchange;
      const size_t crossedCount =
          std::count(crossing.crossed.begin(), crossing.crossed.end(), true);
      step.world = crossing.offMesh || crossedCount == links.meshRank() ||
                   crossedCount == 0;
      for (size_t d = 0; !step.world && d < crossing.crossed.size(); ++d)
        if (crossing.crossed[d])
          step.axes.push_back(static_cast<int64_t>(d));
      return step;
    }
  }
  std::map<std::pair<int, int>, int64_t> pairs;
  step.traffic =
      exchangeTraffic(from.table, from.hasPartial() ? &from.partial : nullptr,
                      to.table, &pairs);
  step.kind = from.hasPartial() ? StepKind::ReduceExchange
              : pairs.empty()   ? StepKind::LocalCopy
                                : StepKind::Exchange;
  std::map<int, double> receiving, sending;
  std::set<int64_t> axes;
  bool offMesh = false;
  for (const auto &[pair, elements] : pairs) {
    std::optional<std::vector<int64_t>> differ =
        links.differing(pair.first, pair.second);
    if (differ)
      axes.insert(differ->begin(), differ->end());
    else
      offMesh = true;
    double us = links.link(differ).timeUs(1, static_cast<double>(elements) *
                                                 options.elementBytes);
    receiving[pair.first] += us;
    sending[pair.second] += us;
  }
  for (const auto &[r, us] : receiving)
    step.us = std::max(step.us, us);
  for (const auto &[r, us] : sending)
    step.us = std::max(step.us, us);
  step.world = offMesh || axes.size() == links.meshRank() || axes.empty();
  if (!step.world)
    step.axes.assign(axes.begin(), axes.end());
  return step;
}

} // namespace

namespace {

/// What the native all_reduce of `c` (MPI_Allreduce, ncclAllReduce) moves
/// from `from`: a bandwidth-optimal reduce-scatter then all-gather (a ring)
/// in each group, each member receiving and sending about 2 (g - 1) / g of
/// the S elements it holds (exactly: layout::ringAllReduceReceived) in 2 (g
/// - 1) messages. The exchange the same layouts would be (each rank
/// receiving every other copy) costs (g - 1) S; MPI and NCCL do not run
/// that.
void allReduceTraffic(const PlanLayout &from, const layout::Collective &c,
                      const PlannerOptions &options, PlanStep &step) {
  Links links(from, step.to, options);
  const Link link = links.link(c.axes);
  std::vector<RankTrafficTable::Entry> entries;
  step.us = 0;
  // The elements each rank holds, in one pass over the blocks.
  std::unordered_map<int, int64_t> holds;
  for (size_t b = 0; b < from.table.size(); ++b)
    holds[from.table.owners[b]] += from.table.volumes[b];
  for (const std::vector<int64_t> &group : meshGroups(from.mesh, c.axes)) {
    const int64_t g = static_cast<int64_t>(group.size());
    for (int64_t p = 0; p < g; ++p) {
      const int r = static_cast<int>(group[p]);
      auto it = holds.find(r);
      const int64_t held = it == holds.end() ? 0 : it->second;
      RankTraffic t;
      // Beyond int64 (INT64_MAX), the byte counts built from it overflow and
      // say so.
      t.received = layout::ringAllReduceReceived(held, g, p);
      t.sent = layout::ringAllReduceReceived(held, g, p + 1);
      t.receivePeers = t.sendPeers = g > 1 ? (g > 2 ? 2 : 1) : 0;
      if (g > 1)
        step.us = std::max(
            step.us, link.timeUs(2 * (g - 1), static_cast<double>(t.received) *
                                                  options.elementBytes));
      entries.push_back({r, t});
    }
  }
  step.traffic = RankTrafficTable(std::move(entries));
}

} // namespace

PlanStep exchangeStep(const PlanLayout &from, const PlanLayout &to,
                      const PlannerOptions &options) {
  PlanStep step = exchangeStepCost(from, to, options);
  if (step.kind != StepKind::LocalCopy)
    step.collective = namedCollective(from, to);
  if (step.collective &&
      step.collective->kind == layout::CollectiveKind::AllReduce)
    allReduceTraffic(from, *step.collective, options, step);
  return step;
}

PlanStep allGatherStep(const PlanLayout &from, const PlannerOptions &options,
                       const BlockTable *keep) {
  PlanStep step;
  step.kind = StepKind::AllGather;
  int64_t ranks = options.ranks;
  for (int owner : from.table.owners)
    ranks = std::max<int64_t>(ranks, int64_t(owner) + 1);
  if (from.isMesh) {
    step.to = meshLayout(
        from.shape, from.mesh,
        std::vector<Placement>(from.mesh.shape.size(), Placement::replicate()));
  } else if (!keep) {
    Mesh world;
    world.shape = {ranks};
    step.to = meshLayout(from.shape, world, {Placement::replicate()});
  } else {
    // Only the ranks of either table matter to the next step: the others
    // hold a replica nobody reads.
    std::set<int> named(from.table.owners.begin(), from.table.owners.end());
    named.insert(keep->owners.begin(), keep->owners.end());
    for (int r : keep->owners)
      ranks = std::max<int64_t>(ranks, int64_t(r) + 1);
    PlanLayout &to = step.to;
    to.shape = from.shape;
    to.isMesh = true;
    to.mesh.shape = {ranks};
    to.placements = {Placement::replicate()};
    Box whole{std::vector<int64_t>(from.shape.size(), 0), from.shape};
    for (int r : named) {
      to.table.boxes.push_back(whole);
      to.table.owners.push_back(r);
      to.table.volumes.push_back(volume(from.shape).value_or(0));
    }
    to.omittedReplicas = ranks - static_cast<int64_t>(named.size());
  }
  int64_t total = volume(from.shape).value_or(0);
  std::map<int, int64_t> own; // ranks holding elements
  for (size_t b = 0; b < from.table.size(); ++b)
    if (from.table.volumes[b] > 0)
      own[from.table.owners[b]] += from.table.volumes[b];
  // As the runtime sends it: one message from every owner to every other
  // rank (no relaying), so a rank receives one message per other owner and
  // an owner sends its block N-1 times; its time is the larger of the two,
  // over the slowest link, as an exchange step's.
  Link link = options.topology.slowest();
  const int64_t owners = static_cast<int64_t>(own.size());
  const double eb = static_cast<double>(options.elementBytes);
  auto traffic = [&](int64_t mine) {
    RankTraffic t;
    t.received = total - mine;
    t.sent = mine > 0 ? mine * (ranks - 1) : 0;
    t.receivePeers = owners - (mine > 0 ? 1 : 0);
    t.sendPeers = mine > 0 ? ranks - 1 : 0;
    double receiving =
        link.alphaUs * static_cast<double>(t.receivePeers) +
        static_cast<double>(t.received) * eb / (link.betaGBps * 1e3);
    double sending = link.alphaUs * static_cast<double>(t.sendPeers) +
                     static_cast<double>(t.sendPeers) *
                         static_cast<double>(mine) * eb / (link.betaGBps * 1e3);
    step.us = std::max({step.us, receiving, sending});
    return t;
  };
  // The ranks `from` names; every other rank receives the whole tensor.
  std::vector<RankTrafficTable::Entry> listed;
  listed.reserve(own.size());
  for (const auto &[r, elements] : own)
    listed.emplace_back(r, traffic(elements));
  step.traffic = RankTrafficTable(std::move(listed));
  step.otherRanks = ranks - owners;
  if (step.otherRanks > 0)
    step.others = traffic(0);
  return step;
}

namespace {

/// Appends what a mesh layout is made from to a memo key (sized once and
/// written in place: a search builds hundreds of thousands of keys, and
/// their element-by-element growth was 7% of a 20-op chain's search).
void appendMeshKey(std::vector<int64_t> &key, const std::vector<int64_t> &shape,
                   const Mesh &mesh, const std::vector<Placement> &placements) {
  const size_t old = key.size();
  key.resize(old + 4 + shape.size() + mesh.shape.size() + mesh.devices.size() +
             4 * placements.size());
  int64_t *at = key.data() + old;
  auto put = [&](int64_t v) { *at++ = v; };
  put(static_cast<int64_t>(shape.size()));
  at = std::copy(shape.begin(), shape.end(), at);
  put(static_cast<int64_t>(mesh.shape.size()));
  at = std::copy(mesh.shape.begin(), mesh.shape.end(), at);
  put(static_cast<int64_t>(mesh.devices.size()));
  at = std::copy(mesh.devices.begin(), mesh.devices.end(), at);
  put(static_cast<int64_t>(placements.size()));
  for (const Placement &p : placements) {
    put(static_cast<int64_t>(p.kind));
    put(p.cuts() ? p.dim : 0);
    put(p.kind == Placement::Kind::StridedShard ? p.split : 1);
    put(p.kind == Placement::Kind::Partial ? static_cast<int64_t>(p.reduce)
                                           : 0);
  }
}

} // namespace

bool StepMemo::placeable(const std::vector<int64_t> &shape, const Mesh &mesh,
                         const std::vector<Placement> &placements) {
  const bool strided =
      std::any_of(placements.begin(), placements.end(), [](const Placement &p) {
        return p.kind == Placement::Kind::StridedShard;
      });
  if (!strided)
    return static_cast<bool>(layout::checkPlacements(mesh, placements, shape));
  // At most kMostPlaceable answers kept (a key holds the device list).
  if (placeableMemo.size() >= kMostPlaceable)
    return static_cast<bool>(layout::checkPlacements(mesh, placements, shape));
  std::vector<int64_t> key;
  appendMeshKey(key, shape, mesh, placements);
  auto [it, fresh] = placeableMemo.try_emplace(std::move(key), false);
  if (fresh)
    it->second =
        static_cast<bool>(layout::checkPlacements(mesh, placements, shape));
  return it->second;
}

const PlanLayout *StepMemo::layout(const std::vector<int64_t> &shape,
                                   const Mesh &mesh,
                                   const std::vector<Placement> &placements) {
  scratch.clear();
  appendMeshKey(scratch, shape, mesh, placements);
  auto it = layoutMemo.find(scratch);
  if (it != layoutMemo.end())
    return &it->second;
  PlanLayout made = meshLayout(shape, mesh, placements);
  const size_t rows = made.table.size() + 1;
  if (held + rows > kMaxRows)
    return nullptr;
  held += rows;
  return &layoutMemo.emplace(scratch, std::move(made)).first->second;
}

const PlanStep &StepMemo::keepStep(
    std::unordered_map<std::vector<int64_t>, PlanStep, KeyHash> &memo,
    PlanStep step, std::deque<PlanStep> &unkept) {
  const size_t rows = step.to.table.size() + step.traffic.size() + 1;
  if (held + rows > kMaxRows)
    return unkept.emplace_back(std::move(step));
  held += rows;
  return memo.emplace(scratch, std::move(step)).first->second;
}

const PlanStep &StepMemo::gather(const PlanLayout &from, const PlanLayout &to,
                                 const PlannerOptions &options,
                                 std::deque<PlanStep> &unkept) {
  if (!from.isMesh || !to.isMesh || from.omittedReplicas != 0 ||
      to.omittedReplicas != 0)
    return unkept.emplace_back(allGatherStep(from, options, &to.table));
  // The source, and the ranks the destination names (all it reads of it).
  scratch.assign({-1, options.elementBytes, options.ranks});
  appendMeshKey(scratch, from.shape, from.mesh, from.placements);
  std::vector<int> named = to.table.owners;
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  scratch.push_back(static_cast<int64_t>(named.size()));
  scratch.insert(scratch.end(), named.begin(), named.end());
  auto it = gatherMemo.find(scratch);
  if (it != gatherMemo.end())
    return it->second;
  return keepStep(gatherMemo, allGatherStep(from, options, &to.table), unkept);
}

const PlanStep &StepMemo::slice(const PlanStep &gathered, const PlanLayout &to,
                                const PlannerOptions &options,
                                std::deque<PlanStep> &unkept) {
  const PlanLayout &from = gathered.to;
  if (!to.isMesh || to.omittedReplicas != 0)
    return unkept.emplace_back(exchangeStep(from, to, options));
  // The gathered layout: the whole tensor on the ranks it lists (and as
  // many more it leaves out), which its placements do not say.
  scratch.assign({-2, options.elementBytes, options.ranks,
                  static_cast<int64_t>(from.isMesh), from.omittedReplicas,
                  static_cast<int64_t>(from.mesh.shape.size())});
  scratch.insert(scratch.end(), from.mesh.shape.begin(), from.mesh.shape.end());
  scratch.push_back(static_cast<int64_t>(from.table.size()));
  for (size_t b = 0; b < from.table.size(); ++b) {
    const layout::Box &box = from.table.boxes[b];
    scratch.push_back(from.table.owners[b]);
    scratch.insert(scratch.end(), box.offsets.begin(), box.offsets.end());
    scratch.insert(scratch.end(), box.sizes.begin(), box.sizes.end());
  }
  appendMeshKey(scratch, to.shape, to.mesh, to.placements);
  auto it = gatherMemo.find(scratch);
  if (it != gatherMemo.end())
    return it->second;
  return keepStep(gatherMemo, exchangeStep(from, to, options), unkept);
}

const PlanStep &StepMemo::step(const PlanLayout &from, const PlanLayout &to,
                               const PlannerOptions &options,
                               std::deque<PlanStep> &unkept) {
  // Only layouts meshLayout made are what their key says (an all_gather's
  // layout that omits replicas is not).
  if (!from.isMesh || !to.isMesh || from.omittedReplicas != 0 ||
      to.omittedReplicas != 0)
    return unkept.emplace_back(exchangeStep(from, to, options));
  scratch.assign({options.elementBytes, options.ranks});
  appendMeshKey(scratch, from.shape, from.mesh, from.placements);
  appendMeshKey(scratch, to.shape, to.mesh, to.placements);
  auto it = stepMemo.find(scratch);
  if (it != stepMemo.end())
    return it->second;
  // (exchangeStep asks nothing of the memo: the key stays as built.)
  return keepStep(stepMemo, exchangeStep(from, to, options), unkept);
}

namespace {

/// The candidates choosePlan weighs, in its order (the direct plan first).
void weighCandidates(const PlanLayout &src, const PlanLayout &dst,
                     const PlannerOptions &options, Candidates &candidates) {
  candidates.add("direct", {{&candidates.step(src, dst), true}});
  if (!options.directOnly) {
    using Kind = Placement::Kind;
    const size_t axes = src.isMesh ? src.mesh.shape.size() : 0;
    // One mesh axis at a time, in a few orders; partial axes going to R
    // either reduced directly or as reduce_scatter then all_gather.
    if (src.isMesh && dst.isMesh && sameMesh(src.mesh, dst.mesh)) {
      std::vector<int64_t> differ;
      bool splittable = false;
      for (size_t i = 0; i < axes; ++i) {
        if (src.placements[i] == dst.placements[i])
          continue;
        differ.push_back(static_cast<int64_t>(i));
        splittable |= src.placements[i].kind == Kind::Partial &&
                      dst.placements[i].kind == Kind::Replicate &&
                      src.mesh.shape[i] > 2 && !src.shape.empty();
      }
      if (differ.size() > 1 || splittable) {
        for (const std::vector<int64_t> &order :
             axisOrders(differ, options.topology, axes)) {
          for (bool split : {false, true}) {
            if (split && !splittable)
              continue;
            std::vector<std::vector<Placement>> chain;
            std::vector<Placement> at = src.placements;
            for (int64_t i : order) {
              if (split && at[i].kind == Kind::Partial &&
                  dst.placements[i].kind == Kind::Replicate &&
                  src.mesh.shape[i] > 2) {
                at[i] = Placement::shard(
                    scatterDim(meshLayout(src.shape, src.mesh, at)));
                chain.push_back(at);
              }
              at[i] = dst.placements[i];
              chain.push_back(at);
            }
            chain.pop_back(); // the last is the destination itself
            candidates.addChain("per-axis " + axesText(order) +
                                    (split ? " reduce-scatter+all-gather" : ""),
                                chain);
          }
        }
      }
    }
    // Partial values: reduce-scatter along one dim first, then move.
    if (src.isMesh && src.hasPartial()) {
      for (size_t d = 0; d < src.shape.size(); ++d) {
        if (src.shape[d] < 2)
          continue;
        std::vector<Placement> at = src.placements;
        for (Placement &p : at)
          if (p.kind == Kind::Partial)
            p = Placement::shard(static_cast<int64_t>(d));
        candidates.addChain(
            "reduce-scatter first (dim " + std::to_string(d) + ")", {at});
      }
    }
    // all_gather (log-depth in MPI) then a local slice.
    // Off a mesh, the layout it leads to is a mesh of every rank in the IR:
    // only for worlds a mesh can describe.
    int64_t ranks = options.ranks;
    for (const BlockTable *t : {&src.table, &dst.table})
      for (int owner : t->owners)
        ranks = std::max<int64_t>(ranks, int64_t(owner) + 1);
    if (!src.hasPartial() && !src.hasCopies() && !src.severalPerRank() &&
        (src.isMesh || ranks <= kMaxMeshDevices)) {
      const PlanStep &gather = candidates.gather(src, dst);
      if (sameLayout(gather.to, dst)) {
        candidates.add("all_gather", {{&gather, true}});
      } else if (!candidates.pastNearTies(gather.us)) {
        const PlanStep &slice = candidates.slice(gather, dst);
        candidates.add("all_gather then slice",
                       {{&gather, false}, {&slice, true}});
      }
    }
  }
}

/// The candidate chosen among `plans` (choosePlan's rule).
size_t chosenCandidate(const std::vector<Candidates::Candidate> &plans) {
  // The model is an estimate: plans within kNearTie of the fastest are
  // treated as equally fast, and among those the one that moves the fewest
  // bytes wins (then fewer steps, then the earlier candidate). A plan that
  // receives 4x the bytes never wins by a rounding error.
  double fastest = plans[0].us;
  for (const Candidates::Candidate &p : plans)
    fastest = std::min(fastest, p.us);
  const double limit = nearTieLimit(fastest);
  std::optional<std::tuple<int64_t, size_t>> best;
  size_t chosen = 0;
  for (size_t i = 0; i < plans.size(); ++i) {
    const Candidates::Candidate &p = plans[i];
    if (p.us > limit)
      continue;
    // A count beyond int64 ranks last among near-ties.
    std::tuple<int64_t, size_t> key{
        receivedOver(p.steps).value_or(std::numeric_limits<int64_t>::max()),
        p.steps.size()};
    if (!best || key < *best) {
      best = key;
      chosen = i;
    }
  }
  return chosen;
}

} // namespace

PlanChoice choosePlan(const PlanLayout &src, const PlanLayout &dst,
                      const PlannerOptions &options, StepMemo *memo) {
  PlanChoice choice;
  if (sameLayout(src, dst)) {
    Plan nothing;
    nothing.name = "nothing moves";
    choice.candidates.push_back(std::move(nothing));
    return choice;
  }
  Candidates candidates(src, dst, options, memo);
  weighCandidates(src, dst, options, candidates);
  const std::vector<Candidates::Candidate> &plans = candidates.plans;
  const size_t chosen = chosenCandidate(plans);
  for (const Candidates::Candidate &p : plans)
    choice.candidates.push_back(Candidates::made(p));
  choice.chosen = chosen;
  return choice;
}

PlanCost choosePlanCost(const PlanLayout &src, const PlanLayout &dst,
                        const PlannerOptions &options, StepMemo *memo) {
  PlanCost cost;
  if (sameLayout(src, dst))
    return cost;
  Candidates candidates(src, dst, options, memo);
  candidates.onlyChosen = true;
  weighCandidates(src, dst, options, candidates);
  const Candidates::Candidate &c =
      candidates.plans[chosenCandidate(candidates.plans)];
  cost.us = c.us;
  cost.received = receivedOver(c.steps);
  return cost;
}

} // namespace planning
} // namespace shardc
