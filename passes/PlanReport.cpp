//===- PlanReport.cpp - What a plan moves and what it costs ---------------===//

#include "PlanReport.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Layout/Exchange.h"
#include "shardc/Layout/Planner.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/DenseMap.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

using namespace mlir;
using namespace shardc;

namespace {

std::string locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
            ":" + std::to_string(file.getColumn()));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

/// The ranks a report covers: 0 .. N-1, N being the world size or one more
/// than the largest rank the tables (or `extra`) name.
int64_t ranksOf(int64_t worldSize, const layout::BlockTable &a,
                const layout::BlockTable &b, int64_t extra = -1) {
  int64_t ranks = std::max(worldSize, extra + 1);
  for (const layout::BlockTable *t : {&a, &b})
    for (int owner : t->owners)
      ranks = std::max<int64_t>(ranks, int64_t(owner) + 1);
  return ranks;
}

/// The ranks that hold a block of either table (or are `extra`), sorted: the
/// only ones whose numbers can differ from a rank holding nothing.
std::vector<int> namedRanks(const layout::BlockTable &a,
                            const layout::BlockTable &b, int64_t extra = -1) {
  std::set<int> ranks(a.owners.begin(), a.owners.end());
  ranks.insert(b.owners.begin(), b.owners.end());
  if (extra >= 0)
    ranks.insert(static_cast<int>(extra));
  return {ranks.begin(), ranks.end()};
}

/// Elements of `table`'s blocks of `rank` (0 if none).
int64_t ownVolume(const layout::BlockTable &table, int rank) {
  int64_t n = 0;
  for (int64_t b : table.blocksOf(rank))
    n += table.volumes[b];
  return n;
}

/// Per-rank listings are written in full up to this many ranks; beyond,
/// as {"rank": bytes} for the ranks named plus "other_ranks".
constexpr int64_t kMaxListedRanks = 4096;

/// int64 byte arithmetic that remembers an overflow instead of wrapping: an
/// entry either has exact counts or its op gets a diagnostic.
struct Checked {
  bool overflow = false;
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_mul_overflow(a, b, &r);
    return r;
  }
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_add_overflow(a, b, &r);
    return r;
  }
  /// ceil(v) for a non-negative v; doubles below 2^63 are at most
  /// 2^63 - 1024, so their ceiling fits.
  int64_t ceil(double v) {
    if (v >= 0 && v < 0x1p63)
      return static_cast<int64_t>(std::ceil(v));
    overflow = true;
    return 0;
  }
};

/// One step of an entry: bytes received by the ranks named, and by every
/// other rank of the ones covered (all alike).
struct StepEntry {
  std::string kind, group = "world";
  std::map<int, int64_t> received;
  int64_t other = 0;
};

/// One op's entry.
struct Entry {
  /// Whether a byte count of the entry does not fit int64.
  bool overflow = false;
  int64_t ranks = 0;
  std::vector<StepEntry> steps;
  std::map<int, int64_t> lowerBound;
  int64_t otherLowerBound = 0;
  double modelledUs = 0;
  /// The plan chosen and the candidates, when there was a choice.
  std::string plan;
  nlohmann::json candidates = nlohmann::json::array();

  nlohmann::json perRank(const std::map<int, int64_t> &named,
                         int64_t other) const {
    if (ranks <= kMaxListedRanks) {
      std::vector<int64_t> list(ranks, other);
      for (auto [r, v] : named)
        list[r] = v;
      return list;
    }
    nlohmann::json object = nlohmann::json::object();
    for (auto [r, v] : named)
      object[std::to_string(r)] = v;
    object["other_ranks"] = other;
    return object;
  }

