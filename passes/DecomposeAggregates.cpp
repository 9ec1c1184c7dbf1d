//===- DecomposeAggregates.cpp - linalg.softmax as linalg ops
//--------------===//
//
// -shard-decompose-aggregates: every op of linalg's AggregatedOpInterface
// (linalg.softmax) replaced by the ops of its own decomposition, so that
// linalg-to-loops can lower it; and every tensor.gather (which nothing
// upstream bufferizes) by a linalg.generic over its result that reads each
// element's coordinates from the indices and the source there; and every
// linalg.pack and linalg.unpack by the pad, reshape and transpose it stands
// for (upstream's lowerPack, lowerUnPack); and every tensor.bitcast by the
// elementwise linalg.generic of arith.bitcast it is. Run after
// -shard-spmd-partition: the op is sharded as one (its rule), then
// decomposed on each rank's blocks.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDDECOMPOSEAGGREGATES
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;

namespace {

/// `gather` as a linalg.generic over its result: the element at (batch...,
/// dims...) reads its coordinates along the gathered dims from the indices
/// at (batch..., k) and the source at those coordinates (and at its own
/// index along the other dims).
void decomposeGather(tensor::GatherOp gather, RewriterBase &rewriter) {
  Location loc = gather.getLoc();
  Value source = gather.getSource(), indices = gather.getIndices();
  auto sourceType = cast<RankedTensorType>(source.getType());
  auto indicesType = cast<RankedTensorType>(indices.getType());
  auto resultType = cast<RankedTensorType>(gather.getResult().getType());
  ArrayRef<int64_t> gathered = gather.getGatherDims();
  const int64_t batch = indicesType.getRank() - 1;
  const int64_t sourceRank = sourceType.getRank();
  const bool keepsGathered = resultType.getRank() == batch + sourceRank;
  rewriter.setInsertionPoint(gather);
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < batch; ++d)
    sizes.push_back(tensor::getMixedSize(rewriter, loc, indices, d));
  for (int64_t d = 0; d < sourceRank; ++d) {
    if (!llvm::is_contained(gathered, d))
      sizes.push_back(tensor::getMixedSize(rewriter, loc, source, d));
    else if (keepsGathered)
      sizes.push_back(rewriter.getIndexAttr(1));
  }
  Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                       resultType.getElementType());
  const int64_t rank = resultType.getRank();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{
          AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location at, ValueRange) {
        SmallVector<Value> at0;
        for (int64_t d = 0; d < batch; ++d)
          at0.push_back(linalg::IndexOp::create(b, at, d));
        SmallVector<Value> coords(sourceRank);
        for (auto [k, d] : llvm::enumerate(gathered)) {
          SmallVector<Value> where = at0;
          where.push_back(arith::ConstantIndexOp::create(b, at, k));
          Value c = tensor::ExtractOp::create(b, at, indices, where);
          if (!c.getType().isIndex())
            c = arith::IndexCastOp::create(b, at, b.getIndexType(), c);
          coords[d] = c;
        }
        int64_t r = batch;
        for (int64_t d = 0; d < sourceRank; ++d) {
          if (!llvm::is_contained(gathered, d))
            coords[d] = linalg::IndexOp::create(b, at, r++);
          else if (keepsGathered)
            ++r;
        }
        Value element = tensor::ExtractOp::create(b, at, source, coords);
        linalg::YieldOp::create(b, at, element);
      });
  rewriter.replaceOp(gather, generic.getResults());
}

/// `bitcast` (of ranked tensors) as a linalg.generic reinterpreting each
/// element where it is (arith.bitcast), which bufferization takes.
void decomposeBitcast(tensor::BitcastOp bitcast, RewriterBase &rewriter) {
  Location loc = bitcast.getLoc();
  auto from = cast<RankedTensorType>(bitcast.getOperand().getType());
  auto to = cast<RankedTensorType>(bitcast.getType());
  rewriter.setInsertionPoint(bitcast);
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, bitcast.getOperand());
  for (int64_t d = 0; d < to.getRank(); ++d)
    if (!to.isDynamicDim(d))
      sizes[d] = rewriter.getIndexAttr(to.getDimSize(d));
  Value init =
      tensor::EmptyOp::create(rewriter, loc, sizes, to.getElementType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(from.getRank(), rewriter.getContext());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, init.getType(), ValueRange{bitcast.getOperand()},
      ValueRange{init}, ArrayRef<AffineMap>{identity, identity},
      SmallVector<utils::IteratorType>(from.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &b, Location at, ValueRange args) {
        linalg::YieldOp::create(b, at,
                                ValueRange{arith::BitcastOp::create(
                                    b, at, to.getElementType(), args[0])});
      });
  Value result = generic.getResult(0);
  if (result.getType() != to)
    result = tensor::CastOp::create(rewriter, loc, to, result);
  rewriter.replaceOp(bitcast, result);
}

