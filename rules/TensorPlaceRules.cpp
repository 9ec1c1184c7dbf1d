//===- TensorPlaceRules.cpp - Ops that place parts into a bigger tensor ---===//
//
// tensor.pad, tensor.insert_slice and tensor.concat (static strides and
// padding; offsets, sizes and dims of run-time size as each rule says): one
// parallel loop per result dim. A dim the op leaves
// as it is (not padded, inserted whole, not the concatenated dim) is indexed
// by its loop in every tensor, so those are cut alike and nothing moves; a
// dim the op places a part into is needed whole in the tensors placed
// (padded source, inserted source, concatenated operands), and each rank
// computes its own block of the result from them: the part of each placed
// tensor that falls in its block, at that block's local offset. Ranks whose
// block holds none of it place an empty part. Exact under torch.chunk's
// uneven blocks (every offset and size is this rank's, from its table where
// ranks differ).
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/ExtentOrigin.h"
#include "shardc/Rules/IndexMath.h"
#include "shardc/Rules/LoopSharding.h"
#include "shardc/Rules/Padding.h"
#include "shardc/Rules/Payload.h"
#include "shardc/Rules/Place.h"
#include "shardc/Rules/Reshape.h"
#include "shardc/Rules/TensorCast.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

using namespace mlir;
using namespace shardc;

LogicalResult shardc::checkPaddingValues(tensor::PadOp pad) {
  if (llvm::count_if(pad.getStaticLow(), ShapedType::isDynamic) ==
          static_cast<int64_t>(pad.getLow().size()) &&
      llvm::count_if(pad.getStaticHigh(), ShapedType::isDynamic) ==
          static_cast<int64_t>(pad.getHigh().size()))
    return success();
  return pad.emitOpError() << "names more dynamic paddings than it has values "
                              "(a static padding of -9223372036854775808 reads "
                              "as a dynamic one)";
}

namespace {

/// How one dim of a placed tensor lands in this rank's block [o, o + s) of
/// the result: the placed tensor's elements k = 0 .. count - 1 go to
/// `offset + k * stride` (`offset` a constant, or a value only the run time
/// knows). The part of them in the block: elements [first, first + size) of
/// the placed tensor, at `at` in the block.
struct Part {
  OpFoldResult first, size, at;
};

Part partInBlock(IndexMath &m, OpFoldResult offset, OpFoldResult n,
                 int64_t stride, OpFoldResult o, OpFoldResult s) {
  OpFoldResult zero = m.c(0);
  // The first k with offset + k * stride >= o, and the first past the block.
  OpFoldResult k0 = m.clamp(m.ceilDiv(m.sub(o, offset), stride), zero, n);
  OpFoldResult k1 =
      m.clamp(m.ceilDiv(m.sub(m.add(o, s), offset), stride), zero, n);
  OpFoldResult size = m.max(m.sub(k1, k0), zero);
  // An empty part goes anywhere in the block: kept within it.
  OpFoldResult at =
      m.clamp(m.sub(m.add(offset, m.mul(k0, stride)), o), zero, s);
  return {k0, size, at};
}

/// `part` (partInBlock's, of the whole source) made the part of the local
/// `held` elements from global index `origin` on: its first relative to
/// them, and no more than they hold. The same on a rank of the mesh, where
/// they hold the part (placedLayout); on a rank outside the mesh, whose
/// block of the result is a phantom of its local type's size and which
/// holds none of the source, nothing (before: a slice past the end).
void heldPart(IndexMath &m, OpFoldResult held, OpFoldResult origin,
              Part &part) {
  part.first = m.clamp(m.sub(part.first, origin), m.c(0), held);
  part.size = m.min(part.size, m.sub(held, part.first));
}

/// Inserts into `dest` (this rank's block of the result) the parts of the
/// local `placed` (of `placed`'s rank, the result's rank) given per dim:
/// nullopt for a dim cut alike (all of it, at 0), else how the dim lands.
struct DimPlacement {
  bool alike = true;
  int64_t offset = 0, count = 0, stride = 1;
  /// The result dim it lands in.
  int64_t resultDim = 0;
  /// Where the offset is a value only the run time knows (an
  /// insert_slice's at a loop's induction variable): that value (`offset`
  /// is then kDynamic). The placed tensor is whole along such a dim (its
  /// rule gives it no window); each rank places the part landing in its
  /// block, found at run time.
  Value runTimeOffset;
  /// Where the count is a value only the run time knows (an insert_slice's
  /// size of a dynamic dim it does not write whole): that value (`count` is
  /// then kDynamic). The placed tensor is whole along such a dim too.
  Value runTimeCount;

