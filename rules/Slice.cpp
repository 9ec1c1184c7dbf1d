//===- Slice.cpp - One rule for every slice
//--------------------------------===//
//
// shardc/Rules/Slice.h: the rule tensor.extract_slice and tosa.slice share,
// and where each rank's block holds a part of such a slice.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Slice.h"

#include "shardc/Rules/IndexMath.h"
#include "shardc/Rules/Payload.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace shardc;

ShardingRule shardc::sliceRule(Operation *op, RankedTensorType source,
                               RankedTensorType result,
                               ArrayRef<int64_t> offsets,
                               ArrayRef<int64_t> sizes,
                               ArrayRef<int64_t> strides,
                               const llvm::SmallBitVector &dropped) {
  ShardingRule rule;
  std::vector<int64_t> resultDims;
  for (int64_t size : result.getShape()) {
    resultDims.push_back(static_cast<int64_t>(rule.loops.size()));
    rule.loops.push_back({size, false, {}});
  }
  std::vector<int64_t> sourceDims;
  int64_t r = 0;
  for (int64_t d = 0; d < source.getRank(); ++d) {
    if (dropped.test(d)) {
      sourceDims.push_back(-1);
      continue;
    }
    const bool whole =
        offsets[d] == 0 && sizes[d] == source.getDimSize(d) && strides[d] == 1;
    sourceDims.push_back(whole ? r : -1);
    ++r;
  }
  rule.operands.push_back(sourceDims);
  for (size_t i = 1; i < op->getNumOperands(); ++i)
    rule.operands.push_back({});
  // A sliced dim is the window of its result dim's loop: cut, each rank
  // slices what its block holds and the planner moves the rest. Not in a
  // slice placed at run time (an offset, or a size read from data, that
  // only the run time knows): which blocks hold its parts is not known.
  const bool runTime = llvm::is_contained(offsets, ShapedType::kDynamic);
  std::vector<int64_t> windows(source.getRank(), -1);
  r = 0;
  for (int64_t d = 0; d < source.getRank(); ++d) {
    if (dropped.test(d))
      continue;
    if (sourceDims[d] < 0 && !runTime)
      windows[d] = r;
    ++r;
  }
  rule.windows.push_back(windows);
  rule.results.push_back(resultDims);
  rule.combiners.push_back(std::nullopt);
  rule.inits.push_back(-1);
  // Each element of the result is one of the source's, moved as it is:
  // linear in the source (P(sum) parts sliced are the slice's parts).
  if (summable(source))
    rule.linear = {{0}};
  return rule;
}

SliceGeometry SliceGeometry::of(tensor::ExtractSliceOp slice) {
  SliceGeometry g;
  g.offsets = *getConstantIntValues(slice.getMixedOffsets());
  g.strides = *getConstantIntValues(slice.getMixedStrides());
  g.sizes.assign(slice.getStaticSizes().begin(), slice.getStaticSizes().end());
  g.dropped = slice.getDroppedDims();
  return g;
}

std::optional<SlicePart> shardc::slicePartOf(const SliceGeometry &slice,
                                             const layout::Box &block) {
  SlicePart part;
  bool holdsDropped = true;
  for (size_t d = 0; d < slice.sizes.size(); ++d) {
    const int64_t o = slice.offsets[d], st = slice.strides[d],
                  n = slice.sizes[d];
    const int64_t s0 = block.offsets[d];
    const int64_t s1 = s0 + block.sizes[d];
    auto [k0, k1] = stepsWithin(o, st, n, s0, s1);
    part.inBlock.push_back(k1 > k0 ? o + st * k0 - s0 : 0);
    part.first.push_back(k0);
    part.end.push_back(k1);
    if (!slice.dropped.test(d)) {
      part.box.offsets.push_back(k0);
      part.box.sizes.push_back(k1 - k0);
    } else if (k1 == k0) {
      holdsDropped = false;
    }
  }
  // A block without the dropped index holds nothing of the slice.
  if (!holdsDropped)
    part.box.sizes.assign(part.box.sizes.size(), 0);
  return part;
}

ShardingSpecAttrInterface
shardc::slicePartsLayout(MLIRContext *ctx, ArrayRef<int64_t> sourceShape,
                         const SliceGeometry &slice,
                         ShardingSpecAttrInterface layout) {
  // Partial values' blocks are parts to sum, not copies: their slices are
  // no layout of the slice's elements (the parts are read as the loops
  // give them, ShardingRule::linear).
  if (auto mesh = dyn_cast_or_null<PlacementsSpecAttr>(layout))
    if (mesh != withoutPartial(mesh))
      return nullptr;
  std::vector<layout::Block> blocks;
  if (!layout || failed(layout.getDeviceBlocks(
                     sourceShape, [] { return InFlightDiagnostic(); }, blocks)))
    return nullptr;
  SmallVector<BlockAttr> parts;
  for (const layout::Block &block : blocks) {
    if (!block.placement.hasRank())
      return nullptr;
    std::optional<SlicePart> part = slicePartOf(slice, block.box);
    if (!part)
      return nullptr;
    // Each rank reads its part of a dim the slice drops where its block
    // is: a block holding elements but not the dropped index would have
    // nothing to read there (the source is moved instead).
    for (int d : slice.dropped.set_bits())
      if (!block.box.empty() && part->end[d] == part->first[d])
        return nullptr;
    if (part->empty())
      continue;
    parts.push_back(BlockAttr::get(
        ctx, part->box.offsets, part->box.sizes,
        DeviceAttr::get(ctx, layout::Device{block.placement.rank,
                                            block.placement.kind, -1})));
  }
  if (parts.empty())
    return nullptr;
  return EnumerableSpecAttr::get(ctx, parts);
}
