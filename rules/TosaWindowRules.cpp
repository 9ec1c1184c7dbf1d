//===- TosaWindowRules.cpp - Rules of TOSA's convolutions and pooling -----===//
//
// tosa.conv2d, conv3d and transpose_conv2d (input N, spatial dims, IC;
// weight OC, kernel dims, IC; bias OC or 1): batch and output channels
// parallel, the weight and bias cut with the output channels; the windows,
// the input channels and the kernel's dims whole. max_pool2d / avg_pool2d
// (NHWC): batch and channels parallel. depthwise_conv2d: batch only.
// tosa.resize (NHWC): the images and channels parallel, each image's rows
// and columns whole. Convolutions, pooling and resizes over channels cut
// unevenly run on each rank's block grown to the largest (partitionGrown):
// TOSA's lowering to linalg refuses a dynamic channel count.
//
//===----------------------------------------------------------------------===//

#include "TosaRuleSupport.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/Rules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::tosa_rules;

namespace {

/// Per dim of `type`, its largest block (a dynamic dim: dynamic).
SmallVector<int64_t> largestBlock(ShardedTensorType type) {
  SmallVector<int64_t> shape(type.getRank(), 0);
  for (const layout::Block &block : type.getDeviceBlocks())
    for (int64_t d = 0; d < type.getRank(); ++d)
      shape[d] = std::max(shape[d], block.box.sizes[d]);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      shape[d] = ShapedType::kDynamic;
  return shape;
}

/// The op on this rank's blocks grown to the largest block where blocks
/// differ (zeros past this rank's own), its result cut back to this rank's
/// block: TOSA's lowering refuses a convolution's or a pooling's channels
/// of dynamic size, which uneven blocks have locally. Each output channel
/// reads its own channels, so the grown ones are computed and dropped.
LogicalResult partitionGrown(Operation *op, PartitionContext &context) {
  Value result = op->getResult(0);
  ShardedTensorType global = context.globalOf(result);
  RankedTensorType local = getLocalType(global);
  // A rank of several blocks (its local tensor their rows) is not one
  // block to grow: as it is.
  auto several = [&](Value value) {
    if (!isa<RankedTensorType>(value.getType()))
      return false;
    ShardedTensorType type = context.globalOf(value);
    return type && severalPerRank(type);
  };
  if (local.hasStaticShape() || several(result) ||
      llvm::any_of(op->getOperands(), several))
    return retypeResultsToLocal(op, context);
  OpBuilder b(op);
  Location loc = op->getLoc();
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || type.hasStaticShape())
      continue;
    ShardedTensorType whole = context.globalOf(value);
    if (!whole)
      continue;
    SmallVector<int64_t> grown = largestBlock(whole);
    SmallVector<OpFoldResult> low(type.getRank(), b.getIndexAttr(0)), high;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d) || ShapedType::isDynamic(grown[d])) {
        high.push_back(b.getIndexAttr(0));
        grown[d] = type.getDimSize(d);
        continue;
      }
      Value size = tensor::DimOp::create(b, loc, value, d);
      high.push_back(
          arith::SubIOp::create(
              b, loc, arith::ConstantIndexOp::create(b, loc, grown[d]), size)
              .getResult());
    }
    auto grownType = RankedTensorType::get(grown, type.getElementType());
    // Zeros past the block where arith can make one (a signless integer,
    // a float, an index); else (ui8, si8: arith.constant takes neither)
    // the block written into a tensor of the grown shape, the rest
    // unwritten: its elements are computed and dropped alike.
    Type element = type.getElementType();
    auto integer = dyn_cast<IntegerType>(element);
    if ((integer && integer.isSignless()) ||
        isa<FloatType, IndexType>(element)) {
      Value zero = arith::ConstantOp::create(
          b, loc, cast<TypedAttr>(b.getZeroAttr(element)));
      operand.set(
          tensor::PadOp::create(b, loc, grownType, value, low, high, zero)
              .getResult());
      continue;
    }
    SmallVector<Value> empty;
    Value into = tensor::EmptyOp::create(b, loc, grownType, empty);
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
    operand.set(tensor::InsertSliceOp::create(b, loc, value, into, offsets,
                                              sizes, strides)
                    .getResult());
  }
  SmallVector<int64_t> grown = largestBlock(global);
  for (int64_t d = 0; d < local.getRank(); ++d)
    if (ShapedType::isDynamic(grown[d]))
      grown[d] = local.getDimSize(d);
  result.setType(RankedTensorType::get(grown, local.getElementType()));
  b.setInsertionPointAfter(op);
  SmallVector<OpFoldResult> offsets(local.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(local.getRank(), b.getIndexAttr(1));
  Value mine = tensor::ExtractSliceOp::create(
      b, loc, local, result, offsets, context.localSizes(b, loc, op, global),
      strides);
  context.replace(result, mine, mine.getDefiningOp());
  return success();
}

/// tosa.max_pool2d / avg_pool2d (NHWC): batch and channels parallel; the
/// pooled H and W windows whole; avg_pool2d's zero points whole.
template <typename OpT>
struct TosaPoolRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaPoolRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return resultLoopsRule(op, {{0, -1, -1, 3}}, {1, 2},
                           "it indexes a pooling window");
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    return partitionGrown(op, context);
  }
};