  OpFoldResult offsetIn(IndexMath &m) const {
    return runTimeOffset ? OpFoldResult(runTimeOffset) : m.c(offset);
  }
  OpFoldResult countIn(IndexMath &m) const {
    return runTimeCount ? OpFoldResult(runTimeCount) : m.c(count);
  }
};

Value placeInBlock(OpBuilder &b, Location loc, Value dest, Value placed,
                   ArrayRef<DimPlacement> dims, ArrayRef<OpFoldResult> o,
                   ArrayRef<OpFoldResult> s, ArrayRef<OpFoldResult> origin) {
  // A tensor without elements places nothing (and has no index to slice
  // at).
  if (llvm::is_contained(cast<RankedTensorType>(placed.getType()).getShape(),
                         0))
    return dest;
  IndexMath m(b, loc);
  SmallVector<OpFoldResult> first, sizes, at, strides, ones;
  for (auto [d, dim] : llvm::enumerate(dims)) {
    ones.push_back(m.c(1));
    if (dim.alike) {
      first.push_back(m.c(0));
      sizes.push_back(s[d]);
      at.push_back(m.c(0));
      strides.push_back(m.c(1));
      continue;
    }
    Part part =
        partInBlock(m, dim.offsetIn(m), dim.countIn(m), dim.stride, o[d], s[d]);
    heldPart(m, tensor::getMixedSize(b, loc, placed, d), origin[d], part);
    first.push_back(part.first);
    sizes.push_back(part.size);
    at.push_back(part.at);
    strides.push_back(m.c(dim.stride));
  }
  Value piece =
      tensor::ExtractSliceOp::create(b, loc, placed, first, sizes, ones);
  return tensor::InsertSliceOp::create(b, loc, piece, dest, at, sizes, strides);
}

/// The layout a tensor the op places (laid out as `have`, its dims landing
/// in the result as `dims` say, one per dim of it) is moved to before each
/// rank places its part into its block of `result`: `have` itself where
/// no dim the op places into is cut (or `have` is no mesh layout); else the
/// layout in which each rank holds exactly the elements that land in its
/// block of `result`, or whole along those dims where `result` has copies
/// on several ranks (the same elements twice: not a layout of blocks). The
/// one decision the partition hooks move by (readyToPlace) and the search
/// prices (layoutToPlace).
ShardedTensorType placedLayout(ShardedTensorType have,
                               ArrayRef<DimPlacement> dims,
                               ShardedTensorType result) {
  MLIRContext *ctx = have.getContext();
  PlacementsSpecAttr mesh = asMeshLayout(have.getSpec(), have.getDims());
  if (!mesh)
    return have;
  std::vector<layout::Placement> whole(mesh.getPlacements().begin(),
                                       mesh.getPlacements().end());
  bool cut = false;
  const int64_t rank = have.getRank();
  for (layout::Placement &p : whole) {
    const int64_t d = p.dim < 0 ? p.dim + rank : p.dim;
    if (p.kind == layout::Placement::Kind::Shard && !dims[d].alike) {
      p = layout::Placement::replicate();
      cut = true;
    }
  }
  if (!cut)
    return have;
  std::vector<layout::Block> blocks = result.getDeviceBlocks();
  std::map<int64_t, layout::Box> boxOf;
  bool copies = severalPerRank(result);
  for (const layout::Block &block : blocks)
    copies = copies || !boxOf.emplace(block.placement.rank, block.box).second;
  if (auto resultMesh = asMeshLayout(result.getSpec(), result.getDims())) {
    for (auto [axis, p] : llvm::enumerate(resultMesh.getPlacements()))
      if (p.kind != layout::Placement::Kind::Shard &&
          resultMesh.getMesh().getShape()[axis] > 1)
        copies = true;
  }
  if (copies)
    return ShardedTensorType::get(
        ctx, have.getDims(), have.getElementType(),
        PlacementsSpecAttr::get(ctx, mesh.getMesh(), whole));
  // Per rank: the elements of the placed tensor that land in its block.
  SmallVector<BlockAttr> parts;
  for (const layout::Block &block : blocks) {
    SmallVector<int64_t> offsets, sizes;
    for (auto [i, dim] : llvm::enumerate(dims)) {
      const int64_t o = block.box.offsets[dim.resultDim];
      const int64_t n = block.box.sizes[dim.resultDim];
      if (dim.alike) {
        offsets.push_back(o);
        sizes.push_back(n);
        continue;
      }
      if (dim.runTimeOffset || dim.runTimeCount) {
        // Whole along it (the rule gives it no window): each rank finds the
        // part landing in its block at run time.
        offsets.push_back(0);
        sizes.push_back(have.getDims()[i]);
        continue;
      }
      auto [k0, k1] = stepsWithin(dim.offset, dim.stride, dim.count, o, o + n);
      offsets.push_back(k0);
      sizes.push_back(k1 - k0);
    }
    parts.push_back(BlockAttr::get(
        ctx, offsets, sizes,
        DeviceAttr::get(ctx, layout::Device{block.placement.rank,
                                            block.placement.kind, -1})));
  }
  return ShardedTensorType::get(ctx, have.getDims(), have.getElementType(),
                                EnumerableSpecAttr::get(ctx, parts));
}

/// The local block `local` of a tensor the op places (`value`, whose dims
/// land in the result as `dims` say, one per dim of `value`), ready for
/// placeInBlock: moved by the planner to placedLayout's layout where its
/// own cuts a dim the op places into (a window the rule let stay cut,
/// operandLayoutUnder). `origin` gets, per dim, the global index of the
/// local value's first element along a placed dim (0 elsewhere).
Value readyToPlace(OpBuilder &b, Location loc, Operation *op,
                   PartitionContext &context, Value value, Value local,
                   ArrayRef<DimPlacement> dims, ShardedTensorType result,
                   SmallVector<OpFoldResult> &origin) {
  origin.assign(dims.size(), b.getIndexAttr(0));
  ShardedTensorType have = context.globalOf(value);
  ShardedTensorType to = placedLayout(have, dims, result);
  if (to == have)
    return local;
  // Per-rank tables are indexed by rank: one entry per rank up to the
  // last; each rank's part starts at its block's offset along a placed dim.
  if (auto parts = dyn_cast<EnumerableSpecAttr>(to.getSpec())) {
    int64_t ranks = 0;
    for (BlockAttr part : parts.getBlocks())
      ranks = std::max(ranks, part.getPlacement().getRank() + 1);
    for (auto [d, dim] : llvm::enumerate(dims)) {
      if (dim.alike)
        continue;
      std::vector<int64_t> byRank(ranks, 0);
      for (BlockAttr part : parts.getBlocks())
        byRank[part.getPlacement().getRank()] = part.getOffsets()[d];
      origin[d] = context.perRankIndex(b, loc, op, byRank);
    }
  }
  return context.redistribute(b, loc, local, have, to);
}

/// layoutToPlace for operand `operand` of `op` (its types global, as the
/// search sees them) placed as `dims` say: placedLayout's spec, or null
/// where it is read as it is.
ShardingSpecAttrInterface layoutToPlaceOf(Operation *op, unsigned operand,
                                          ShardingSpecAttrInterface have,
                                          ShardingSpecAttrInterface result,
                                          ArrayRef<DimPlacement> dims) {
  auto type = dyn_cast<RankedTensorType>(op->getOperand(operand).getType());
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!have || !result || !type || !resultType || !type.hasStaticShape() ||
      !resultType.hasStaticShape() ||
      dims.size() != static_cast<size_t>(type.getRank()))
    return nullptr;
  MLIRContext *ctx = op->getContext();
  auto from = ShardedTensorType::getChecked([] { return InFlightDiagnostic(); },
                                            ctx, type.getShape(),
                                            type.getElementType(), have);
  auto to = ShardedTensorType::getChecked([] { return InFlightDiagnostic(); },
                                          ctx, resultType.getShape(),
                                          resultType.getElementType(), result);
  if (!from || !to)
    return nullptr;
  ShardedTensorType placed = placedLayout(from, dims, to);
  return placed == from ? nullptr : placed.getSpec();
}

