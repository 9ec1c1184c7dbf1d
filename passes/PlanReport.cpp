//===- PlanReport.cpp - What a plan moves and what it costs ---------------===//

#include "PlanReport.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Layout/Exchange.h"

#include "mlir/IR/Location.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

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

/// The ranks a report covers: the world size, or the ranks the layouts name.
int64_t ranksOf(int64_t worldSize, const layout::BlockTable &a,
                const layout::BlockTable &b) {
  int64_t ranks = worldSize;
  for (const layout::BlockTable *t : {&a, &b})
    for (int owner : t->owners)
      ranks = std::max<int64_t>(ranks, owner + 1);
  return ranks;
}

/// Elements of `table`'s block of `rank` (0 if none).
int64_t ownVolume(const layout::BlockTable &table, int rank) {
  int64_t b = table.blockOf(rank);
  return b < 0 ? 0 : table.volumes[b];
}

/// One op's entry, filled per rank.
struct Entry {
  std::string kind;
  std::vector<int64_t> received, lowerBound;
  double modelledUs = 0;

  nlohmann::json json(const std::string &location) const {
    int64_t total = 0, max = 0, lbTotal = 0, lbMax = 0;
    for (int64_t r : received) {
      total += r;
      max = std::max(max, r);
    }
    for (int64_t l : lowerBound) {
      lbTotal += l;
      lbMax = std::max(lbMax, l);
    }
    nlohmann::json steps = nlohmann::json::array();
    if (!kind.empty())
      steps.push_back(
          {{"kind", kind}, {"group", "world"}, {"bytes_per_rank", received}});
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

  /// One exchange: what every rank receives, from how many peers.
  Entry exchange(ShardedTensorType from, ShardedTensorType to) {
    Entry e;
    int64_t eb = elementBytes(to.getElementType());
    layout::BlockTable src = layout::blockTableOf(from.getDeviceBlocks());
    layout::BlockTable dst = layout::blockTableOf(to.getDeviceBlocks());
    int64_t ranks = ranksOf(worldSize, src, dst);
    e.received.assign(ranks, 0);
    e.lowerBound.assign(ranks, 0);
    if (from == to)
      return e;
    e.kind = "exchange";
    layout::Link link = topology.slowest();
    for (int r = 0; r < ranks; ++r) {
      layout::RedistributionPlan plan = layout::planRedistribution(src, dst, r);
      e.received[r] = plan.receivedElements() * eb;
      std::set<int> from, to;
      for (const layout::Transfer &t : plan.receives)
        from.insert(t.peer);
      for (const layout::Transfer &t : plan.sends)
        to.insert(t.peer);
      int64_t messages = std::max(from.size(), to.size());
      int64_t bytes = std::max(e.received[r], plan.sentElements() * eb);
      e.modelledUs = std::max(e.modelledUs, link.timeUs(messages, bytes));
      // Lower bound: the rank's destination block less what it holds.
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
    int64_t ranks = ranksOf(worldSize, primary, device);
    int64_t total = *layout::volume(
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end()));
    layout::Link link = topology.slowest();
    for (int r = 0; r < ranks; ++r) {
      e.received.push_back((total - ownVolume(primary, r)) * eb);
      e.lowerBound.push_back((total - ownVolume(device, r)) * eb);
      e.modelledUs =
          std::max(e.modelledUs, link.timeUs(ranks - 1, e.received.back()));
    }
    return e;
  }

  /// distribute: the root sends each owner its block.
  Entry scatter(ShardedTensorType type, int64_t root) {
    Entry e;
    e.kind = "scatter";
    int64_t eb = elementBytes(type.getElementType());
    layout::BlockTable device = layout::blockTableOf(type.getDeviceBlocks());
    int64_t ranks = std::max(ranksOf(worldSize, device, device), root + 1);
    layout::Link link = topology.slowest();
    int64_t sent = 0, messages = 0;
    for (int r = 0; r < ranks; ++r) {
      int64_t bytes = r == root ? 0 : ownVolume(device, r) * eb;
      e.received.push_back(bytes);
      e.lowerBound.push_back(bytes);
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
  Entry e;
  if (auto r = dyn_cast<RedistributeOp>(op))
    e = impl->exchange(r.getSource().getType(), r.getType());
  else if (auto g = dyn_cast<AllGatherOp>(op))
    e = impl->allGather(g.getSource().getType());
  else if (auto d = dyn_cast<DistributeOp>(op))
    e = impl->scatter(d.getType(), d.getSrcRank());
  else
    return;
  impl->ops.push_back(e.json(locationText(op->getLoc())));
}

std::string PlanReport::json() const {
  return nlohmann::json{{"ops", impl->ops}}.dump(2) + "\n";
}
