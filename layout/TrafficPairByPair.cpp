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

std::optional<RankTrafficTable>
trafficPairByPair(const BlockTable &src, const std::vector<int64_t> *partial,
                  const BlockTable &dst, MeshAxesCrossed *axes) {
  // The ranks of either table, sorted, each once: their index is where
  // their traffic and coordinates are kept.
  std::vector<int> ranks;
  ranks.reserve(src.size() + dst.size());
  ranks.insert(ranks.end(), src.owners.begin(), src.owners.end());
  ranks.insert(ranks.end(), dst.owners.begin(), dst.owners.end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  auto indexOf = [&](int r) {
    return static_cast<size_t>(std::lower_bound(ranks.begin(), ranks.end(), r) -
                               ranks.begin());
  };
  // Per rank: its source block and its destination block (-1: none).
  std::vector<int64_t> srcBlockOf(ranks.size(), -1);
  for (size_t b = 0; b < src.size(); ++b) {
    int64_t &at = srcBlockOf[indexOf(src.owners[b])];
    if (at >= 0)
      return std::nullopt;
    at = static_cast<int64_t>(b);
  }
  std::vector<char> hasDst(ranks.size(), 0);
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
  std::vector<size_t> groupFirst;
  std::vector<std::vector<size_t>> members;
  std::vector<size_t> groupOf(src.size(), SIZE_MAX), classOf(src.size(), 0);
  for (size_t b = 0; b < src.size(); ++b) {
    if (src.boxes[b].empty())
      continue;
    size_t g = 0;
    while (g < groupFirst.size() && !(src.boxes[groupFirst[g]] == src.boxes[b]))
      ++g;
    if (g == groupFirst.size()) {
      groupFirst.push_back(b);
      members.emplace_back();
    }
    members[g].push_back(b);
    groupOf[b] = g;
  }
  // Per group: where each class's owners start in `owners` (classStart[g]
  // to classStart[g + 1] - 1 index `classes`, each a [from, to) of owners).
  std::vector<int> owners;
  std::vector<std::pair<size_t, size_t>> classes;
  std::vector<size_t> classStart(groupFirst.size() + 1, 0);
  for (size_t g = 0; g < groupFirst.size(); ++g) {
    std::vector<size_t> &m = members[g];
    if (partial)
      std::stable_sort(m.begin(), m.end(), [&](size_t a, size_t b) {
        return partialOf(a) < partialOf(b);
      });
    classStart[g] = classes.size();
    for (size_t i = 0; i < m.size(); ++i) {
      if (i == 0 || partialOf(m[i]) != partialOf(m[i - 1]))
        classes.push_back({owners.size(), owners.size()});
      classOf[m[i]] = classes.size() - 1 - classStart[g];
      owners.push_back(src.owners[m[i]]);
      ++classes.back().second;
    }
  }
  classStart[groupFirst.size()] = classes.size();
  std::vector<int64_t> served(classes.size(), 0);
  std::vector<RankTraffic> traffic(ranks.size());
  std::vector<char> listed(ranks.size(), 0);
  // The axes crossed: each rank's coordinates (then 1 on the mesh, 0 off
  // it), asked once.
  const size_t width = axes ? axes->axes + 1 : 0;
  std::vector<int64_t> coords;
  std::vector<char> known;
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