/// An insert_slice's offsets and sizes (kDynamic where only the run time
/// knows one: its static sizes say which unit dims it drops) and strides,
/// when its strides are constants.
struct SliceConstants {
  SmallVector<int64_t> offsets, sizes, strides;
};
std::optional<SliceConstants> sliceConstants(tensor::InsertSliceOp op) {
  auto strides = getConstantIntValues(op.getMixedStrides());
  if (!strides)
    return std::nullopt;
  SmallVector<int64_t> offsets;
  for (OpFoldResult offset : op.getMixedOffsets())
    offsets.push_back(
        getConstantIntValue(offset).value_or(ShapedType::kDynamic));
  return SliceConstants{offsets, llvm::to_vector(op.getStaticSizes()),
                        *strides};
}

/// Whether the value `pad` yields depends on the index its region is given.
bool readsIndex(tensor::PadOp pad) {
  Block &body = pad.getRegion().front();
  llvm::SmallPtrSet<Value, 4> index(body.getArguments().begin(),
                                    body.getArguments().end());
  return dependsOn(body.getTerminator()->getOperand(0), body, index);
}

/// How a padded source (of global shape `sourceShape`, padded by `lows` and
/// `highs`) lands in its result: a dim not padded alike, a padded one at its
/// low padding.
SmallVector<DimPlacement> padDims(ArrayRef<int64_t> lows,
                                  ArrayRef<int64_t> highs,
                                  ArrayRef<int64_t> sourceShape) {
  SmallVector<DimPlacement> dims;
  for (int64_t d = 0; d < static_cast<int64_t>(sourceShape.size()); ++d)
    dims.push_back(
        {lows[d] == 0 && highs[d] == 0, lows[d], sourceShape[d], 1, d});
  return dims;
}

