//===- Groups.cpp - Splitting the world into groups of ranks --------------===//

#include "Groups.h"

#include <algorithm>
#include <map>

namespace shardc {
namespace rt {

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