  /// The entry as JSON; nullopt when a byte count does not fit int64.
  std::optional<nlohmann::json> json(const std::string &location) const {
    Checked c;
    c.overflow = overflow;
    // Per rank over all steps: the ranks any step names, and the others.
    std::map<int, int64_t> received;
    int64_t other = 0;
    for (const StepEntry &s : steps) {
      other = c.add(other, s.other);
      for (const auto &[r, v] : s.received)
        received.emplace(r, 0);
    }
    for (auto &[r, total] : received)
      for (const StepEntry &s : steps) {
        auto it = s.received.find(r);
        total = c.add(total, it == s.received.end() ? s.other : it->second);
      }
    int64_t others = ranks - static_cast<int64_t>(received.size());
    int64_t total = c.mul(other, others), max = others > 0 ? other : 0;
    for (auto [r, v] : received) {
      total = c.add(total, v);
      max = std::max(max, v);
    }
    int64_t lbOthers = ranks - static_cast<int64_t>(lowerBound.size());
    int64_t lbTotal = c.mul(otherLowerBound, lbOthers),
            lbMax = lbOthers > 0 ? otherLowerBound : 0;
    for (auto [r, v] : lowerBound) {
      lbTotal = c.add(lbTotal, v);
      lbMax = std::max(lbMax, v);
    }
    if (c.overflow)
      return std::nullopt;
    nlohmann::json stepsJson = nlohmann::json::array();
    for (const StepEntry &s : steps)
      stepsJson.push_back({{"kind", s.kind},
                           {"group", s.group},
                           {"bytes_per_rank", perRank(s.received, s.other)}});
    nlohmann::json entry = {
        {"location", location},          {"steps", stepsJson},
        {"bytes_received_total", total}, {"bytes_received_max_rank", max},
        {"lower_bound_total", lbTotal},  {"lower_bound_max_rank", lbMax},
        {"modelled_time_us", modelledUs}};
    if (!plan.empty()) {
      entry["plan"] = plan;
      entry["candidates"] = candidates;
    }
    return entry;
  }
};

/// The report's form of a planner step.
StepEntry stepEntry(const layout::PlanStep &step, int64_t eb, int64_t other,
                    Checked &c) {
  StepEntry s;
  s.kind = layout::stepKindName(step.kind);
  if (!step.world) {
    s.group = "mesh axes [";
    for (size_t i = 0; i < step.axes.size(); ++i)
      s.group += (i ? ", " : "") + std::to_string(step.axes[i]);
    s.group += "]";
  }
  for (const auto &[r, t] : step.traffic)
    s.received[r] = c.mul(t.received, eb);
  s.other = other;
  return s;
}

} // namespace

layout::PlanLayout shardc::planLayoutOf(ShardedTensorType type) {
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  if (auto p = dyn_cast<PlacementsSpecAttr>(type.getSpec()))
    return layout::meshLayout(
        shape, p.getMesh().getMesh(),
        {p.getPlacements().begin(), p.getPlacements().end()});
  return layout::blockLayout(shape, type.getDeviceBlocks());
}

ShardedTensorType shardc::stepType(const layout::PlanStep &step,
                                   ShardedTensorType from,
                                   ShardedTensorType to) {
  if (step.final)
    return to;
  MLIRContext *ctx = from.getContext();
  MeshAttr mesh;
  if (auto p = dyn_cast<PlacementsSpecAttr>(from.getSpec()))
    if (layout::sameMesh(p.getMesh().getMesh(), step.to.mesh))
      mesh = p.getMesh();
  if (!mesh)
    mesh = MeshAttr::get(ctx, step.to.mesh.shape, step.to.mesh.devices, {},
                         from.getBlocks().front().placement.kind);
  return ShardedTensorType::get(
      ctx, from.getShape(), from.getElementType(),
      PlacementsSpecAttr::get(ctx, mesh, step.to.placements));
}

struct PlanReport::Impl {
  layout::Topology topology;
  int64_t worldSize;
  bool directOnly;
  nlohmann::json ops = nlohmann::json::array();
  /// Choices and entries by (source, destination) type and root.
  std::map<std::pair<const void *, const void *>, layout::PlanChoice> choices;
  std::map<std::tuple<const void *, const void *, int64_t>, Entry> cache;
  std::map<const Entry *, std::optional<nlohmann::json>> jsonOf;
  llvm::DenseMap<Type, RankedTensorType> localTypes;

