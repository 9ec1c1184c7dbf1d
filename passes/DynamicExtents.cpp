//===- DynamicExtents.cpp - Chunks of run-time extents in IR --------------===//

#include "DynamicExtents.h"

#include "shardc/Planning/ShardPlanner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace shardc;

std::pair<Value, Value> shardc::buildMeshChunk(OpBuilder &b, Location loc,
                                               Value extent,
                                               ArrayRef<int64_t> counts,
                                               ArrayRef<Value> indices) {
  assert(counts.size() == indices.size() && "one index per cutting axis");
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value offset = zero, size = extent;
  for (auto [count, index] : llvm::zip_equal(counts, indices)) {
    // torch.chunk: pieces of ceil(size / count); this one at index * split,
    // holding what is left there, at most a split.
    Value k = arith::ConstantIndexOp::create(b, loc, count);
    Value split = arith::CeilDivUIOp::create(b, loc, size, k);
    Value at = arith::MulIOp::create(b, loc, index, split);
    Value left = arith::SubIOp::create(b, loc, size, at);
    Value held = arith::MaxSIOp::create(
        b, loc, zero, arith::MinSIOp::create(b, loc, split, left));
    // An empty piece sits at the dim's end (DTensor's offsets).
    Value empty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, held, zero);
    offset = arith::SelectOp::create(b, loc, empty, extent,
                                     arith::AddIOp::create(b, loc, offset, at));
    size = held;
  }
  return {offset, size};
}

Value shardc::buildExtentFromBlocks(OpBuilder &b, Location loc, Value local,
                                    ShardedTensorType type, int64_t d,
                                    SmallVectorImpl<Operation *> *made) {
  auto spec = cast<PlacementsSpecAttr>(type.getSpec());
  const DimCut cut = dynamicDimCuts(type)[d];
  assert(cut.cuts() && "the extent of a whole dim is its block's");
  // One i64 per rank, partial sums on the cutting axes.
  std::vector<layout::Placement> partial(spec.getPlacements().size(),
                                         layout::Placement::replicate());
  for (int64_t axis : cut.axes)
    partial[axis] = layout::Placement::partial(layout::Placement::Reduce::Sum);
  std::vector<layout::Placement> replicated(spec.getPlacements().size(),
                                            layout::Placement::replicate());
  MLIRContext *ctx = b.getContext();
  auto one = [&](const std::vector<layout::Placement> &placements) {
    return ShardedTensorType::get(
        ctx, {1}, b.getI64Type(),
        PlacementsSpecAttr::get(ctx, spec.getMesh(), placements));
  };
  auto tensorType = RankedTensorType::get({1}, b.getI64Type());
  // Every op built here, for `made`.
  struct Recorder : OpBuilder::Listener {
    SmallVectorImpl<Operation *> *made;
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      if (made)
        made->push_back(op);
    }
  } recorder;
  recorder.made = made;
  OpBuilder::Listener *previous = b.getListener();
  b.setListener(&recorder);
  llvm::scope_exit restore([&] { b.setListener(previous); });
  Value held = tensor::DimOp::create(b, loc, local, d);
  Value element = arith::IndexCastOp::create(b, loc, b.getI64Type(), held);
  Value sizes = tensor::FromElementsOp::create(b, loc, tensorType, element);
  Value sum = SpmdAllReduceOp::create(
      b, loc, tensorType, sizes, ValueRange{}, ArrayRef<int64_t>(cut.axes),
      Reduction::Sum, one(partial), one(replicated));
  sum.getDefiningOp()->setAttr(planning::kExtentSumAttr, b.getUnitAttr());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value extent = tensor::ExtractOp::create(b, loc, sum, ValueRange{zero});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), extent);
}
