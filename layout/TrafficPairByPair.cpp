//===- TrafficPairByPair.cpp - Small tables' traffic, block by block -----===//
//
// exchangeTrafficByBox's way for tables of a few dozen blocks (every mesh
// of a few dozen devices: the whole-function search's thousands of moves
// between small layouts): every destination block against every group of
// source blocks, in flat arrays, where the box groups' hash maps and
// indices (Traffic.cpp) cost several times more. LayoutTest checks both
// ways against exchangeTraffic.
//
//===----------------------------------------------------------------------===//

#include "TrafficPairByPair.h"

#include <algorithm>
#include <utility>

namespace shardc {
namespace layout {
namespace detail {

namespace {
/// trafficPairByPair's working lists, kept between calls (a search asks for
/// thousands of small tables: their allocations were a third of the time).
struct Scratch {
  std::vector<int> ranks;
  std::vector<int64_t> srcBlockOf;
  std::vector<char> hasDst, listed, known;
  std::vector<size_t> groupFirst, groupOf, classOf, order, classStart;
  std::vector<int> owners;
  std::vector<std::pair<size_t, size_t>> classes;
  std::vector<int64_t> served, coords;
  std::vector<RankTraffic> traffic;
};
} // namespace

std::optional<RankTrafficTable>
trafficPairByPair(const BlockTable &src, const std::vector<int64_t> *partial,
                  const BlockTable &dst, MeshAxesCrossed *axes) {
  thread_local Scratch scratch;
  Scratch &w = scratch;
  // The ranks of either table, sorted, each once: their index is where
  // their traffic and coordinates are kept.
  std::vector<int> &ranks = w.ranks;
  ranks.clear();
  ranks.insert(ranks.end(), src.owners.begin(), src.owners.end());
  ranks.insert(ranks.end(), dst.owners.begin(), dst.owners.end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  auto indexOf = [&](int r) {
    return static_cast<size_t>(std::lower_bound(ranks.begin(), ranks.end(), r) -
                               ranks.begin());
  };
  // Per rank: its source block and its destination block (-1: none).
  std::vector<int64_t> &srcBlockOf = w.srcBlockOf;
  srcBlockOf.assign(ranks.size(), -1);
  for (size_t b = 0; b < src.size(); ++b) {
    int64_t &at = srcBlockOf[indexOf(src.owners[b])];
    if (at >= 0)
      return std::nullopt;
    at = static_cast<int64_t>(b);
  }
  std::vector<char> &hasDst = w.hasDst;
  hasDst.assign(ranks.size(), 0);
  for (int q : dst.owners) {
    char &at = hasDst[indexOf(q)];
    if (at)
      return std::nullopt;
    at = 1;
  }
  // Groups of non-empty source blocks of one box, in order of their first
  // block; a group's blocks sorted by partial index (stable: table order
  // within a class). Per block: its group and class.
  auto partialOf = [&](size_t b) { return partial ? (*partial)[b] : 0; };
  std::vector<size_t> &groupFirst = w.groupFirst;
  std::vector<size_t> &groupOf = w.groupOf, &classOf = w.classOf;
  groupFirst.clear();
  groupOf.assign(src.size(), SIZE_MAX);
  classOf.assign(src.size(), 0);
  std::vector<size_t> &order = w.order;
  order.clear();
  for (size_t b = 0; b < src.size(); ++b) {
    if (src.boxes[b].empty())
      continue;
    size_t g = 0;
    while (g < groupFirst.size() && !(src.boxes[groupFirst[g]] == src.boxes[b]))
      ++g;
    if (g == groupFirst.size())
      groupFirst.push_back(b);
    groupOf[b] = g;
    order.push_back(b);
  }
  // The blocks by group, then partial index, then table order.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_pair(groupOf[a], partialOf(a)) <
           std::make_pair(groupOf[b], partialOf(b));
  });
  // Per group: where each class's owners start in `owners` (classStart[g]
  // to classStart[g + 1] - 1 index `classes`, each a [from, to) of owners).
  std::vector<int> &owners = w.owners;
  std::vector<std::pair<size_t, size_t>> &classes = w.classes;
  std::vector<size_t> &classStart = w.classStart;
  owners.clear();
  classes.clear();
  classStart.assign(groupFirst.size() + 1, 0);
  for (size_t i = 0; i < order.size(); ++i) {
    const size_t b = order[i], g = groupOf[b];
    const bool firstOfGroup = i == 0 || groupOf[order[i - 1]] != g;
    if (firstOfGroup)
      classStart[g] = classes.size();
    if (firstOfGroup || partialOf(b) != partialOf(order[i - 1]))
      classes.push_back({owners.size(), owners.size()});
    classOf[b] = classes.size() - 1 - classStart[g];
    owners.push_back(src.owners[b]);
    ++classes.back().second;
  }
  classStart[groupFirst.size()] = classes.size();
  std::vector<int64_t> &served = w.served;
  served.assign(classes.size(), 0);
  std::vector<RankTraffic> &traffic = w.traffic;
  traffic.assign(ranks.size(), RankTraffic());
  std::vector<char> &listed = w.listed;
  listed.assign(ranks.size(), 0);
  // The axes crossed: each rank's coordinates (then 1 on the mesh, 0 off
  // it), asked once.
  const size_t width = axes ? axes->axes + 1 : 0;
  std::vector<int64_t> &coords = w.coords;
  std::vector<char> &known = w.known;
  if (axes) {
    axes->crossed.assign(axes->axes, false);
    coords.assign(ranks.size() * width, 0);
    known.assign(ranks.size(), 0);
  }
  auto row = [&](size_t i) {
    int64_t *at = &coords[i * width];
    if (!known[i]) {
      known[i] = 1;
      at[width - 1] = axes->coordinates(ranks[i], at) ? 1 : 0;
    }
    return at;
  };
  for (size_t b = 0; b < dst.size(); ++b) {
    if (dst.boxes[b].empty())
      continue;
    const size_t q = indexOf(dst.owners[b]);
    const int64_t mine = srcBlockOf[q];
    for (size_t g = 0; g < groupFirst.size(); ++g) {
      const int64_t elements =
          intersectionVolume(dst.boxes[b], src.boxes[groupFirst[g]])
              .value_or(0);
      if (elements <= 0)
        continue;
      listed[q] = 1;
      const bool holds = mine >= 0 && groupOf[static_cast<size_t>(mine)] == g;
      for (size_t c = 0; c < classStart[g + 1] - classStart[g]; ++c) {
        if (holds && classOf[static_cast<size_t>(mine)] == c) {
          traffic[q].copied += elements;
          continue;
        }
        const auto [from, to] = classes[classStart[g] + c];
        const int64_t k = served[classStart[g] + c]++;
        const size_t s =
            indexOf(owners[from + static_cast<size_t>(k) % (to - from)]);
        traffic[q].received += elements;
        ++traffic[q].receivePeers;
        traffic[s].sent += elements;
        ++traffic[s].sendPeers;
        listed[s] = 1;
        if (!axes || axes->settled())
          continue;
        const int64_t *a = row(q), *z = row(s);
        if (!a[width - 1] || !z[width - 1]) {
          axes->offMesh = true;
          continue;
        }
        for (size_t d = 0; d + 1 < width; ++d)
          if (a[d] != z[d])
            axes->crossed[d] = true;
      }
    }
  }
  std::vector<RankTrafficTable::Entry> entries;
  for (size_t i = 0; i < ranks.size(); ++i)
    if (listed[i])
      entries.emplace_back(ranks[i], traffic[i]);
  return RankTrafficTable(std::move(entries));
}

} // namespace detail
} // namespace layout
} // namespace shardc