struct DecomposeAggregatesPass
    : shardc::impl::ShardDecomposeAggregatesBase<DecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    // Upstream's decompositions build float arithmetic on tensors
    // (softmax: max's identity, exp, division): an integer softmax crashed
    // it (no float identity) and a memref one left invalid IR.
    auto unfit = [](Type t) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      return !tensor || !isa<FloatType>(tensor.getElementType());
    };
    for (linalg::AggregatedOpInterface op : aggregates)
      if (llvm::any_of(op->getOperandTypes(), unfit) ||
          llvm::any_of(op->getResultTypes(), unfit) ||
          op->getNumResults() == 0) {
        op->emitOpError() << "could not be decomposed into linalg ops: its "
                             "operands and results must be ranked tensors "
                             "of floats";
        return signalPassFailure();
      }
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
      if (failed(parts)) {
        op->emitOpError() << "could not be decomposed into linalg ops";
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *parts);
    }
    SmallVector<tensor::GatherOp> gathers;
    getOperation().walk([&](tensor::GatherOp op) { gathers.push_back(op); });
    for (tensor::GatherOp gather : gathers)
      decomposeGather(gather, rewriter);
    // tensor.bitcast, which no bufferization takes: as the elementwise
    // linalg.generic it is (its rule is elementwise: each rank's block).
    SmallVector<tensor::BitcastOp> bitcasts;
    getOperation().walk([&](tensor::BitcastOp op) {
      if (isa<RankedTensorType>(op.getOperand().getType()) &&
          isa<RankedTensorType>(op.getType()))
        bitcasts.push_back(op);
    });
    for (tensor::BitcastOp bitcast : bitcasts) {
      // arith.bitcast takes signless integers and floats only.
      auto plain = [](Type t) {
        return cast<RankedTensorType>(t)
            .getElementType()
            .isSignlessIntOrFloat();
      };
      if (!plain(bitcast.getOperand().getType()) || !plain(bitcast.getType())) {
        bitcast->emitOpError()
            << "could not be lowered: its element types must be signless "
               "integers or floats (arith.bitcast's), got "
            << cast<RankedTensorType>(bitcast.getOperand().getType())
                   .getElementType()
            << " to "
            << cast<RankedTensorType>(bitcast.getType()).getElementType();
        return signalPassFailure();
      }
    }
    for (tensor::BitcastOp bitcast : bitcasts)
      decomposeBitcast(bitcast, rewriter);
    // linalg.pack and linalg.unpack (IREE's and upstream's mmt4d data
    // tiling), which no bufferization takes: as the pad, reshape and
    // transpose they stand for (upstream's lowerPack and lowerUnPack),
    // where it stopped at "op was not bufferized". An unpack whose outer
    // dims are all 1 (a rank's block where a dim it does not tile is cut
    // one per rank) by upstream's pattern for that case: lowerUnPack's
    // rank-reducing slice there reads the tile in the wrong order when a
    // dim it does not tile comes after a tiled one ("slice along dimension
    // 1 runs out-of-bounds").
    SmallVector<Operation *> packs;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        packs.push_back(op);
    });
    for (Operation *op : packs) {
      if (auto unpack = dyn_cast<linalg::UnPackOp>(op)) {
        ArrayRef<int64_t> outer = unpack.getSourceType().getShape().take_front(
            unpack.getDestType().getRank());
        if (llvm::all_of(outer, [](int64_t size) { return size == 1; })) {
          PatternRewriter unitRewriter(op->getContext());
          unitRewriter.setInsertionPoint(op);
          linalg::DecomposeOuterUnitDimsUnPackOpPattern unit(op->getContext());
          if (succeeded(unit.matchAndRewrite(unpack, unitRewriter)))
            continue;
        }
      }
      rewriter.setInsertionPoint(op);
      const bool lowered =
          isa<linalg::PackOp>(op)
              ? succeeded(linalg::lowerPack(rewriter, cast<linalg::PackOp>(op)))
              : succeeded(
                    linalg::lowerUnPack(rewriter, cast<linalg::UnPackOp>(op)));
      if (!lowered) {
        op->emitOpError() << "could not be lowered to a pad, a reshape and a "
                             "transpose (upstream's lowering refuses it: "
                             "tiles of run-time size, say)";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