/// The extents of `global` (the op's result) at `b`'s insertion point: a
/// static dim's size; a dynamic one's, `from`'s at that dim
/// (PartitionContext::globalExtent: `from` has the result's extent there).
SmallVector<OpFoldResult> extentsFrom(OpBuilder &b, Location loc,
                                      PartitionContext &context,
                                      ShardedTensorType global, Value from) {
  SmallVector<OpFoldResult> extents;
  for (int64_t d = 0; d < global.getRank(); ++d)
    extents.push_back(global.isDynamicDim(d)
                          ? context.globalExtent(b, loc, from, d)
                          : OpFoldResult(b.getIndexAttr(global.getDims()[d])));
  return extents;
}

/// tensor.pad with static low and high padding and a padding value that
/// does not depend on the index.
struct PadRuleModel
    : ShardingRuleOpInterface::ExternalModel<PadRuleModel, tensor::PadOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto pad = cast<tensor::PadOp>(op);
    if (failed(checkPaddingValues(pad)))
      return failure();
    RankedTensorType source = pad.getSourceType();
    RankedTensorType result = pad.getResultType();
    auto low = getConstantIntValues(pad.getMixedLowPad());
    auto high = getConstantIntValues(pad.getMixedHighPad());
    if (failed(checkRankedShapes(op)))
      return failure();
    if (!low || !high)
      return op->emitOpError()
             << "has dynamic padding; sharding needs static padding";
    std::vector<bool> tensors(op->getNumOperands(), false);
    tensors[0] = true;
    ShardingRule rule = ShardingRule::elementwise(
        std::vector<int64_t>(result.getShape().begin(),
                             result.getShape().end()),
        tensors);
    // A padded dim is needed whole, or kept cut as a window of its loop
    // where the tensors' shapes are static (placedLayout lists each rank's
    // part at their extents). A dim of run-time size not padded (torch-mlir's
    // batch of a padded convolution's input) is a loop that may be cut; a
    // padded one (a padded conv1d over a run-time sequence) stays whole,
    // each rank padding it as the op does.
    const bool windowed = source.hasStaticShape() && result.hasStaticShape();
    rule.windows.assign(op->getNumOperands(), {});
    rule.windows[0].assign(source.getRank(), -1);
    for (int64_t d = 0; d < source.getRank(); ++d)
      if ((*low)[d] != 0 || (*high)[d] != 0) {
        rule.operands[0][d] = -1;
        if (windowed)
          rule.windows[0][d] = d;
        if (source.isDynamicDim(d))
          rule.loops[d].unshardable =
              "it pads dim " + std::to_string(d) + ", of run-time size";
      }
    // A padding value computed from the index would be computed from the
    // local index on a shard.
    if (readsIndex(pad))
      for (ShardingRule::Loop &loop : rule.loops)
        loop.unshardable = "its padding value depends on the index";
    return rule;
  }

  /// A dim of run-time size not padded is cut as the source is (its block
  /// the source's, whatever its size); a padded one is whole (the rule).
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  ShardingSpecAttrInterface
  layoutToPlace(Operation *op, unsigned operand, ShardingSpecAttrInterface have,
                ShardingSpecAttrInterface result) const {
    auto pad = cast<tensor::PadOp>(op);
    std::optional<SmallVector<int64_t>> lows =
        getConstantIntValues(pad.getMixedLowPad());
    std::optional<SmallVector<int64_t>> highs =
        getConstantIntValues(pad.getMixedHighPad());
    if (operand != 0 || !lows || !highs)
      return nullptr;
    return padLayoutToPlace(op, *lows, *highs, have, result);
  }

  /// Reads no rule: tosa.pad's hook hands it its own (TosaRules.cpp).
  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto pad = cast<tensor::PadOp>(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    ShardedTensorType global = context.globalOf(pad.getResult());
    IndexMath m(b, loc);
    SmallVector<int64_t> lows = *getConstantIntValues(pad.getMixedLowPad());
    SmallVector<int64_t> highs = *getConstantIntValues(pad.getMixedHighPad());
    // A dim of run-time size: the source's extent, and its padding where
    // padded (whole, the rule: the local source's extent).
    SmallVector<OpFoldResult> extents =
        extentsFrom(b, loc, context, global, pad.getSource());
    for (int64_t d = 0; d < global.getRank(); ++d)
      if (global.isDynamicDim(d) && (lows[d] != 0 || highs[d] != 0))
        extents[d] = m.add(extents[d], m.c(lows[d] + highs[d]));
    SmallVector<OpFoldResult> o =
        context.localOffsets(b, loc, op, global, extents);
    SmallVector<OpFoldResult> s =
        context.localSizes(b, loc, op, global, extents);
    // The source's global shape (its local block may be cut).
    ArrayRef<int64_t> sourceShape = context.globalOf(pad.getSource()).getDims();
    SmallVector<DimPlacement> dims = padDims(lows, highs, sourceShape);
    SmallVector<OpFoldResult> origin;
    Value source = readyToPlace(b, loc, op, context, pad.getSource(),
                                pad.getSource(), dims, global, origin);
    // Per dim: the source's part in this rank's block, and the padding
    // around it there.
    SmallVector<OpFoldResult> first, sizes, low, high, ones;
    for (int64_t d = 0; d < pad.getResultType().getRank(); ++d) {
      ones.push_back(m.c(1));
      if (dims[d].alike) {
        first.push_back(m.c(0));
        sizes.push_back(s[d]);
        low.push_back(m.c(0));
        high.push_back(m.c(0));
        continue;
      }
      // A padded dim of run-time size is whole here (the rule): the local
      // source's extent is the global one.
      OpFoldResult n = ShapedType::isDynamic(sourceShape[d])
                           ? tensor::getMixedSize(b, loc, source, d)
                           : m.c(sourceShape[d]);
      Part part = partInBlock(m, m.c(lows[d]), n, 1, o[d], s[d]);
      heldPart(m, tensor::getMixedSize(b, loc, source, d), origin[d], part);
      first.push_back(part.first);
      sizes.push_back(part.size);
      low.push_back(part.at);
      high.push_back(m.sub(m.sub(s[d], part.at), part.size));
    }
    Value piece = source;
    if (llvm::is_contained(sourceShape, 0)) {
      // No element of the source: this rank's block is all padding, after
      // the source's (empty) local block.
      for (int64_t d = 0; d < pad.getResultType().getRank(); ++d) {
        low[d] = m.c(0);
        high[d] = m.sub(s[d], tensor::getMixedSize(b, loc, piece, d));
      }
    } else {
      piece = tensor::ExtractSliceOp::create(b, loc, piece, first, sizes, ones);
    }
    auto local = tensor::PadOp::create(b, loc, Type(), piece, low, high,
                                       pad.getNofold());
    local.getRegion().takeBody(pad.getRegion());
    context.replace(pad.getResult(),
                    castTo(b, loc, local.getResult(), getLocalType(global)));
    pad.erase();
    return success();
  }
};

