//===- Infer.h - Recognizing specs from explicit blocks ---------*- C++ -*-===//

#ifndef SHARDC_LAYOUT_INFER_H
#define SHARDC_LAYOUT_INFER_H

#include "shardc/Layout/Mesh.h"

namespace shardc {
namespace layout {

/// A chunk spec recognized from blocks: the dim and the placements in chunk
/// order.
struct InferredChunk {
  int64_t dim = 0;
  std::vector<Device> placements;
};

/// PyTorch's _infer_sharding_spec_from_shards_metadata: the blocks form a
/// chunk spec when exactly one dim carries non-zero offsets and the sorted
/// sizes and offsets along it equal torch.chunk's; the placements are then
/// ordered by offset. nullopt when PyTorch would keep an enumerable spec, and
/// also where PyTorch's inference would move elements: the chunk blocks of
/// `shape` under the spec found must be exactly the non-empty `blocks`
/// (PyTorch checks the chunks of the sum of the sizes along the dim).
std::optional<InferredChunk> inferChunkSpec(const std::vector<int64_t> &shape,
                                            const std::vector<Block> &blocks);

/// Mesh placements recognized from blocks.
struct InferredMesh {
  Mesh mesh;
  std::vector<Placement> placements;
  Device::Kind kind = Device::Kind::CPU;
};

/// Recognizes blocks that are exactly the device blocks of Shard placements
/// on a mesh: a grid where each cut dim is chunked as torch.chunk chunks it
/// (one mesh axis per cut dim, in dim order), every block owned by a
/// distinct rank of the same device kind with no device index. Empty blocks
/// are not recognized. nullopt otherwise.
std::optional<InferredMesh>
inferMeshPlacements(const std::vector<int64_t> &shape,
                    const std::vector<Block> &blocks);

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_INFER_H
