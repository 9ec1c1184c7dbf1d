//===- PairwisePort.cpp - PyTorch's pairwise spec check, as a baseline ----===//
//
// Written from the algorithm of torch/distributed/_shard/sharding_spec/
// _internals.py (before its sort-based rewrite; a spec sharded along two or
// more dims still takes the pairwise path there today). Each shard is a
// ShardMetadata: offsets and sizes as lists.
//
//===----------------------------------------------------------------------===//

#include "PairwisePort.h"

namespace shardc {
namespace bench {

namespace {

using layout::Block;

/// `_check_shard_metadata_pair_overlap`: two shards are apart when, in some
/// dim, one starts at or after the other's end.
bool pairOverlaps(const Block &a, const Block &b) {
  const std::vector<int64_t> &ao = a.box.offsets, &as = a.box.sizes;
  const std::vector<int64_t> &bo = b.box.offsets, &bs = b.box.sizes;
  for (size_t d = 0; d < ao.size(); ++d) {
    if (ao[d] >= bo[d] + bs[d])
      return false;
    if (bo[d] >= ao[d] + as[d])
      return false;
  }
  return true;
}

/// `validate_non_overlapping_shards_metadata`: every pair i < j.
std::string validateNonOverlapping(const std::vector<Block> &shards) {
  for (size_t i = 0; i < shards.size(); ++i)
    for (size_t j = i + 1; j < shards.size(); ++j)
      if (pairOverlaps(shards[i], shards[j]))
        return "Shards " + std::to_string(i) + " and " + std::to_string(j) +
               " overlap";
  return "";
}

/// `check_tensor`: the first shard's rank, every shard's bounds, then the
/// volume comparison.
std::string checkTensor(const std::vector<Block> &shards,
                        const std::vector<int64_t> &shape) {
  size_t shardsRank = shards.front().box.offsets.size();
  if (shape.size() != shardsRank)
    return "Rank of tensor is " + std::to_string(shape.size()) +
           ", but shards rank is " + std::to_string(shardsRank);
  int64_t totalShardVolume = 0;
  for (const Block &shard : shards) {
    int64_t shardVolume = 1;
    for (size_t d = 0; d < shard.box.sizes.size(); ++d) {
      shardVolume *= shard.box.sizes[d];
      if (shard.box.offsets[d] + shard.box.sizes[d] > shape[d])
        return "Shard offset " + std::to_string(shard.box.offsets[d]) +
               " and length " + std::to_string(shard.box.sizes[d]) +
               " exceeds tensor dim: " + std::to_string(shape[d]);
    }
    totalShardVolume += shardVolume;
  }
  int64_t tensorVolume = 1;
  for (int64_t s : shape)
    tensorVolume *= s;
  if (totalShardVolume != tensorVolume)
    return "Total volume of shards: " + std::to_string(totalShardVolume) +
           " does not match tensor volume: " + std::to_string(tensorVolume);
  return "";
}

} // namespace

std::string pytorchPairwiseCheck(const std::vector<int64_t> &shape,
                                 const std::vector<Block> &blocks) {
  if (blocks.empty())
    return "Empty shard list provided";
  // EnumerableShardingSpec validates on construction, build_metadata checks
  // the tensor.
  std::string error = validateNonOverlapping(blocks);
  if (!error.empty())
    return error;
  return checkTensor(blocks, shape);
}

} // namespace bench
} // namespace shardc
