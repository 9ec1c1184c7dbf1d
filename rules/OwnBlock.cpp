//===- OwnBlock.cpp - This rank's block of a value every rank holds -------===//
//
// sliceOwnBlock (shardc/Rules/TensorCast.h): what a constant's partition
// makes of the whole constant. A strided layout (_S(d, G): heads in
// [B*H]) gives a rank rows of G groups of the dim, laid one after the
// other in its local tensor, at no one offset: each of the rank's boxes is
// sliced from the whole value and inserted at its place in the local
// tensor, the boxes' offsets and sizes read by rank.
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/TensorCast.h"

#include "shardc/Layout/Mesh.h"

#include <map>

using namespace mlir;
using namespace shardc;

Value shardc::sliceOwnBlock(OpBuilder &b, Location loc, Operation *inside,
                            Value whole, ShardedTensorType global,
                            PartitionContext &context) {
  RankedTensorType local = getLocalType(global);
  const int64_t rank = local.getRank();
  SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
  auto spec = dyn_cast<PlacementsSpecAttr>(global.getSpec());
  std::vector<layout::Placement> placements;
  if (spec)
    placements.assign(spec.getPlacements().begin(), spec.getPlacements().end());
  if (!spec || !layout::hasStrided(placements))
    return tensor::ExtractSliceOp::create(
        b, loc, local, whole, context.localOffsets(b, loc, inside, global),
        context.localSizes(b, loc, inside, global), ones);
  // The pieces are read from a copy of a constant: the caller replaces the
  // constant's uses by the block, all but the last op made here.
  if (Operation *def = whole.getDefiningOp();
      def && def->getNumOperands() == 0 && def->getNumResults() == 1 &&
      def->getNumRegions() == 0)
    whole = b.clone(*def)->getResult(0);
  // Each rank's rows per dim (meshRows), by rank.
  const layout::Mesh &mesh = spec.getMesh().getMesh();
  const std::vector<int64_t> shape = global.getLayoutShape();
  std::map<int64_t, std::vector<std::vector<layout::Chunk>>> rowsOf;
  std::vector<std::vector<int64_t>> coords = layout::meshCoordinates(mesh);
  for (size_t linear = 0; linear < coords.size(); ++linear)
    rowsOf[mesh.deviceAt(static_cast<int64_t>(linear))] =
        layout::meshRows(shape, mesh, placements, coords[linear]);
  const int64_t ranks = rowsOf.empty() ? 0 : rowsOf.rbegin()->first + 1;
  // Per dim, the most intervals any rank holds (fewer: empty ones after).
  std::vector<size_t> counts(rank, 1);
  for (const auto &[r, rows] : rowsOf)
    for (int64_t d = 0; d < rank; ++d)
      counts[d] = std::max(counts[d], rows[d].size());
  Value out = tensor::EmptyOp::create(
      b, loc, context.localSizes(b, loc, inside, global),
      global.getElementType());
  out = castTo(b, loc, out, local);
  // Every box: one interval per dim, in the local tensor's row-major order.
  std::vector<size_t> pick(rank, 0);
  while (true) {
    SmallVector<OpFoldResult> offsets, sizes, at;
    for (int64_t d = 0; d < rank; ++d) {
      std::vector<int64_t> offset(ranks, 0), size(ranks, 0), before(ranks, 0);
      for (const auto &[r, rows] : rowsOf) {
        for (size_t k = 0; k < pick[d] && k < rows[d].size(); ++k)
          before[r] += rows[d][k].size;
        if (pick[d] < rows[d].size()) {
          offset[r] = rows[d][pick[d]].offset;
          size[r] = rows[d][pick[d]].size;
        }
      }
      offsets.push_back(context.perRankIndex(b, loc, inside, offset));
      sizes.push_back(context.perRankIndex(b, loc, inside, size));
      at.push_back(context.perRankIndex(b, loc, inside, before));
    }
    Value piece =
        tensor::ExtractSliceOp::create(b, loc, whole, offsets, sizes, ones);
    out = tensor::InsertSliceOp::create(b, loc, piece, out, at, sizes, ones);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++pick[d] < counts[d])
        break;
      pick[d] = 0;
    }
    if (d < 0)
      break;
  }
  return out;
}
