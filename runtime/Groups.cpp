//===- Groups.cpp - Redistributions that are collectives within groups ----===//

#include "Groups.h"

#include <algorithm>
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

std::vector<int> splitKey(const std::vector<int> &colors,
                          const std::vector<int> &keys) {
  const int n = static_cast<int>(colors.size());
  std::vector<int> key(2 * static_cast<size_t>(n), -1);
  std::map<int, int> number;
  std::map<int, std::vector<std::pair<int, int>>> members;
  for (int r = 0; r < n; ++r) {
    if (colors[r] < 0)
      continue;
    auto found = number.emplace(colors[r], static_cast<int>(number.size()));
    key[2 * r] = found.first->second;
    members[colors[r]].emplace_back(keys[r], r);
  }
  for (auto &[color, list] : members) {
    std::sort(list.begin(), list.end());
    for (size_t k = 0; k < list.size(); ++k)
      key[2 * list[k].second + 1] = static_cast<int>(k);
  }
  return key;
}

std::string describeGroup(const std::vector<int> &splitKey, int rank) {
  const int n = static_cast<int>(splitKey.size() / 2);
  if (rank < 0 || rank >= n || splitKey[2 * rank] < 0)
    return "no group";
  const int mine = splitKey[2 * rank];
  std::vector<int> members(n, -1);
  int count = 0;
  bool inOrder = true;
  for (int r = 0; r < n; ++r) {
    if (splitKey[2 * r] != mine)
      continue;
    members[splitKey[2 * r + 1]] = r;
    ++count;
    inOrder &= splitKey[2 * r + 1] == r;
  }
  if (inOrder && count == n)
    return "world";
  std::string text = "group of ranks [";
  for (int k = 0; k < count; ++k)
    text += (k ? ", " : "") + std::to_string(members[k]);
  return text + "]";
}

} // namespace rt
} // namespace shardc
