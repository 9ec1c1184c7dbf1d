//===- Exchange.cpp - One rank's part of a redistribution -----------------===//
//
// planRedistribution and planReduction: what one rank receives, sends,
// copies and reduces, in the order both sides pack it.
//
//===----------------------------------------------------------------------===//

#include "SourceGroups.h"

#include <algorithm>
#include <memory>
#include <tuple>

namespace shardc {
namespace layout {

using detail::BoxIndex;
using detail::groupIndex;
using detail::SourceGroups;

namespace {

/// planRedistribution (`partial` null) and planReduction.
RedistributionPlan planExchange(const SourceGroups &sources,
                                const BoxIndex &index, const BlockTable &dst,
                                const BoxIndex &dstIndex, int rank) {
  RedistributionPlan plan;
  // The destination blocks before `limit` that meet a box, in table order.
  std::vector<int64_t> met;
  auto meetingBlocks = [&](const Box &box, size_t limit) {
    met.clear();
    dstIndex.candidates(box, [&](size_t b) {
      if (b < limit && overlaps(dst.boxes[b], box))
        met.push_back(static_cast<int64_t>(b));
    });
    std::sort(met.begin(), met.end());
  };

  // What this rank receives or copies: each of its destination blocks
  // against every class of every group, the contributions to one box by
  // ascending partial index.
  // Receives before sorting, with their (destination block, group, class).
  std::vector<std::tuple<int64_t, size_t, size_t>> receiveKeys;
  std::vector<size_t> meeting;
  std::vector<int64_t> before; // per class, reused from group to group
  for (int64_t d : dst.blocksOf(rank)) {
    // The groups that may meet the block, in group order.
    meeting.clear();
    if (!sources.groups.empty())
      index.candidates(dst.boxes[d], [&](size_t g) { meeting.push_back(g); });
    std::sort(meeting.begin(), meeting.end());
    for (size_t g : meeting) {
      const SourceGroups::Group &group = sources.groups[g];
      std::optional<Box> shared = intersect(dst.boxes[d], *group.box);
      if (!shared)
        continue;
      const std::optional<size_t> mine = sources.classIn(rank, g);
      // Per class: how many receivers of it come before this block, which
      // picks its server among several owners (a class of one owner serves
      // every receiver: nothing to count, and counting costs a pass over
      // the blocks before this one per group).
      before.assign(group.classes.size(), 0);
      if (group.owners > group.classes.size()) {
        meetingBlocks(*group.box, static_cast<size_t>(d));
        for (int64_t b : met) {
          for (size_t c = 0; c < group.classes.size(); ++c)
            before[c] += !sources.holds(dst.owners[b], g, c);
        }
      }
      for (size_t c = 0; c < group.classes.size(); ++c) {
        // `index` refers to `receives` before it is sorted by peer.
        Contribution contribution;
        if (mine == c) {
          contribution.index = plan.copies.size();
          plan.copies.push_back(*shared);
          plan.copyBlocks.push_back({group.classes[c].blockOf(rank), d});
        } else {
          contribution.received = true;
          contribution.index = plan.receives.size();
          const size_t server = sources.server(g, c, before[c]);
          // With one class this is the box's last use: moved, not copied.
          const bool last = group.classes.size() == 1;
          plan.receives.push_back(Transfer{group.classes[c].owners[server],
                                           last ? std::move(*shared) : *shared,
                                           group.classes[c].blocks[server], d});
          receiveKeys.emplace_back(d, g, c);
        }
        contribution.reduce = c > 0;
        plan.order.push_back(contribution);
      }
      if (group.classes.size() > 1)
        plan.combined.push_back(Combined{
            std::move(*shared), static_cast<int64_t>(group.classes.size()), d});
    }
  }
  // What it sends: each of its classes against every destination block
  // whose owner holds no copy of it and which this rank serves.
  std::vector<std::tuple<int64_t, size_t, size_t>> sendKeys;
  for (const SourceGroups::Held &held : sources.classesOf(rank)) {
    const size_t g = held.g, c = held.c;
    const int64_t own = sources.groups[g].classes[c].blockOf(rank);
    int64_t k = 0; // receivers of this class so far
    meetingBlocks(*sources.groups[g].box, dst.size());
    for (int64_t b : met) {
      const int q = dst.owners[b];
      if (sources.holds(q, g, c))
        continue;
      if (sources.sender(g, c, k++) == rank) {
        std::optional<Box> shared =
            intersect(dst.boxes[b], *sources.groups[g].box);
        plan.sends.push_back(
            Transfer{q, std::move(*shared), own, static_cast<int64_t>(b)});
        sendKeys.emplace_back(static_cast<int64_t>(b), g, c);
      }
    }
  }

  // Both sides order one peer's boxes by destination block, group, class:
  // the order in which they lie packed.
  auto sortedOrder =
      [](const std::vector<Transfer> &transfers,
         const std::vector<std::tuple<int64_t, size_t, size_t>> &keys) {
        std::vector<size_t> order(transfers.size());
        for (size_t i = 0; i < order.size(); ++i)
          order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
          return std::make_pair(transfers[a].peer, keys[a]) <
                 std::make_pair(transfers[b].peer, keys[b]);
        });
        return order;
      };
  {
    std::vector<size_t> order = sortedOrder(plan.sends, sendKeys);
    std::vector<Transfer> sends;
    sends.reserve(order.size());
    for (size_t i : order)
      sends.push_back(std::move(plan.sends[i]));
    plan.sends = std::move(sends);
  }
  // Sort the receives, renumbering the contributions.
  std::vector<size_t> byPeerOrder = sortedOrder(plan.receives, receiveKeys);
  std::vector<size_t> newIndex(byPeerOrder.size());
  std::vector<Transfer> receives;
  receives.reserve(byPeerOrder.size());
  for (size_t i = 0; i < byPeerOrder.size(); ++i) {
    newIndex[byPeerOrder[i]] = i;
    receives.push_back(std::move(plan.receives[byPeerOrder[i]]));
  }
  plan.receives = std::move(receives);
  // Nothing is reduced unless a box combines several partial indices.
  if (plan.combined.empty()) {
    plan.order.clear();
  } else {
    for (Contribution &contribution : plan.order) {
      if (contribution.received)
        contribution.index = newIndex[contribution.index];
    }
  }
  return plan;
}

/// Calls `fn(b, q, g, shared)` for every destination block b (owner q) and
/// every source group g whose box meets it in `shared`.

} // namespace