/// How an insert_slice's source lands in its dest: per dest dim, per
/// source dim (the dest's but those it drops), and the dims it drops, as
/// its rule (MLIR's getDroppedDims) drops them, from the source's global
/// shape `sourceShape` (its local block may be cut: its local type does
/// not say). computeRankReductionMask matches from the first dim instead:
/// inserting tensor<1xf32> into tensor<1x8xf32> at [0, 6] it dropped dest
/// dim 1 and took dim 0 as cut alike with the source.
struct InsertPlacement {
  SmallVector<DimPlacement> dims, sourceDims;
  llvm::SmallBitVector dropped;
};
InsertPlacement insertPlacement(tensor::InsertSliceOp insert,
                                ArrayRef<int64_t> sourceShape,
                                const ShardingRule *rule = nullptr) {
  RankedTensorType dest = insert.getDestType();
  SliceConstants slice = *sliceConstants(insert);
  InsertPlacement out;
  out.dropped = droppedDims(slice.sizes, sourceShape);
  for (int64_t d = 0, k = 0; d < dest.getRank(); ++d) {
    DimPlacement dim;
    dim.offset = slice.offsets[d];
    dim.count = slice.sizes[d];
    dim.stride = slice.strides[d];
    dim.resultDim = d;
    if (dim.offset == ShapedType::kDynamic)
      dim.runTimeOffset = cast<Value>(insert.getMixedOffsets()[d]);
    if (dim.count == ShapedType::kDynamic)
      dim.runTimeCount = cast<Value>(insert.getMixedSizes()[d]);
    // Written whole: at 0, stride 1, the dim's size (a dynamic dim's: a
    // size of its extent's origin, as torch-mlir writes a step of every
    // row of a [B?, S, H] buffer by tensor.dim of B). The partition reads
    // the rule's decision instead (its sizes' origins are rewritten by
    // then: a tensor.dim of a cut tensor, the local one's).
    if (rule)
      dim.alike = !out.dropped.test(d) && rule->operands[0][k++] >= 0;
    else
      dim.alike =
          !out.dropped.test(d) && dim.offset == 0 && dim.stride == 1 &&
          (dest.isDynamicDim(d)
               ? dim.runTimeCount && sizeOrigin(dim.runTimeCount) ==
                                         extentOrigin(insert.getDest(), d)
               : dim.count == dest.getDimSize(d));
    out.dims.push_back(dim);
    if (!out.dropped.test(d))
      out.sourceDims.push_back(dim);
  }
  return out;
}

