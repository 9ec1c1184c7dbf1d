//===- InferChunkSpec.cpp - shard-infer-chunk-spec ------------------------===//
//
// Enumerable specs -> chunk specs where PyTorch would infer them; optionally
// grids of blocks <-> Shard placements on a mesh. The recognition itself is
// the layout library's (layout/Infer.cpp); this pass rewrites the types.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Layout/Infer.h"
#include "shardc/Passes/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDINFERCHUNKSPEC
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

SmallVector<DeviceAttr> deviceAttrs(MLIRContext *ctx,
                                    ArrayRef<layout::Device> devices) {
  SmallVector<DeviceAttr> attrs;
  for (const layout::Device &d : devices)
    attrs.push_back(DeviceAttr::get(ctx, d));
  return attrs;
}

/// The spec PyTorch (and, with `blocksToMesh`, the mesh recognizer) infers
/// for an enumerable spec; null to keep it.
ShardingSpecAttrInterface inferFromBlocks(ShardedTensorType type,
                                          EnumerableSpecAttr spec,
                                          bool blocksToMesh) {
  MLIRContext *ctx = type.getContext();
  std::vector<layout::Block> blocks = type.getBlocks();
  std::vector<int64_t> shape = type.getLayoutShape();
  if (std::optional<layout::InferredChunk> chunk =
          layout::inferChunkSpec(shape, blocks))
    return ChunkSpecAttr::get(ctx, chunk->dim,
                              deviceAttrs(ctx, chunk->placements));
  if (!blocksToMesh)
    return {};
  std::optional<layout::InferredMesh> inferred =
      layout::inferMeshPlacements(shape, blocks);
  if (!inferred)
    return {};
  auto mesh = MeshAttr::get(ctx, inferred->mesh.shape, inferred->mesh.devices,
                            {}, inferred->kind);
  return PlacementsSpecAttr::get(ctx, mesh, inferred->placements);
}

/// The explicit blocks of Shard-only placements; null to keep the spec.
ShardingSpecAttrInterface blocksFromMesh(ShardedTensorType type,
                                         PlacementsSpecAttr spec) {
  for (const layout::Placement &p : spec.getPlacements())
    if (p.kind != layout::Placement::Kind::Shard)
      return {}; // replicas or partial values have no explicit blocks
  MLIRContext *ctx = type.getContext();
  SmallVector<BlockAttr> blocks;
  for (const layout::Block &b : type.getDeviceBlocks())
    blocks.push_back(BlockAttr::get(ctx, b.box.offsets, b.box.sizes,
                                    DeviceAttr::get(ctx, b.placement)));
  return EnumerableSpecAttr::get(ctx, blocks);
}

struct InferChunkSpecPass
    : shardc::impl::ShardInferChunkSpecBase<InferChunkSpecPass> {
  using ShardInferChunkSpecBase::ShardInferChunkSpecBase;

  void runOnOperation() override {
    if (meshToBlocks && blocksToMesh) {
      emitError(getOperation().getLoc())
          << "-shard-infer-chunk-spec: mesh-to-blocks and blocks-to-mesh "
             "ask for opposite rewrites; pass one";
      return signalPassFailure();
    }
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](ShardedTensorType type) -> std::optional<Type> {
      ShardingSpecAttrInterface spec;
      if (meshToBlocks) {
        // Explicit blocks have sizes: a dynamic dim keeps its mesh layout.
        auto placements = dyn_cast<PlacementsSpecAttr>(type.getSpec());
        if (placements && type.hasStaticShape())
          spec = blocksFromMesh(type, placements);
      } else if (auto enumerable =
                     dyn_cast<EnumerableSpecAttr>(type.getSpec())) {
        spec = inferFromBlocks(type, enumerable, blocksToMesh);
      }
      if (!spec)
        return std::nullopt;
      return ShardedTensorType::get(type.getContext(), type.getDims(),
                                    type.getElementType(), spec);
    });
    replacer.recursivelyReplaceElementsIn(getOperation(),
                                          /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }
};

} // namespace
