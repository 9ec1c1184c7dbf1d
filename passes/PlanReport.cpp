//===- PlanReport.cpp - What a plan moves and what it costs ---------------===//

#include "PlanReport.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Layout/Exchange.h"

#include "mlir/IR/Location.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace mlir;
using namespace shardc;

namespace {

/// Bytes of one element.
int64_t elementBytes(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * elementBytes(complex.getElementType());
  if (type.isIndex())
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

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
      ranks = std::max<int64_t>(ranks, owner + 1);
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

/// Elements of `table`'s block of `rank` (0 if none).
int64_t ownVolume(const layout::BlockTable &table, int rank) {
  int64_t b = table.blockOf(rank);
  return b < 0 ? 0 : table.volumes[b];
}

/// Per-rank listings are written in full up to this many ranks; beyond,
/// as {"rank": bytes} for the ranks that hold blocks plus "other_ranks".
constexpr int64_t kMaxListedRanks = 4096;

/// One op's entry: the numbers of the named ranks, and those of every other
/// rank of the `ranks` covered (all alike: they hold nothing).
struct Entry {
  std::string kind;
  int64_t ranks = 0;
  std::map<int, int64_t> received, lowerBound;
  int64_t otherReceived = 0, otherLowerBound = 0;
  double modelledUs = 0;

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

  nlohmann::json json(const std::string &location) const {
    int64_t others = ranks - static_cast<int64_t>(received.size());
    int64_t total = otherReceived * others, max = others ? otherReceived : 0;
    int64_t lbTotal = otherLowerBound * others,
            lbMax = others ? otherLowerBound : 0;
    for (auto [r, v] : received) {
      total += v;
      max = std::max(max, v);
    }
    for (auto [r, v] : lowerBound) {
      lbTotal += v;
      lbMax = std::max(lbMax, v);
    }
    nlohmann::json steps = nlohmann::json::array();
    if (!kind.empty())
      steps.push_back({{"kind", kind},
                       {"group", "world"},
                       {"bytes_per_rank", perRank(received, otherReceived)}});
    return {{"location", location},          {"steps", steps},
            {"bytes_received_total", total}, {"bytes_received_max_rank", max},
            {"lower_bound_total", lbTotal},  {"lower_bound_max_rank", lbMax},
            {"modelled_time_us", modelledUs}};
  }
};

} // namespace

struct PlanReport::Impl {
  layout::Topology topology;
  int64_t worldSize;
  nlohmann::json ops = nlohmann::json::array();
  /// Entries by (source, destination) type and root: modules repeat the same
  /// redistributions.
  std::map<std::tuple<const void *, const void *, int64_t>, Entry> cache;

  template <typename Fn>
  const Entry &cached(Type a, Type b, int64_t root, Fn compute) {
    auto key =
        std::make_tuple(a.getAsOpaquePointer(), b.getAsOpaquePointer(), root);
    auto it = cache.find(key);
    if (it == cache.end())
      it = cache.emplace(key, compute()).first;
    return it->second;
  }

  /// One exchange (or, from Partial values, one reducing exchange): what
  /// every rank receives, from how many peers.
  Entry exchange(ShardedTensorType from, ShardedTensorType to) {
    Entry e;
    int64_t eb = elementBytes(to.getElementType());
    layout::BlockTable src = layout::blockTableOf(from.getDeviceBlocks());
    layout::BlockTable dst = layout::blockTableOf(to.getDeviceBlocks());
    e.ranks = ranksOf(worldSize, src, dst);
    std::vector<int> named = namedRanks(src, dst);
    for (int r : named)
      e.received[r] = e.lowerBound[r] = 0;
    if (from == to)
      return e;
    e.kind = "exchange";
    std::vector<int64_t> partial(src.size(), 0);
    if (auto mesh = dyn_cast<PlacementsSpecAttr>(from.getSpec());
        mesh && mesh.hasPartial()) {
      e.kind = "reduce_exchange";
      partial = layout::meshPartialIndices(
          mesh.getMesh().getMesh(),
          {mesh.getPlacements().begin(), mesh.getPlacements().end()});
    }
    layout::Link link = topology.slowest();
    std::map<int, layout::RankTraffic> traffic =
        layout::exchangeTraffic(src, &partial, dst);
    for (int r : named) {
      const layout::RankTraffic &t = traffic[r];
      e.received[r] = t.received * eb;
      int64_t messages = std::max(t.receivePeers, t.sendPeers);
      int64_t bytes = std::max(t.received, t.sent) * eb;
      e.modelledUs = std::max(e.modelledUs, link.timeUs(messages, bytes));
      // Lower bound: the rank's destination block less what it holds (see
      // docs/planner.md for Partial sources).
      int64_t d = dst.blockOf(r), s = src.blockOf(r);
      if (d < 0)
        continue;
      int64_t held = 0;
      if (s >= 0)
        if (std::optional<layout::Box> common =
                layout::intersect(src.boxes[s], dst.boxes[d]))
          held = *layout::volume(common->sizes);
      e.lowerBound[r] = (dst.volumes[d] - held) * eb;
    }
    return e;
  }

  /// all_gather: each rank receives every distinct block but its own.
  Entry allGather(ShardedTensorType type) {
    Entry e;
    e.kind = "all_gather";
    int64_t eb = elementBytes(type.getElementType());
    layout::BlockTable primary = layout::blockTableOf(type.getBlocks());
    layout::BlockTable device = layout::blockTableOf(type.getDeviceBlocks());
    e.ranks = ranksOf(worldSize, primary, device);
    int64_t total = *layout::volume(
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
    e.otherReceived = e.otherLowerBound = total * eb;
    layout::Link link = topology.slowest();
    // With replicas the runtime gathers as an exchange (each rank receives
    // what it lacks); without, MPI_Allgatherv does the same.
    for (int r : namedRanks(primary, device)) {
      e.received[r] = (total - ownVolume(device, r)) * eb;
      e.lowerBound[r] = (total - ownVolume(device, r)) * eb;
    }
    for (const auto &[r, bytes] : e.received)
      e.modelledUs = std::max(e.modelledUs, link.timeUs(e.ranks - 1, bytes));
    if (e.ranks > static_cast<int64_t>(e.received.size()))
      e.modelledUs =
          std::max(e.modelledUs, link.timeUs(e.ranks - 1, e.otherReceived));
    return e;
  }

  /// distribute: the root sends each owner its block.
  Entry scatter(ShardedTensorType type, int64_t root) {
    Entry e;
    e.kind = "scatter";
    int64_t eb = elementBytes(type.getElementType());
    layout::BlockTable device = layout::blockTableOf(type.getDeviceBlocks());
    e.ranks = ranksOf(worldSize, device, device, root);
    layout::Link link = topology.slowest();
    int64_t sent = 0, messages = 0;
    for (int r : namedRanks(device, device, root)) {
      int64_t bytes = r == root ? 0 : ownVolume(device, r) * eb;
      e.received[r] = e.lowerBound[r] = bytes;
      sent += bytes;
      messages += bytes > 0;
    }
    e.modelledUs = link.timeUs(messages, sent);
    return e;
  }
};

PlanReport::PlanReport(layout::Topology topology, int64_t worldSize)
    : impl(new Impl{std::move(topology), worldSize}) {}

PlanReport::~PlanReport() = default;

void PlanReport::add(Operation *op) {
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
  if (e)
    impl->ops.push_back(e->json(locationText(op->getLoc())));
}

std::string PlanReport::json() const {
  return nlohmann::json{{"ops", impl->ops}}.dump(2) + "\n";
}
