//===- Traffic.cpp - Every rank's traffic and the lower bound -------------===//
//
// exchangeTraffic, exchangeTrafficByBox and lowerBoundElements: what the
// per-rank plans of an exchange add up to, computed for all ranks at once,
// in time near linear in the blocks and their overlaps.
//
//===----------------------------------------------------------------------===//

#include "SourceGroups.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

namespace shardc {
namespace layout {

using detail::BoxEqual;
using detail::BoxHash;
using detail::BoxIndex;
using detail::groupIndex;
using detail::RankMap;
using detail::SourceGroups;

namespace {

template <typename Fn>
void forEachMeeting(const SourceGroups &sources, const BoxIndex &index,
                    const BlockTable &dst, Fn fn) {
  for (size_t b = 0; b < dst.size(); ++b) {
    const int q = dst.owners[b];
    index.candidates(dst.boxes[b], [&](size_t g) {
      std::optional<Box> shared =
          intersect(dst.boxes[b], *sources.groups[g].box);
      if (shared)
        fn(b, q, g, *shared);
    });
  }
}

/// The blocks of tables with at most one block per rank on either side (every
/// mesh layout), grouped by box on both sides: what the traffic and the
/// lower bound of an exchange are computed from, in time linear in the
/// blocks and the (destination box, source box) pairs that meet, not in the
/// pairs of ranks that exchange data (a gather to every rank has N^2 of them
/// but N meeting boxes).
struct BoxGroups {
  /// Destination blocks with the same non-empty box.
  struct DstGroup {
    const Box *box = nullptr;
    /// Its blocks, in table order.
    std::vector<int64_t> blocks;
    /// The source groups it meets, and the elements it shares with each.
    std::vector<std::pair<size_t, int64_t>> meets;
  };
  const SourceGroups &sources;
  const BlockTable &src, &dst;
  std::vector<DstGroup> groups;
  /// Per rank: its source block and its destination block (-1: none).
  RankMap srcBlockOf, dstBlockOf;
  /// Per destination block: its group (-1: empty).
  std::vector<int64_t> groupOf;
  /// Per source block: its group and class (empty blocks: none).
  std::vector<std::pair<size_t, size_t>> classOfBlock;

  BoxGroups(const SourceGroups &sources, const BoxIndex &index,
            const BlockTable &src, const BlockTable &dst)
      : sources(sources), src(src), dst(dst) {
    for (size_t b = 0; b < src.size(); ++b)
      srcBlockOf.add(src.owners[b], static_cast<int64_t>(b));
    srcBlockOf.seal();
    classOfBlock.assign(src.size(), {SIZE_MAX, SIZE_MAX});
    for (size_t g = 0; g < sources.groups.size(); ++g)
      for (size_t c = 0; c < sources.groups[g].classes.size(); ++c)
        for (int64_t b : sources.groups[g].classes[c].blocks)
          classOfBlock[b] = {g, c};
    std::unordered_map<const Box *, size_t, BoxHash, BoxEqual> groupOfBox;
    groupOfBox.reserve(dst.size());
    groupOf.assign(dst.size(), -1);
    for (size_t b = 0; b < dst.size(); ++b) {
      dstBlockOf.add(dst.owners[b], static_cast<int64_t>(b));
      if (dst.boxes[b].empty())
        continue;
      auto [it, inserted] = groupOfBox.emplace(&dst.boxes[b], groups.size());
      if (inserted) {
        groups.emplace_back();
        groups.back().box = &dst.boxes[b];
      }
      groups[it->second].blocks.push_back(static_cast<int64_t>(b));
      groupOf[b] = static_cast<int64_t>(it->second);
    }
    dstBlockOf.seal();
    if (sources.groups.empty())
      return;
    for (DstGroup &d : groups) {
      index.candidates(*d.box, [&](size_t g) {
        int64_t v =
            intersectionVolume(*d.box, *sources.groups[g].box).value_or(0);
        if (v > 0)
          d.meets.push_back({g, v});
      });
      std::sort(d.meets.begin(), d.meets.end());
    }
  }