struct ExchangePlanner::Impl {
  Impl(const BlockTable &src, const std::vector<int64_t> *partial,
       const BlockTable &dst)
      : sources(src, partial), index(groupIndex(sources)), dst(dst),
        dstIndex(dst.size(),
                 [&](size_t b) -> const Box & { return dst.boxes[b]; }) {}
  SourceGroups sources;
  BoxIndex index;
  const BlockTable &dst;
  BoxIndex dstIndex;
};

ExchangePlanner::ExchangePlanner(const BlockTable &src,
                                 const std::vector<int64_t> *partial,
                                 const BlockTable &dst)
    : impl(std::make_unique<Impl>(src, partial, dst)) {}

ExchangePlanner::~ExchangePlanner() = default;

RedistributionPlan ExchangePlanner::plan(int rank) const {
  return planExchange(impl->sources, impl->index, impl->dst, impl->dstIndex,
                      rank);
}

RedistributionPlan planRedistribution(const BlockTable &src,
                                      const BlockTable &dst, int rank) {
  return ExchangePlanner(src, nullptr, dst).plan(rank);
}

RedistributionPlan planReduction(const BlockTable &src,
                                 const std::vector<int64_t> &partial,
                                 const BlockTable &dst, int rank) {
  return ExchangePlanner(src, &partial, dst).plan(rank);
}

} // namespace layout
} // namespace shardc
