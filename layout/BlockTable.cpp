//===- BlockTable.cpp - Block tables: reading, checking, counting ---------===//

#include "shardc/Layout/Exchange.h"

#include <map>
#include <tuple>
#include <unordered_map>

namespace shardc {
namespace layout {

std::vector<int64_t> BlockTable::blocksOf(int rank) const {
  std::vector<int64_t> mine;
  for (size_t b = 0; b < owners.size(); ++b) {
    if (owners[b] == rank)
      mine.push_back(static_cast<int64_t>(b));
  }
  return mine;
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
  table.boxes.reserve(blocks.size());
  table.owners.reserve(blocks.size());
  table.volumes.reserve(blocks.size());
  for (const Block &b : blocks) {
    table.boxes.push_back(b.box);
    table.owners.push_back(static_cast<int>(b.placement.rank));
    table.volumes.push_back(volume(b.box.sizes).value_or(0));
  }
  return table;
}

BlockTable blockTableOf(std::vector<Block> &&blocks) {
  BlockTable table;
  table.boxes.reserve(blocks.size());
  table.owners.reserve(blocks.size());
  table.volumes.reserve(blocks.size());
  for (Block &b : blocks) {
    table.owners.push_back(static_cast<int>(b.placement.rank));
    table.volumes.push_back(volume(b.box.sizes).value_or(0));
    table.boxes.push_back(std::move(b.box));
  }
  return table;
}

Result<BlockTable> readBlockTable(const int64_t *blocks, int64_t numBlocks,
                                  int64_t rank, int64_t worldSize,
                                  const std::vector<int64_t> *shape,
                                  const std::string &what,
                                  bool severalPerRank) {
  auto bad = [](std::string text) -> Result<BlockTable> {
    return Failure{std::move(text)};
  };
  BlockTable table;
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
  // The first block of every owner (and, with several per rank, of every
  // owner and box).
  std::unordered_map<int64_t, int64_t> blockOfOwner;
  std::map<std::tuple<int64_t, std::vector<int64_t>, std::vector<int64_t>>,
           int64_t>
      blockOfOwnerBox;
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
    if (severalPerRank) {
      if (*elements > 0) {
        auto [first, inserted] = blockOfOwnerBox.emplace(
            std::make_tuple(owner, box.offsets, box.sizes), b);
        if (!inserted)
          return bad("rank " + std::to_string(owner) + " owns " + what +
                     "blocks " + std::to_string(first->second) + " and " +
                     std::to_string(b) + ", both " + formatBox(box) +
                     "; a rank holds a box once");
      }
    } else {
      auto [first, inserted] = blockOfOwner.emplace(owner, b);
      if (!inserted)
        return bad("rank " + std::to_string(owner) + " owns " + what +
                   "blocks " + std::to_string(first->second) + " and " +
                   std::to_string(b) +
                   "; this call supports at most one block per rank");
    }
    table.owners[b] = static_cast<int>(owner);
    table.volumes[b] = *elements;
  }
  return table;
}

Result<RedistributionTables>
readRedistributionTables(const int64_t *srcBlocks, int64_t numSrc,
                         const int64_t *dstBlocks, int64_t numDst, int64_t rank,
                         int64_t worldSize) {
  Result<BlockTable> src =
      readBlockTable(srcBlocks, numSrc, rank, worldSize, nullptr, "source ",
                     /*severalPerRank=*/true);
  if (!src)
    return Failure{src.error()};
  Result<BlockTable> dst =
      readBlockTable(dstBlocks, numDst, rank, worldSize, nullptr,
                     "destination ", /*severalPerRank=*/true);
  if (!dst)
    return Failure{dst.error()};
  const std::vector<int64_t> srcExtent = src->extent(rank);
  const std::vector<int64_t> dstExtent = dst->extent(rank);
  if (srcExtent != dstExtent)
    return Failure{"the source blocks span " + formatList(srcExtent) +
                   " but the destination blocks span " + formatList(dstExtent) +
                   "; both tables must lay out the same global tensor"};
  return RedistributionTables{std::move(*src), std::move(*dst)};
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

Result<std::vector<int64_t>> readPartialIndices(const int64_t *partial,
                                                int64_t numSrc) {
  if (numSrc <= 0)
    return std::vector<int64_t>();
  if (!partial)
    return Failure{
        "the partial indices are NULL but the source block table has " +
        std::to_string(numSrc) + " rows"};
  std::vector<int64_t> indices(partial, partial + numSrc);
  for (int64_t b = 0; b < numSrc; ++b)
    if (indices[b] < 0)
      return Failure{"source block " + std::to_string(b) +
                     " has partial index " + std::to_string(indices[b]) +
                     "; partial indices must be >= 0"};
  return indices;
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