  layout::PlannerOptions options(Type elementType, int64_t ranks) const {
    layout::PlannerOptions o;
    o.topology = topology;
    o.elementBytes = elementBytes(elementType);
    o.ranks = ranks;
    o.directOnly = directOnly;
    return o;
  }

  const layout::PlanChoice &choose(ShardedTensorType from,
                                   ShardedTensorType to) {
    auto key =
        std::make_pair(from.getAsOpaquePointer(), to.getAsOpaquePointer());
    auto it = choices.find(key);
    if (it != choices.end())
      return it->second;
    layout::PlanLayout src = planLayoutOf(from), dst = planLayoutOf(to);
    int64_t ranks = ranksOf(worldSize, src.table, dst.table);
    return choices
        .emplace(key, layout::choosePlan(src, dst,
                                         options(from.getElementType(), ranks)))
        .first->second;
  }

  template <typename Fn>
  const Entry &cached(Type a, Type b, int64_t root, Fn compute) {
    auto key =
        std::make_tuple(a.getAsOpaquePointer(), b.getAsOpaquePointer(), root);
    auto it = cache.find(key);
    if (it == cache.end())
      it = cache.emplace(key, compute()).first;
    return it->second;
  }

  /// A redistribution: the steps of the plan chosen.
  Entry exchange(ShardedTensorType from, ShardedTensorType to) {
    Entry e;
    Checked c;
    int64_t eb = elementBytes(to.getElementType());
    const layout::PlanChoice &choice = choose(from, to);
    layout::PlanLayout src = planLayoutOf(from), dst = planLayoutOf(to);
    e.ranks = ranksOf(worldSize, src.table, dst.table);
    int64_t total = c.mul(*layout::volume(src.shape), eb);
    e.overflow = c.overflow;
    if (from == to)
      return e;
    const layout::Plan &plan = choice.best();
    for (const layout::PlanStep &step : plan.steps) {
      StepEntry s = stepEntry(
          step, eb, step.kind == layout::StepKind::AllGather ? total : 0, c);
      for (int r : namedRanks(src.table, dst.table))
        s.received.emplace(r, 0);
      e.steps.push_back(std::move(s));
    }
    e.modelledUs = plan.us;
    for (auto [r, elements] : layout::lowerBoundElements(
             src.table, src.hasPartial() ? &src.partial : nullptr, dst.table))
      e.lowerBound[r] = c.ceil(elements * static_cast<double>(eb));
    for (int r : namedRanks(src.table, dst.table))
      e.lowerBound.emplace(r, 0);
    if (choice.candidates.size() > 1) {
      e.plan = plan.name;
      for (const layout::Plan &p : choice.candidates) {
        std::optional<int64_t> elements = p.receivedTotal();
        c.overflow |= !elements;
        int64_t bytes = c.mul(elements.value_or(0), eb);
        e.candidates.push_back({{"plan", p.name},
                                {"steps", p.steps.size()},
                                {"bytes_received_total", bytes},
                                {"modelled_time_us", p.us}});
      }
    }
    e.overflow = c.overflow;
    return e;
  }

  /// all_gather: each rank receives every distinct block but its own.
  Entry allGather(ShardedTensorType type) {
    Entry e;
    Checked c;
    int64_t eb = elementBytes(type.getElementType());
    layout::PlanLayout src = planLayoutOf(type);
    layout::BlockTable primary = layout::blockTableOf(type.getBlocks());
    e.ranks = ranksOf(worldSize, primary, src.table);
    int64_t total = c.mul(*layout::volume(src.shape), eb);
    // Without copies an all_gather (modelled log-depth); with replicas the
    // runtime gathers as the exchange to the whole tensor on every rank.
    layout::PlannerOptions o = options(type.getElementType(), e.ranks);
    // The layout it leads to matters only to the exchange.
    layout::PlanStep step =
        layout::allGatherStep(src, o, src.hasCopies() ? nullptr : &src.table);
    if (src.hasCopies())
      step = layout::exchangeStep(src, step.to, o);
    StepEntry s = stepEntry(step, eb, total, c);
    s.kind = "all_gather";
    s.group = "world";
    for (int r : namedRanks(primary, src.table))
      s.received[r] = total - c.mul(ownVolume(src.table, r), eb);
    e.steps.push_back(std::move(s));
    e.modelledUs = step.us;
    e.lowerBound = e.steps[0].received;
    e.otherLowerBound = total;
    e.overflow = c.overflow;
    return e;
  }