/// tensor.insert_slice with static strides; an offset or a size only the
/// run time knows reads the source whole along its dim (no window), each
/// rank placing the part landing in its block; a dim written whole is cut
/// alike (a dynamic one's blocks are torch.chunk's of its run-time extent).
struct InsertSliceRuleModel
    : ShardingRuleOpInterface::ExternalModel<InsertSliceRuleModel,
                                             tensor::InsertSliceOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto insert = cast<tensor::InsertSliceOp>(op);
    RankedTensorType source = insert.getSourceType();
    RankedTensorType dest = insert.getDestType();
    if (failed(checkRankedShapes(op)))
      return failure();
    if (!sliceConstants(insert))
      return op->emitOpError() << "has dynamic strides; sharding needs "
                                  "static ones";
    std::vector<bool> tensors(op->getNumOperands(), false);
    tensors[0] = tensors[1] = true;
    ShardingRule rule = ShardingRule::elementwise(
        std::vector<int64_t>(dest.getShape().begin(), dest.getShape().end()),
        tensors);
    // The source's dims: those filling a dest dim whole are cut alike, the
    // others needed whole, or kept cut as a window of the dest's loop where
    // the part lands at a constant offset and count in tensors of static
    // shape (placedLayout lists each rank's part at their extents).
    const bool windowed = source.hasStaticShape() && dest.hasStaticShape();
    std::vector<int64_t> sourceDims, windows;
    for (const DimPlacement &dim :
         insertPlacement(insert, source.getShape()).sourceDims) {
      sourceDims.push_back(dim.alike ? dim.resultDim : -1);
      windows.push_back(dim.alike || dim.runTimeOffset || dim.runTimeCount ||
                                !windowed
                            ? -1
                            : dim.resultDim);
    }
    rule.operands[0] = sourceDims;
    rule.windows.assign(op->getNumOperands(), {});
    rule.windows[0] = windows;
    rule.inits.back() = 1;
    return rule;
  }

  /// A dim of run-time size is cut alike where written whole, else placed
  /// into by each rank at its block's run-time offset and size (the
  /// partition computes them from the dest's extent).
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }

  ShardingSpecAttrInterface
  layoutToPlace(Operation *op, unsigned operand, ShardingSpecAttrInterface have,
                ShardingSpecAttrInterface result) const {
    auto insert = cast<tensor::InsertSliceOp>(op);
    if (operand != 0 || !sliceConstants(insert) ||
        !insert.getSourceType().hasStaticShape() ||
        !insert.getDestType().hasStaticShape())
      return nullptr;
    return layoutToPlaceOf(
        op, operand, have, result,
        insertPlacement(insert, insert.getSourceType().getShape()).sourceDims);
  }

  LogicalResult partition(Operation *op, const ShardingRule &rule,
                          PartitionContext &context) const {
    auto insert = cast<tensor::InsertSliceOp>(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    ShardedTensorType global = context.globalOf(insert.getResult());
    // A dynamic dim's run-time extent: the dest's.
    SmallVector<OpFoldResult> extents =
        extentsFrom(b, loc, context, global, insert.getDest());
    SmallVector<OpFoldResult> o =
        context.localOffsets(b, loc, op, global, extents);
    SmallVector<OpFoldResult> s =
        context.localSizes(b, loc, op, global, extents);
    RankedTensorType dest = insert.getDestType();
    InsertPlacement placement = insertPlacement(
        insert, context.globalOf(insert.getSource()).getDims(), &rule);
    SmallVector<DimPlacement> &dims = placement.dims,
                              &sourceDims = placement.sourceDims;
    llvm::SmallBitVector &dropped = placement.dropped;
    SmallVector<OpFoldResult> sourceOrigin, origin;
    Value source =
        readyToPlace(b, loc, op, context, insert.getSource(),
                     insert.getSource(), sourceDims, global, sourceOrigin);
    for (int64_t d = 0, k = 0; d < dest.getRank(); ++d)
      origin.push_back(dropped.test(d) ? OpFoldResult(b.getIndexAttr(0))
                                       : sourceOrigin[k++]);
    // The source at the dest's rank (its dropped unit dims back).
    if (dropped.any()) {
      auto localSource = cast<RankedTensorType>(source.getType());
      SmallVector<int64_t> full;
      int64_t k = 0;
      for (int64_t d = 0; d < dest.getRank(); ++d)
        full.push_back(dropped.test(d) ? 1 : localSource.getDimSize(k++));
      source = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(full, localSource.getElementType()),
          source, groupsAround(dropped));
    }
    Value local =
        placeInBlock(b, loc, insert.getDest(), source, dims, o, s, origin);
    context.replace(insert.getResult(),
                    castTo(b, loc, local, getLocalType(global)));
    insert.erase();
    return success();
  }
};

