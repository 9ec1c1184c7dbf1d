//===- Layouts.h - Block layouts for runtime tests ------------------------===//
//
// Layouts built with the layout library's torch.chunk arithmetic: chunk specs,
// grids (every dim chunked, cells in row-major order) whose cells may be held
// by several ranks (replicas), and the block tables the runtime reads.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_TEST_LAYOUTS_H
#define SHARDRT_TEST_LAYOUTS_H

#include "shardc/Layout/Layout.h"

#include <cstdint>
#include <vector>

namespace shardrt_test {

using shardc::layout::Block;

/// The block table of `blocks`: rows [owner, offsets..., sizes...].
inline std::vector<int64_t> tableOf(const std::vector<Block> &blocks) {
  std::vector<int64_t> table;
  for (const Block &b : blocks) {
    table.push_back(b.placement.rank);
    table.insert(table.end(), b.box.offsets.begin(), b.box.offsets.end());
    table.insert(table.end(), b.box.sizes.begin(), b.box.sizes.end());
  }
  return table;
}

/// `k` ranks of a world of `world`: in rank order (order 0), reversed
/// (order 1), or the last k ranks of the world (order 2).
inline std::vector<int> ranksInOrder(int k, int order, int world) {
  std::vector<int> ranks;
  for (int i = 0; i < k; ++i)
    ranks.push_back(order == 0 ? i : order == 1 ? k - 1 - i : world - k + i);
  return ranks;
}

/// A chunk spec of `dim` over `ranks` (placement i holds chunk i).
inline std::vector<Block> chunkLayout(const std::vector<int64_t> &shape,
                                      int64_t dim,
                                      const std::vector<int> &ranks) {
  std::vector<shardc::layout::Device> placements(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i)
    placements[i].rank = ranks[i];
  return shardc::layout::chunkBlocks(shape, dim, placements);
}

/// Every dim d cut into parts[d] chunks; cell c (row-major) is held by
/// ranks[c * replicas] to ranks[c * replicas + replicas - 1]. With parts
/// [a, 1] and replicas b on ranks 0..ab-1 this is DTensor's (Shard(0),
/// Replicate()) on a mesh [a, b]; with all parts 1, a replicated tensor.
inline std::vector<Block> gridLayout(const std::vector<int64_t> &shape,
                                     const std::vector<int64_t> &parts,
                                     const std::vector<int> &ranks,
                                     int replicas = 1) {
  std::vector<std::vector<shardc::layout::Chunk>> cuts;
  int64_t cells = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    cuts.push_back(shardc::layout::chunks(shape[d], parts[d]));
    cells *= parts[d];
  }
  std::vector<Block> blocks;
  for (int64_t c = 0; c < cells; ++c) {
    Block block;
    block.box.offsets.resize(shape.size());
    block.box.sizes.resize(shape.size());
    int64_t rest = c;
    for (size_t d = shape.size(); d > 0; --d) {
      const shardc::layout::Chunk &chunk = cuts[d - 1][rest % parts[d - 1]];
      rest /= parts[d - 1];
      block.box.offsets[d - 1] = chunk.offset;
      block.box.sizes[d - 1] = chunk.size;
    }
    for (int r = 0; r < replicas; ++r) {
      block.placement.rank = ranks[c * replicas + r];
      blocks.push_back(block);
    }
  }
  return blocks;
}

/// The block `rank` owns, or -1.
inline int blockOf(const std::vector<Block> &blocks, int rank) {
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (blocks[b].placement.rank == rank)
      return static_cast<int>(b);
  }
  return -1;
}

} // namespace shardrt_test

#endif // SHARDRT_TEST_LAYOUTS_H
