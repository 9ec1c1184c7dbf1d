//===- Exchange.cpp - Block tables and the plan of a redistribution
//-----------===//

#include "shardc/Layout/Exchange.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

namespace shardc {
namespace layout {

int64_t BlockTable::blockOf(int rank) const {
  for (size_t b = 0; b < owners.size(); ++b) {
    if (owners[b] == rank)
      return static_cast<int64_t>(b);
  }
  return -1;
}

std::vector<int64_t> BlockTable::extent(int64_t rank) const {
  std::vector<int64_t> shape(rank, 0);
  for (const Box &box : boxes) {
    if (box.empty())
      continue;
    for (int64_t d = 0; d < rank; ++d)
      shape[d] = std::max(shape[d], box.offsets[d] + box.sizes[d]);
  }
  return shape;
}

BlockTable blockTableOf(const std::vector<Block> &blocks) {
  BlockTable table;
  for (const Block &b : blocks) {
    table.boxes.push_back(b.box);
    table.owners.push_back(static_cast<int>(b.placement.rank));
    table.volumes.push_back(volume(b.box.sizes).value_or(0));
  }
  return table;
}

bool readBlockTable(const int64_t *blocks, int64_t numBlocks, int64_t rank,
                    int64_t worldSize, const std::vector<int64_t> *shape,
                    const std::string &what, BlockTable &table,
                    std::string &problem) {
  auto bad = [&](std::string text) {
    problem = std::move(text);
    return false;
  };
  if (numBlocks < 0)
    return bad("the " + what + "block table has " + std::to_string(numBlocks) +
               " rows");
  if (numBlocks > 0 && !blocks)
    return bad("the " + what + "block table is NULL but has " +
               std::to_string(numBlocks) + " rows");
  const int64_t columns = 1 + 2 * rank;
  table.boxes.assign(numBlocks, Box());
  table.owners.assign(numBlocks, -1);
  table.volumes.assign(numBlocks, 0);
  // The first block of every owner.
  std::unordered_map<int64_t, int64_t> blockOfOwner;
  for (int64_t b = 0; b < numBlocks; ++b) {
    const int64_t *row = blocks + b * columns;
    Box &box = table.boxes[b];
    box.offsets.assign(row + 1, row + 1 + rank);
    box.sizes.assign(row + 1 + rank, row + 1 + 2 * rank);
    const std::string name = what + "block " + std::to_string(b);
    const int64_t owner = row[0];
    if (worldSize > 0 && (owner < 0 || owner >= worldSize))
      return bad(name + " is placed on rank " + std::to_string(owner) +
                 " but the world has " + std::to_string(worldSize) + " rank" +
                 (worldSize == 1 ? "" : "s"));
    if (worldSize <= 0 && (owner < 0 || owner > kMaxRank))
      return bad(name + " is placed on rank " + std::to_string(owner) +
                 ", which is not an MPI rank (0 to " +
                 std::to_string(kMaxRank) + ")");
    const std::string named = name + " " + formatBox(box);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t end = 0;
      if (box.offsets[d] < 0 || box.sizes[d] < 0)
        return bad(named + " has a negative offset or size");
      if (__builtin_add_overflow(box.offsets[d], box.sizes[d], &end))
        return bad(named + " ends beyond what int64 counts");
    }
    if (shape && !fitsIn(box, *shape))
      return bad(named + " does not fit in the global tensor " +
                 formatList(*shape));
    std::optional<int64_t> elements = volume(box.sizes);
    if (!elements)
      return bad(named + " holds more elements than int64 counts");
    auto [first, inserted] = blockOfOwner.emplace(owner, b);
    if (!inserted)
      return bad("rank " + std::to_string(owner) + " owns " + what + "blocks " +
                 std::to_string(first->second) + " and " + std::to_string(b) +
                 "; this version supports at most one block per rank");
    table.owners[b] = static_cast<int>(owner);
    table.volumes[b] = *elements;
  }
  return true;
}

bool readRedistributionTables(const int64_t *srcBlocks, int64_t numSrc,
                              const int64_t *dstBlocks, int64_t numDst,
                              int64_t rank, int64_t worldSize, BlockTable &src,
                              BlockTable &dst, std::string &problem) {
  if (!readBlockTable(srcBlocks, numSrc, rank, worldSize, nullptr, "source ",
                      src, problem) ||
      !readBlockTable(dstBlocks, numDst, rank, worldSize, nullptr,
                      "destination ", dst, problem))
    return false;
  const std::vector<int64_t> srcExtent = src.extent(rank);
  const std::vector<int64_t> dstExtent = dst.extent(rank);
  if (srcExtent != dstExtent) {
    problem = "the source blocks span " + formatList(srcExtent) +
              " but the destination blocks span " + formatList(dstExtent) +
              "; both tables must lay out the same global tensor";
    return false;
  }
  return true;
}

int64_t RedistributionPlan::sentElements() const {
  int64_t n = 0;
  for (const Transfer &t : sends)
    n += *volume(t.box.sizes);
  return n;
}

int64_t RedistributionPlan::receivedElements() const {
  int64_t n = 0;
  for (const Transfer &t : receives)
    n += *volume(t.box.sizes);
  return n;
}

int64_t RedistributionPlan::copiedElements() const {
  int64_t n = 0;
  for (const Box &box : copies)
    n += *volume(box.sizes);
  return n;
}

RedistributionPlan planRedistribution(const BlockTable &src,
                                      const BlockTable &dst, int rank) {
  // The groups of replicas: non-empty source boxes, in the order of their
  // first block, with their owners in table order.
  std::vector<const Box *> groupBoxes;
  std::vector<std::vector<int>> groupOwners;
  std::unordered_map<int, size_t> groupOfRank;
  {
    std::map<std::pair<std::vector<int64_t>, std::vector<int64_t>>, size_t>
        groupOfBox;
    for (size_t b = 0; b < src.size(); ++b) {
      const Box &box = src.boxes[b];
      if (box.empty())
        continue;
      auto [it, inserted] = groupOfBox.emplace(
          std::make_pair(box.offsets, box.sizes), groupBoxes.size());
      if (inserted) {
        groupBoxes.push_back(&box);
        groupOwners.emplace_back();
      }
      groupOwners[it->second].push_back(src.owners[b]);
      groupOfRank[src.owners[b]] = it->second;
    }
  }
  auto groupOf = [&](int r) -> std::optional<size_t> {
    auto it = groupOfRank.find(r);
    if (it == groupOfRank.end())
      return std::nullopt;
    return it->second;
  };
  // The owner of group `g` that serves rank `q`.
  auto sender = [&](size_t g, int q) {
    const std::vector<int> &owners = groupOwners[g];
    return owners[static_cast<size_t>(q) % owners.size()];
  };

  RedistributionPlan plan;
  const std::optional<size_t> mine = groupOf(rank);
  // What this rank receives or copies: its destination block against every
  // group.
  const int64_t d = dst.blockOf(rank);
  if (d >= 0) {
    for (size_t g = 0; g < groupBoxes.size(); ++g) {
      std::optional<Box> shared = intersect(dst.boxes[d], *groupBoxes[g]);
      if (!shared)
        continue;
      if (mine == g)
        plan.copies.push_back(std::move(*shared));
      else
        plan.receives.push_back(Transfer{sender(g, rank), std::move(*shared)});
    }
  }
  // What it sends: its group against every destination block whose owner
  // holds no replica of it and which this rank serves.
  if (mine) {
    for (size_t b = 0; b < dst.size(); ++b) {
      const int q = dst.owners[b];
      if (groupOf(q) == mine || sender(*mine, q) != rank)
        continue;
      std::optional<Box> shared = intersect(dst.boxes[b], *groupBoxes[*mine]);
      if (shared)
        plan.sends.push_back(Transfer{q, std::move(*shared)});
    }
  }
  auto byPeer = [](const Transfer &a, const Transfer &b) {
    return a.peer < b.peer;
  };
  std::stable_sort(plan.sends.begin(), plan.sends.end(), byPeer);
  std::stable_sort(plan.receives.begin(), plan.receives.end(), byPeer);
  return plan;
}

int64_t packedOffsets(const std::vector<Transfer> &transfers, int worldSize,
                      std::vector<int64_t> &counts,
                      std::vector<int64_t> &offsets) {
  counts.assign(worldSize, 0);
  offsets.assign(worldSize, 0);
  int64_t next = 0;
  for (const Transfer &t : transfers) {
    if (counts[t.peer] == 0)
      offsets[t.peer] = next;
    const int64_t n = *volume(t.box.sizes);
    counts[t.peer] += n;
    next += n;
  }
  return next;
}

} // namespace layout
} // namespace shardc