  /// distribute: the root sends each owner its block.
  Entry scatter(ShardedTensorType type, int64_t root) {
    Entry e;
    Checked c;
    int64_t eb = elementBytes(type.getElementType());
    layout::BlockTable device = layout::blockTableOf(type.getDeviceBlocks());
    e.ranks = ranksOf(worldSize, device, device, root);
    layout::Link link = topology.slowest();
    int64_t sent = 0, messages = 0;
    StepEntry s;
    s.kind = "scatter";
    for (int r : namedRanks(device, device, root)) {
      int64_t bytes = r == root ? 0 : c.mul(ownVolume(device, r), eb);
      s.received[r] = e.lowerBound[r] = bytes;
      sent = c.add(sent, bytes);
      messages += bytes > 0;
    }
    e.steps.push_back(std::move(s));
    e.modelledUs = link.timeUs(messages, static_cast<double>(sent));
    e.overflow = c.overflow;
    return e;
  }
};

PlanReport::PlanReport(layout::Topology topology, int64_t worldSize,
                       bool directOnly)
    : impl(new Impl{std::move(topology), worldSize, directOnly}) {}

RankedTensorType PlanReport::localType(ShardedTensorType type) {
  RankedTensorType &local = impl->localTypes[type];
  if (!local)
    local = getLocalType(type);
  return local;
}

const layout::PlanChoice &PlanReport::choose(ShardedTensorType from,
                                             ShardedTensorType to) {
  return impl->choose(from, to);
}

PlanReport::~PlanReport() = default;

/// Whether every block of `type` names its rank: the report counts bytes per
/// rank, and the pass diagnoses other layouts before it reports anything.
static bool namesRanks(ShardedTensorType type) {
  return llvm::all_of(type.getDeviceBlocks(), [](const layout::Block &b) {
    return b.placement.hasRank();
  });
}

LogicalResult PlanReport::add(Operation *op) {
  for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto sharded = dyn_cast<ShardedTensorType>(t);
        sharded && !namesRanks(sharded))
      return success();
  const Entry *e = nullptr;
  if (auto r = dyn_cast<RedistributeOp>(op)) {
    e = &impl->cached(r.getSource().getType(), r.getType(), -1, [&] {
      return impl->exchange(r.getSource().getType(), r.getType());
    });
  } else if (auto g = dyn_cast<AllGatherOp>(op)) {
    e = &impl->cached(g.getSource().getType(), Type(), -1,
                      [&] { return impl->allGather(g.getSource().getType()); });
  } else if (auto gather = dyn_cast<GatherOp>(op)) {
    ShardedTensorType to =
        wholeOnRank(gather.getSource().getType(), gather.getDstRank());
    e = &impl->cached(gather.getSource().getType(), to, -1, [&] {
      return impl->exchange(gather.getSource().getType(), to);
    });
  } else if (auto d = dyn_cast<DistributeOp>(op)) {
    e = &impl->cached(d.getType(), Type(), d.getSrcRank(), [&] {
      return impl->scatter(d.getType(), d.getSrcRank());
    });
  }
  if (!e)
    return success();
  // The entry's JSON is built once; ops that repeat it differ in location.
  auto [it, inserted] = impl->jsonOf.try_emplace(e);
  if (inserted)
    it->second = e->json("");
  if (!it->second)
    return op->emitError()
           << "cannot report the plan of this op: its byte counts (bytes "
              "received by all ranks, or the lower bound) exceed 2^63 - 1";
  impl->ops.push_back(*it->second);
  impl->ops.back()["location"] = locationText(op->getLoc());
  return success();
}

std::string PlanReport::json() const {
  return nlohmann::json{{"ops", impl->ops}}.dump(2) + "\n";
}
