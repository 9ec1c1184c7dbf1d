//===- Groups.cpp - Redistributions that are collectives within groups ----===//

#include "Groups.h"

#include <map>
#include <set>

namespace shardc {
namespace rt {

std::optional<std::vector<int>>
groupedAllReduce(const layout::BlockTable &src,
                 const std::vector<int64_t> &partial,
                 const layout::BlockTable &dst, int worldSize) {
  if (partial.size() != src.size() || worldSize <= 0)
    return std::nullopt;
  std::vector<int64_t> srcOf(worldSize, -1), dstOf(worldSize, -1);
  for (const auto &[table, of] :
       {std::make_pair(&src, &srcOf), std::make_pair(&dst, &dstOf)}) {
    for (size_t b = 0; b < table->size(); ++b) {
      if (table->volumes[b] == 0)
        continue;
      const int owner = table->owners[b];
      if (owner < 0 || owner >= worldSize || (*of)[owner] >= 0)
        return std::nullopt;
      (*of)[owner] = static_cast<int64_t>(b);
    }
  }
  // Ranks by box, with their partial indices.
  std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>,
           std::vector<int>>
      holders;
  std::vector<int> colors(worldSize, -1);
  std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>,
           std::set<int64_t>>
      indices;
  for (int r = 0; r < worldSize; ++r) {
    if (srcOf[r] < 0 && dstOf[r] < 0)
      continue;
    if (srcOf[r] < 0 || dstOf[r] < 0)
      return std::nullopt;
    const layout::Box &a = src.boxes[srcOf[r]], &b = dst.boxes[dstOf[r]];
    if (a.offsets != b.offsets || a.sizes != b.sizes)
      return std::nullopt;
    auto key = std::make_pair(a.offsets, a.sizes);
    if (!indices[key].insert(partial[srcOf[r]]).second)
      return std::nullopt; // a replica
    holders[key].push_back(r);
  }
  if (holders.empty())
    return std::nullopt;
  for (const auto &[box, ranks] : holders) {
    for (int r : ranks)
      colors[r] = ranks.front();
  }
  return colors;
}

std::string describeGroup(const std::vector<int> &colors, int rank) {
  bool world = true;
  for (int c : colors)
    world &= c == 0;
  if (world)
    return "world";
  std::string text = "group of ranks [";
  bool first = true;
  for (size_t r = 0; r < colors.size(); ++r) {
    if (rank >= 0 && rank < static_cast<int>(colors.size()) &&
        colors[r] == colors[rank]) {
      text += (first ? "" : ", ") + std::to_string(r);
      first = false;
    }
  }
  return text + "]";
}

} // namespace rt
} // namespace shardc
