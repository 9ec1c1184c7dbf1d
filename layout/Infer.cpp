//===- Infer.cpp - Recognizing specs from explicit blocks -----------------===//

#include "shardc/Layout/Infer.h"

#include <algorithm>
#include <map>
#include <set>

namespace shardc {
namespace layout {

namespace {

/// The non-empty blocks of `blocks`, ordered by offsets.
std::vector<const Block *> nonEmptyByOffsets(const std::vector<Block> &blocks) {
  std::vector<const Block *> result;
  for (const Block &b : blocks)
    if (!b.box.empty())
      result.push_back(&b);
  std::sort(result.begin(), result.end(), [](const Block *a, const Block *b) {
    return a->box.offsets < b->box.offsets;
  });
  return result;
}

/// Whether every element lies on the same device in `a` and `b`: their
/// non-empty blocks are the same boxes on the same devices.
bool sameElements(const std::vector<Block> &a, const std::vector<Block> &b) {
  std::vector<const Block *> x = nonEmptyByOffsets(a), y = nonEmptyByOffsets(b);
  return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                    [](const Block *p, const Block *q) {
                      return p->box == q->box && p->placement == q->placement;
                    });
}

} // namespace

std::optional<InferredChunk> inferChunkSpec(const std::vector<int64_t> &shape,
                                            const std::vector<Block> &blocks) {
  if (blocks.empty())
    return std::nullopt;
  // The dim that carries the non-zero offsets. PyTorch keeps it in a
  // variable tested with `if not chunk_sharding_dim`, so while it is 0 the
  // next block's dim replaces it without a consistency check; we keep that.
  std::optional<int64_t> dim;
  for (const Block &b : blocks) {
    std::vector<int64_t> nonZero;
    for (size_t d = 0; d < b.box.offsets.size(); ++d)
      if (b.box.offsets[d] != 0)
        nonZero.push_back(d);
    if (nonZero.empty())
      continue;
    if (nonZero.size() != 1)
      return std::nullopt;
    if (!dim || *dim == 0)
      dim = nonZero[0];
    else if (*dim != nonZero[0])
      return std::nullopt;
  }
  if (!dim)
    return std::nullopt;
  int64_t d = *dim;
  for (const Block &b : blocks)
    if (b.box.sizes.size() <= static_cast<size_t>(d) ||
        b.box.offsets.size() <= static_cast<size_t>(d))
      return std::nullopt;

  // Placements ordered by the sum of each block's offsets (a stable sort, as
  // Python's sorted).
  std::vector<std::pair<int64_t, size_t>> order;
  std::vector<int64_t> sizes, offsets;
  int64_t total = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    int64_t sum = 0;
    for (int64_t o : blocks[i].box.offsets)
      if (__builtin_add_overflow(sum, o, &sum))
        return std::nullopt;
    order.push_back({sum, i});
    sizes.push_back(blocks[i].box.sizes[d]);
    offsets.push_back(blocks[i].box.offsets[d]);
    if (__builtin_add_overflow(total, blocks[i].box.sizes[d], &total))
      return std::nullopt;
  }
  std::stable_sort(
      order.begin(), order.end(),
      [](const auto &a, const auto &b) { return a.first < b.first; });

  // The sorted sizes and offsets along the dim must be torch.chunk's.
  int64_t k = static_cast<int64_t>(blocks.size());
  if (total < 0)
    return std::nullopt;
  std::vector<int64_t> chunkSizes, chunkOffsets;
  for (const Chunk &c : chunks(total, k)) {
    chunkSizes.push_back(c.size);
    chunkOffsets.push_back(c.offset);
  }
  std::sort(sizes.begin(), sizes.end());
  std::sort(chunkSizes.begin(), chunkSizes.end());
  std::sort(offsets.begin(), offsets.end());
  if (sizes != chunkSizes || offsets != chunkOffsets)
    return std::nullopt;

  InferredChunk result;
  result.dim = d;
  for (const auto &[sum, i] : order)
    result.placements.push_back(blocks[i].placement);
  // PyTorch chunks the sum of the sizes, not the tensor's dim: a list whose
  // sizes add up to more (an empty block past the end counts its size in
  // the dim) would become a spec that puts elements on other ranks. Only a
  // spec whose chunks of `shape` are exactly the listed non-empty blocks
  // keeps every element where it was.
  if (static_cast<size_t>(d) >= shape.size() ||
      !sameElements(chunkBlocks(shape, d, result.placements), blocks))
    return std::nullopt;
  return result;
}

std::optional<InferredMesh>
inferMeshPlacements(const std::vector<int64_t> &shape,
                    const std::vector<Block> &blocks) {
  if (blocks.empty())
    return std::nullopt;
  const size_t rank = shape.size();
  // The distinct offsets of each dim; the cut dims are those with several.
  std::vector<std::set<int64_t>> cuts(rank);
  for (const Block &b : blocks) {
    if (b.box.rank() != rank || b.box.empty() || !b.placement.hasRank() ||
        b.placement.index >= 0 || b.placement.kind != blocks[0].placement.kind)
      return std::nullopt;
    for (size_t d = 0; d < rank; ++d)
      cuts[d].insert(b.box.offsets[d]);
  }
  InferredMesh result;
  result.kind = blocks[0].placement.kind;
  std::vector<std::vector<int64_t>> axisOffsets; // per mesh axis
  std::vector<size_t> axisDim;
  int64_t positions = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (cuts[d].size() < 2)
      continue;
    int64_t k = static_cast<int64_t>(cuts[d].size());
    // torch.chunk of this dim into k non-empty chunks must give these cuts.
    std::vector<int64_t> expected;
    for (const Chunk &c : chunks(shape[d], k)) {
      if (c.size == 0)
        return std::nullopt;
      expected.push_back(c.offset);
    }
    if (!std::equal(expected.begin(), expected.end(), cuts[d].begin()))
      return std::nullopt;
    result.mesh.shape.push_back(k);
    result.placements.push_back(Placement::shard(d));
    axisOffsets.push_back(expected);
    axisDim.push_back(d);
    positions *= k;
  }
  if (axisDim.empty() || positions != static_cast<int64_t>(blocks.size()))
    return std::nullopt;

  // Every grid position holds exactly its chunk box, on a distinct rank.
  std::vector<int64_t> devices(positions, -1);
  std::set<int64_t> ranks;
  for (const Block &b : blocks) {
    int64_t linear = 0;
    std::vector<int64_t> coord(axisDim.size());
    for (size_t a = 0; a < axisDim.size(); ++a) {
      const std::vector<int64_t> &offs = axisOffsets[a];
      coord[a] = std::lower_bound(offs.begin(), offs.end(),
                                  b.box.offsets[axisDim[a]]) -
                 offs.begin();
      linear = linear * result.mesh.shape[a] + coord[a];
    }
    if (devices[linear] != -1 || !ranks.insert(b.placement.rank).second)
      return std::nullopt;
    if (!(meshBox(shape, result.mesh, result.placements, coord) == b.box))
      return std::nullopt;
    devices[linear] = b.placement.rank;
  }
  // Keep the default 0, 1, ... when that is what the devices are.
  bool identity = true;
  for (int64_t i = 0; i < positions; ++i)
    identity &= devices[i] == i;
  if (!identity)
    result.mesh.devices = devices;
  return result;
}

} // namespace layout
} // namespace shardc
