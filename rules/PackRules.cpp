//===- PackRules.cpp - Rules of linalg.pack and linalg.unpack -------------===//
//
// linalg.pack (data tiling, as IREE's encodings materialize it) lays a
// tensor out in tiles: each dim of inner_dims_pos is split into outer tiles
// of inner_tiles elements, the tile dims last, the outer dims permuted by
// outer_dims_perm; linalg.unpack undoes it. One loop per packed dim. A dim
// not tiled is the same dim on both sides (its packed outer dim): its loop
// indexes both, cut alike (a batch dim stays where it is). A tiled dim's
// elements interleave outer and tile positions (and the last tile may be
// padded): its unpacked dim is read whole and its two packed loops are
// not cut. The op on each rank's blocks is the same op (the default
// hook): every tiled dim whole, every other dim its block.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace shardc;

namespace {

/// The rule of a pack (`packing`: the result is packed) or unpack between
/// `unpacked` and `packed`, the op's operands `source` and `dest` first.
template <typename OpT>
FailureOr<ShardingRule> relayoutRule(OpT op, RankedTensorType unpacked,
                                     RankedTensorType packed, bool packing) {
  const int64_t n = unpacked.getRank();
  ArrayRef<int64_t> tiled = op.getInnerDimsPos();
  SmallVector<int64_t> perm(op.getOuterDimsPerm());
  if (perm.empty())
    for (int64_t d = 0; d < n; ++d)
      perm.push_back(d);
  // Each loop's size where either side names it (a dynamic packed dim of
  // a static unpacked one: its size, or its tiles' count).
  ArrayRef<int64_t> tiles = op.getStaticInnerTiles();
  ShardingRule rule;
  for (int64_t d = 0; d < packed.getRank(); ++d) {
    ShardingRule::Loop loop;
    loop.size = packed.getDimSize(d);
    if (ShapedType::isDynamic(loop.size) && d < n) {
      const int64_t size = unpacked.getDimSize(perm[d]);
      auto tile = llvm::find(tiled, perm[d]);
      const int64_t t = tile == tiled.end() ? 1 : tiles[tile - tiled.begin()];
      if (!ShapedType::isDynamic(size) && !ShapedType::isDynamic(t) && t > 0)
        loop.size = (size + t - 1) / t;
    } else if (ShapedType::isDynamic(loop.size)) {
      loop.size = tiles[d - n];
    }
    rule.loops.push_back(loop);
  }
  std::vector<int64_t> unpackedDims(n, -1), packedDims;
  for (int64_t d = 0; d < packed.getRank(); ++d)
    packedDims.push_back(d);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t d = perm[j];
    auto tile = llvm::find(tiled, d);
    if (tile == tiled.end()) {
      unpackedDims[d] = j;
      continue;
    }
    const std::string why = "dim " + std::to_string(d) + " is " +
                            (packing ? "packed" : "unpacked") +
                            " in tiles, whose elements interleave outer "
                            "and tile positions";
    rule.loops[j].unshardable = why;
    rule.loops[n + (tile - tiled.begin())].unshardable = why;
  }
  const std::vector<int64_t> &sourceDims = packing ? unpackedDims : packedDims;
  const std::vector<int64_t> &resultDims = packing ? packedDims : unpackedDims;
  // The source, the dest, then scalars (a padding value, tile sizes).
  rule.operands.push_back(sourceDims);
  rule.operands.push_back(resultDims);
  rule.operands.resize(op->getNumOperands());
  rule.results.push_back(resultDims);
  rule.combiners.push_back(std::nullopt);
  rule.inits.push_back(1); // the dest, overwritten
  return rule;
}

struct PackRuleModel
    : ShardingRuleOpInterface::ExternalModel<PackRuleModel, linalg::PackOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (failed(checkRankedShapes(op)))
      return failure();
    auto pack = cast<linalg::PackOp>(op);
    return relayoutRule(pack, pack.getSourceType(), pack.getDestType(),
                        /*packing=*/true);
  }

  /// A dim not tiled (the others are not cut): the op on the blocks as
  /// they are, its dest's block sized by the dest's own rule.
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }
};

struct UnPackRuleModel
    : ShardingRuleOpInterface::ExternalModel<UnPackRuleModel,
                                             linalg::UnPackOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (failed(checkRankedShapes(op)))
      return failure();
    auto unpack = cast<linalg::UnPackOp>(op);
    return relayoutRule(unpack, unpack.getDestType(), unpack.getSourceType(),
                        /*packing=*/false);
  }

  /// As the pack's.
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }
};

} // namespace

void shardc::registerPackShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    linalg::PackOp::attachInterface<PackRuleModel>(*ctx);
    linalg::UnPackOp::attachInterface<UnPackRuleModel>(*ctx);
  });
}