/// How operand `i` of a concatenation along `axis` (the operands' global
/// shapes `shapes`) lands in its result: every dim alike but the axis, at
/// the operands' before it summed.
SmallVector<DimPlacement>
concatDims(int64_t axis, ArrayRef<SmallVector<int64_t>> shapes, size_t i) {
  int64_t start = 0;
  for (size_t k = 0; k < i; ++k)
    start += shapes[k][axis];
  const int64_t count = shapes[i][axis];
  SmallVector<DimPlacement> dims;
  for (int64_t d = 0; d < static_cast<int64_t>(shapes[i].size()); ++d)
    dims.push_back(
        {d != axis, d == axis ? start : 0, d == axis ? count : 0, 1, d});
  return dims;
}

/// Whether a tensor of `op` (an operand or its result) has a dim of
/// run-time size (`axis` only: along that dim).
bool hasDynamicDim(Operation *op, int64_t axis = -1) {
  auto dynamic = [&](Type type) {
    auto t = dyn_cast<RankedTensorType>(type);
    return t && (axis < 0 ? !t.hasStaticShape()
                          : axis < t.getRank() && t.isDynamicDim(axis));
  };
  return llvm::any_of(op->getOperandTypes(), dynamic) ||
         llvm::any_of(op->getResultTypes(), dynamic);
}