  /// Whether both tables have at most one block per rank.
  static bool applies(const BlockTable &src, const BlockTable &dst) {
    for (const BlockTable *t : {&src, &dst}) {
      std::vector<int> owners = t->owners;
      std::sort(owners.begin(), owners.end());
      if (std::adjacent_find(owners.begin(), owners.end()) != owners.end())
        return false;
    }
    return true;
  }

  /// The source group and class rank `r` holds (SIZE_MAX: none).
  std::pair<size_t, size_t> classOf(int r) const {
    std::optional<int64_t> b = srcBlockOf.find(r);
    return b ? classOfBlock[*b] : std::make_pair(SIZE_MAX, SIZE_MAX);
  }
};

/// exchangeTraffic over BoxGroups; calls `pair(receiver, sender)` for pairs
/// of ranks that exchange data until it returns false.
RankTrafficTable trafficByBox(const BoxGroups &boxes,
                              const std::function<bool(int, int)> &pair) {
  const SourceGroups &sources = boxes.sources;
  const BlockTable &dst = boxes.dst;
  // What each rank adds, summed per rank at the end.
  std::vector<RankTrafficTable::Entry> traffic;
  traffic.reserve(boxes.src.size() + dst.size());
  bool listing = static_cast<bool>(pair);
  // Receivers: per destination box, what every owner receives, less what it
  // holds (a rank holds one source block: one class of one group).
  for (const BoxGroups::DstGroup &d : boxes.groups) {
    if (d.meets.empty())
      continue;
    int64_t total = 0, messages = 0;
    for (auto [g, v] : d.meets) {
      int64_t classes = static_cast<int64_t>(sources.groups[g].classes.size());
      total += v * classes;
      messages += classes;
    }
    for (int64_t b : d.blocks) {
      const int q = dst.owners[b];
      RankTraffic &t = traffic.emplace_back(q, RankTraffic()).second;
      auto [g, c] = boxes.classOf(q);
      int64_t held =
          g == SIZE_MAX
              ? 0
              : intersectionVolume(*d.box, *sources.groups[g].box).value_or(0);
      t.received += total - held;
      t.copied += held;
      t.receivePeers += messages - (held > 0);
    }
  }
  // Senders: per class, its receivers in destination table order, served in
  // turn by its owners.
  auto single = [&](size_t g) {
    return sources.groups[g].classes.size() == 1 &&
           sources.groups[g].classes[0].owners.size() == 1;
  };
  std::vector<std::vector<std::pair<int64_t, int64_t>>> receiversOf(
      sources.groups.size()); // per group: (destination block, elements)
  for (const BoxGroups::DstGroup &d : boxes.groups)
    for (auto [g, v] : d.meets)
      if (!single(g))
        for (int64_t b : d.blocks)
          receiversOf[g].push_back({b, v});
  for (const BoxGroups::DstGroup &d : boxes.groups) {
    for (auto [g, v] : d.meets) {
      if (!single(g))
        continue;
      // One owner: it serves every block of `d` but its own.
      const int s = sources.groups[g].classes[0].owners[0];
      int64_t receivers = static_cast<int64_t>(d.blocks.size());
      std::optional<int64_t> own = boxes.dstBlockOf.find(s);
      if (own && boxes.groupOf[*own] >= 0 &&
          &boxes.groups[boxes.groupOf[*own]] == &d)
        --receivers;
      if (receivers == 0)
        continue;
      RankTraffic &t = traffic.emplace_back(s, RankTraffic()).second;
      t.sent += v * receivers;
      t.sendPeers += receivers;
      for (size_t i = 0; listing && i < d.blocks.size(); ++i) {
        const int q = dst.owners[d.blocks[i]];
        if (q != s && !pair(q, s))
          listing = false;
      }
    }
  }
  for (size_t g = 0; g < sources.groups.size(); ++g) {
    std::vector<std::pair<int64_t, int64_t>> &receivers = receiversOf[g];
    if (receivers.empty())
      continue;
    std::sort(receivers.begin(), receivers.end());
    const SourceGroups::Group &group = sources.groups[g];
    for (size_t c = 0; c < group.classes.size(); ++c) {
      int64_t k = 0;
      for (auto [b, v] : receivers) {
        const int q = dst.owners[b];
        if (boxes.classOf(q) == std::make_pair(g, c))
          continue; // holds a copy
        const int s = sources.sender(g, c, k++);
        RankTraffic &t = traffic.emplace_back(s, RankTraffic()).second;
        t.sent += v;
        ++t.sendPeers;
        if (listing && !pair(q, s))
          listing = false;
      }
    }
  }
  return RankTrafficTable(std::move(traffic));
}

} // namespace

std::optional<RankTrafficTable>
exchangeTrafficByBox(const BlockTable &src, const std::vector<int64_t> *partial,
                     const BlockTable &dst,
                     const std::function<bool(int, int)> &pair) {
  if (!BoxGroups::applies(src, dst))
    return std::nullopt;
  const SourceGroups sources(src, partial);
  const BoxIndex index = groupIndex(sources);
  const BoxGroups boxes(sources, index, src, dst);
  return trafficByBox(boxes, pair);
}

RankTrafficTable::RankTrafficTable(std::vector<Entry> added)
    : entries(std::move(added)) {
  if (entries.empty())
    return;
  auto [least, most] = std::minmax_element(
      entries.begin(), entries.end(),
      [](const Entry &a, const Entry &b) { return a.first < b.first; });
  const int64_t low = least->first,
                span = int64_t(most->first) - int64_t(least->first) + 1;
  if (span <= 4 * static_cast<int64_t>(entries.size()) + 64) {
    // Ranks in a dense range (every mesh's): summed in place, in rank order.
    std::vector<RankTraffic> sum(span);
    std::vector<bool> listed(span, false);
    for (const Entry &e : entries) {
      sum[e.first - low] += e.second;
      listed[e.first - low] = true;
    }
    entries.clear();
    for (int64_t i = 0; i < span; ++i)
      if (listed[i])
        entries.emplace_back(static_cast<int>(low + i), sum[i]);
    return;
  }
  detail::sortByRank(entries, [](RankTraffic &kept, const RankTraffic &later) {
    kept += later;
  });
}

const RankTraffic *RankTrafficTable::find(int r) const {
  auto it =
      std::lower_bound(entries.begin(), entries.end(), r,
                       [](const Entry &e, int rank) { return e.first < rank; });
  return it != entries.end() && it->first == r ? &it->second : nullptr;
}

RankTrafficTable
exchangeTraffic(const BlockTable &src, const std::vector<int64_t> *partial,
                const BlockTable &dst,
                std::map<std::pair<int, int>, int64_t> *pairs) {
  const SourceGroups sources(src, partial);
  std::map<int, RankTraffic> traffic;
  std::map<int, std::set<int>> from, to;
  if (sources.groups.empty())
    return {};
  const BoxIndex index = groupIndex(sources);
  // Per group and class (class c of group g at first[g] + c): the receivers
  // so far, in destination table order.
  std::vector<size_t> first(sources.groups.size() + 1, 0);
  for (size_t g = 0; g < sources.groups.size(); ++g)
    first[g + 1] = first[g] + sources.groups[g].classes.size();
  std::vector<int64_t> receivers(first.back(), 0);
  for (size_t b = 0; b < dst.size(); ++b) {
    const int q = dst.owners[b];
    index.candidates(dst.boxes[b], [&](size_t g) {
      // Only what they share counts here: no box is built.
      const int64_t elements =
          *intersectionVolume(dst.boxes[b], *sources.groups[g].box);
      if (elements == 0)
        return;
      const std::optional<size_t> mine = sources.classIn(q, g);
      for (size_t c = 0; c < sources.groups[g].classes.size(); ++c) {
        if (mine == c) {
          traffic[q].copied += elements;
          continue;
        }
        int s = sources.sender(g, c, receivers[first[g] + c]++);
        traffic[q].received += elements;
        traffic[s].sent += elements;
        if (pairs)
          (*pairs)[{q, s}] += elements;
        from[q].insert(s);
        to[s].insert(q);
      }
    });
  }
  for (auto &[r, peers] : from)
    traffic[r].receivePeers = peers.size();
  for (auto &[r, peers] : to)
    traffic[r].sendPeers = peers.size();
  return RankTrafficTable(
      std::vector<RankTrafficTable::Entry>(traffic.begin(), traffic.end()));
}

std::map<int, long double>
lowerBoundElements(const BlockTable &src, const std::vector<int64_t> *partial,
                   const BlockTable &dst) {
  const SourceGroups sources(src, partial);
  std::map<int, long double> bound;
  for (size_t b = 0; b < dst.size(); ++b)
    if (!dst.boxes[b].empty())
      bound[dst.owners[b]] = 0;
  if (sources.groups.empty())
    return bound;
  const BoxIndex index = groupIndex(sources);
  if (BoxGroups::applies(src, dst)) {
    // Per destination box: every element of it, less what each owner holds
    // (one source block), plus its share of reducing that block's copies.
    const BoxGroups boxes(sources, index, src, dst);
    for (const BoxGroups::DstGroup &d : boxes.groups) {
      int64_t total = 0;
      for (auto [g, v] : d.meets)
        total += v;
      // Per source group held here: the ranks holding a copy of it whose
      // destination block contains what it shares with this box.
      std::map<size_t, int64_t> needing;
      for (int64_t b : d.blocks) {
        const int q = dst.owners[b];
        const size_t g = boxes.classOf(q).first;
        const int64_t held =
            g == SIZE_MAX ? 0
                          : intersectionVolume(*d.box, *sources.groups[g].box)
                                .value_or(0);
        long double elements = static_cast<long double>(total - held);
        const SourceGroups::Group &group = sources.groups[held ? g : 0];
        if (held > 0 && group.classes.size() > 1) {
          auto [it, inserted] = needing.try_emplace(g, 0);
          if (inserted) {
            const Box shared = *intersect(*d.box, *group.box);
            for (const SourceGroups::Class &c : group.classes) {
              for (int h : c.owners) {
                std::optional<int64_t> hb = boxes.dstBlockOf.find(h);
                if (!hb)
                  continue;
                std::optional<Box> theirs = intersect(dst.boxes[*hb], shared);
                it->second += theirs && *theirs == shared;
              }
            }
            it->second = std::max<int64_t>(it->second, 1);
          }
          const int64_t m = it->second;
          const size_t copies = group.classes.size();
          elements += static_cast<long double>(held) *
                      static_cast<long double>(copies + m - 2) /
                      static_cast<long double>(m);
        }
        bound[q] += elements;
      }
    }
    return bound;
  }
  forEachMeeting(
      sources, index, dst, [&](size_t, int q, size_t g, const Box &shared) {
        const long double elements =
            static_cast<long double>(*volume(shared.sizes));
        const SourceGroups::Group &group = sources.groups[g];
        if (!sources.classIn(q, g)) {
          bound[q] += elements; // the reduced value, once
          return;
        }
        const size_t copies = group.classes.size();
        if (copies == 1)
          return; // held
        // The holders of a copy of this group that need the same elements.
        int64_t m = 0;
        for (const SourceGroups::Class &c : group.classes) {
          for (int h : c.owners) {
            for (int64_t hb : dst.blocksOf(h)) {
              std::optional<Box> theirs = intersect(dst.boxes[hb], shared);
              if (theirs && *theirs == shared) {
                ++m;
                break;
              }
            }
          }
        }
        m = std::max<int64_t>(m, 1);
        bound[q] += elements * static_cast<long double>(copies + m - 2) /
                    static_cast<long double>(m);
      });
  return bound;
}

} // namespace layout
} // namespace shardc