/// tosa.conv2d / conv3d / transpose_conv2d (input N, spatial dims, IC;
/// weight OC, kernel dims, IC; bias OC or 1): batch and output channels
/// parallel, the weight and bias cut with the output channels; the
/// spatial windows and the input channels (a reduction whose partial sums
/// would each add the bias and zero points) whole.
template <typename OpT>
struct TosaConvRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaConvRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (failed(checkStaticShapes(op)))
      return failure();
    const int64_t rank = rankOf(op->getResult(0));
    auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto bias = dyn_cast<RankedTensorType>(op->getOperand(2).getType());
    if (rank < 3 || !input || input.getRank() != rank || !bias ||
        bias.getRank() != 1)
      return wholeRule(op);
    auto kernel = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    if (!kernel || kernel.getRank() != rank)
      return wholeRule(op);
    // Loops: the result's dims, then the input channels, then the kernel's
    // spatial dims (reductions that never cut, so that the compute the
    // search weighs counts every multiply).
    std::vector<int64_t> in(rank, -1), weight(rank, -1);
    in[0] = 0;
    in[rank - 1] = rank;
    weight[0] = rank - 1;
    weight[rank - 1] = rank;
    for (int64_t d = 1; d + 1 < rank; ++d)
      weight[d] = rank + d;
    const int64_t channels =
        cast<RankedTensorType>(op->getResult(0).getType()).getDimSize(rank - 1);
    std::vector<int64_t> biasDims = {
        bias.getDimSize(0) == channels && channels != 1 ? rank - 1 : -1};
    std::vector<int64_t> windows;
    for (int64_t d = 1; d + 1 < rank; ++d)
      windows.push_back(d);
    FailureOr<ShardingRule> rule = resultLoopsRule(
        op, {in, weight, biasDims}, windows, "it indexes a convolution window");
    if (failed(rule))
      return failure();
    rule->loops.push_back({input.getDimSize(rank - 1), true,
                           "its partial sums would each add the bias"});
    for (int64_t d = 1; d + 1 < rank; ++d)
      rule->loops.push_back(
          {kernel.getDimSize(d), true, "it indexes a convolution window"});
    return rule;
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    return partitionGrown(op, context);
  }
};

/// tosa.depthwise_conv2d: batch parallel; the rest whole (output channels
/// fold the input's channels with the multiplier).
struct TosaDepthwiseConvRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaDepthwiseConvRuleModel,
                                             tosa::DepthwiseConv2DOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto kernel = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    FailureOr<ShardingRule> rule = resultLoopsRule(
        op, {{0, -1, -1, -1}, {4, 5, -1, -1}}, {1, 2, 3},
        "it indexes a convolution window or folds the input's channels");
    if (failed(rule) || !kernel || kernel.getRank() != 4)
      return rule;
    // The kernel's spatial dims: reductions that never cut (the compute
    // the search weighs counts every multiply).
    for (int64_t d = 0; d < 2; ++d)
      rule->loops.push_back(
          {kernel.getDimSize(d), true, "it indexes a convolution window"});
    return rule;
  }
};

/// tosa.resize (input[N, IH, IW, C] -> [N, OH, OW, C]): the images and
/// channels parallel; each image's rows and columns whole (an output pixel
/// reads the input pixels near its scaled place, the scale the whole
/// image's). scale, offset and border are shapes, not tensors. Channels
/// cut unevenly run grown (partitionGrown): TOSA's lowering of a resize
/// takes no channel count of run-time size either.
struct TosaResizeRuleModel
    : ShardingRuleOpInterface::ExternalModel<TosaResizeRuleModel,
                                             tosa::ResizeOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    if (rankOf(op->getOperand(0)) != 4 || rankOf(op->getResult(0)) != 4)
      return wholeRule(op);
    return resultLoopsRule(op, {{0, -1, -1, 3}}, {1, 2},
                           "the op resamples each image whole along it");
  }

  LogicalResult partition(Operation *op, const ShardingRule &,
                          PartitionContext &context) const {
    return partitionGrown(op, context);
  }
};

} // namespace

void tosa_rules::attachWindowRules(MLIRContext *ctx) {
  tosa::ResizeOp::attachInterface<TosaResizeRuleModel>(*ctx);
  tosa::MaxPool2dOp::attachInterface<TosaPoolRuleModel<tosa::MaxPool2dOp>>(
      *ctx);
  tosa::AvgPool2dOp::attachInterface<TosaPoolRuleModel<tosa::AvgPool2dOp>>(
      *ctx);
  tosa::Conv2DOp::attachInterface<TosaConvRuleModel<tosa::Conv2DOp>>(*ctx);
  tosa::Conv3DOp::attachInterface<TosaConvRuleModel<tosa::Conv3DOp>>(*ctx);
  tosa::TransposeConv2DOp::attachInterface<
      TosaConvRuleModel<tosa::TransposeConv2DOp>>(*ctx);
  tosa::DepthwiseConv2DOp::attachInterface<TosaDepthwiseConvRuleModel>(*ctx);
}