/// tensor.concat. Dims of run-time size are torch-mlir's (torch.cat of a
/// dynamic batch's features, a KV cache grown along its dynamic sequence):
/// concatRule says how they are cut.
struct ConcatRuleModel
    : ShardingRuleOpInterface::ExternalModel<ConcatRuleModel,
                                             tensor::ConcatOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (failed(checkRankedShapes(op)))
      return failure();
    return concatRule(
        op, static_cast<int64_t>(cast<tensor::ConcatOp>(op).getDim()));
  }

  /// A dim of run-time size other than the axis is cut alike in every
  /// tensor (its blocks are the operands' as they are); the axis, where
  /// dynamic, is whole (concatRule).
  bool cutsDynamicLoop(Operation *op, const ShardingRule &,
                       int64_t loop) const {
    return loop != static_cast<int64_t>(cast<tensor::ConcatOp>(op).getDim());
  }

  ShardingSpecAttrInterface
  layoutToPlace(Operation *op, unsigned operand, ShardingSpecAttrInterface have,
                ShardingSpecAttrInterface result) const {
    return concatLayoutToPlace(
        op, static_cast<int64_t>(cast<tensor::ConcatOp>(op).getDim()), operand,
        have, result);
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    auto concat = cast<tensor::ConcatOp>(op);
    OpBuilder b(op);
    Location loc = op->getLoc();
    ShardedTensorType global = context.globalOf(concat.getResult());
    const int64_t axis = static_cast<int64_t>(concat.getDim());
    // Along an axis of run-time size every tensor is whole (the rule):
    // each rank concatenates its blocks as they are. (The op's operands are
    // this rank's blocks by now: their global types say.)
    bool dynamicAxis = global.isDynamicDim(axis);
    for (Value operand : concat.getInputs())
      dynamicAxis |= context.globalOf(operand).isDynamicDim(axis);
    if (dynamicAxis) {
      Value local = tensor::ConcatOp::create(
          b, loc, axis, SmallVector<Value>(concat.getInputs()));
      context.replace(concat.getResult(),
                      castTo(b, loc, local, getLocalType(global)));
      concat.erase();
      return success();
    }
    // A dynamic dim elsewhere: its run-time extent, the first operand's
    // (the verifier has the operands agree on it).
    SmallVector<OpFoldResult> extents =
        extentsFrom(b, loc, context, global, concat.getInputs()[0]);
    SmallVector<OpFoldResult> o =
        context.localOffsets(b, loc, op, global, extents);
    SmallVector<OpFoldResult> s =
        context.localSizes(b, loc, op, global, extents);
    Value local = tensor::EmptyOp::create(b, loc, s, global.getElementType());
    SmallVector<SmallVector<int64_t>> shapes;
    for (Value operand : concat.getInputs())
      shapes.push_back(llvm::to_vector(context.globalOf(operand).getDims()));
    for (auto [i, operand] : llvm::enumerate(concat.getInputs())) {
      SmallVector<DimPlacement> dims = concatDims(axis, shapes, i);
      SmallVector<OpFoldResult> origin;
      Value placed = readyToPlace(b, loc, op, context, operand, operand, dims,
                                  global, origin);
      local = placeInBlock(b, loc, local, placed, dims, o, s, origin);
    }
    context.replace(concat.getResult(),
                    castTo(b, loc, local, getLocalType(global)));
    concat.erase();
    return success();
  }
};

} // namespace

ShardingRule shardc::concatRule(Operation *op, int64_t axis) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  ShardingRule rule = ShardingRule::elementwise(
      std::vector<int64_t>(result.getShape().begin(), result.getShape().end()),
      std::vector<bool>(op->getNumOperands(), true));
  // An operand is needed whole along the axis, or kept cut as a window of
  // the axis' loop; not where a dim has a run-time size (the parts each
  // rank's block takes would be listed at nominal extents).
  const bool windows = !hasDynamicDim(op);
  for (std::vector<int64_t> &dims : rule.operands) {
    dims[axis] = -1;
    std::vector<int64_t> window(dims.size(), -1);
    if (windows)
      window[axis] = axis;
    rule.windows.push_back(std::move(window));
  }
  // Operands of run-time extent along the axis land at offsets only the
  // run time knows: the axis stays whole, each rank concatenating its
  // blocks (the partition).
  if (hasDynamicDim(op, axis))
    rule.loops[axis].unshardable =
        "it concatenates operands of run-time extent along it";
  return rule;
}

ShardingSpecAttrInterface
shardc::concatLayoutToPlace(Operation *op, int64_t axis, unsigned operand,
                            ShardingSpecAttrInterface have,
                            ShardingSpecAttrInterface result) {
  if (operand >= op->getNumOperands())
    return nullptr;
  SmallVector<SmallVector<int64_t>> shapes;
  for (Value input : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !type.hasStaticShape() || axis < 0 || axis >= type.getRank())
      return nullptr;
    shapes.push_back(llvm::to_vector(type.getShape()));
  }
  return layoutToPlaceOf(op, operand, have, result,
                         concatDims(axis, shapes, operand));
}

ShardingSpecAttrInterface shardc::padLayoutToPlace(
    Operation *op, ArrayRef<int64_t> lows, ArrayRef<int64_t> highs,
    ShardingSpecAttrInterface have, ShardingSpecAttrInterface result) {
  auto source = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!source || !source.hasStaticShape() ||
      lows.size() != static_cast<size_t>(source.getRank()) ||
      highs.size() != lows.size())
    return nullptr;
  return layoutToPlaceOf(op, 0, have, result,
                         padDims(lows, highs, source.getShape()));
}

void shardc::registerTensorPlaceShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::PadOp::attachInterface<PadRuleModel>(*ctx);
    tensor::InsertSliceOp::attachInterface<InsertSliceRuleModel>(*ctx);
    tensor::ConcatOp::attachInterface<ConcatRuleModel>(*ctx);
  });
}
