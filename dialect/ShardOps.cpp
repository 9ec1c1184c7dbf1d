//===- ShardOps.cpp - Global and SPMD ops ---------------------------------===//

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace shardc;

#define GET_OP_CLASSES
#include "shardc/Dialect/ShardOps.cpp.inc"

/// MPI ranks are C ints.
static LogicalResult verifySourceRank(Operation *op, int64_t rank) {
  if (rank <= layout::kMaxRank)
    return success();
  return op->emitOpError() << "rank " << rank
                           << " is out of range (MPI ranks are at most "
                           << layout::kMaxRank << ")";
}

/// Checks that `full` is the whole tensor of `type`: same static shape and
/// element type.
static LogicalResult verifyFullTensor(Operation *op, ShardedTensorType type,
                                      RankedTensorType full, StringRef what) {
  if (full.getElementType() != type.getElementType())
    return op->emitOpError()
           << what << " element type " << full.getElementType()
           << " does not match the sharded tensor's " << type.getElementType();
  if (full.getShape() != type.getShape())
    return op->emitOpError() << what << " shape "
                             << layout::formatList({full.getShape().begin(),
                                                    full.getShape().end()})
                             << " does not match the sharded tensor's shape "
                             << layout::formatList({type.getShape().begin(),
                                                    type.getShape().end()});
  return success();
}

LogicalResult DistributeOp::verify() {
  if (failed(verifySourceRank(*this, getSrcRank())))
    return failure();
  return verifyFullTensor(*this, getResult().getType(), getSource().getType(),
                          "source");
}

LogicalResult RedistributeOp::verify() {
  ShardedTensorType from = getSource().getType(), to = getResult().getType();
  if (from.getElementType() != to.getElementType())
    return emitOpError() << "cannot change the element type from "
                         << from.getElementType() << " to "
                         << to.getElementType();
  if (from.getShape() != to.getShape())
    return emitOpError() << "cannot change the shape from "
                         << layout::formatList({from.getShape().begin(),
                                                from.getShape().end()})
                         << " to "
                         << layout::formatList(
                                {to.getShape().begin(), to.getShape().end()});
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyFullTensor(*this, getSource().getType(), getResult().getType(),
                          "result");
}

LogicalResult GatherOp::verify() {
  if (failed(verifySourceRank(*this, getDstRank())))
    return failure();
  return verifyFullTensor(*this, getSource().getType(), getResult().getType(),
                          "result");
}

LogicalResult LocalShardsOp::verify() {
  return verifyLocalType(getSource().getType(), getResult().getType(), "result",
                         [&] { return emitOpError(); });
}

LogicalResult FromLocalShardsOp::verify() {
  return verifyLocalType(getResult().getType(), getLocal().getType(), "operand",
                         [&] { return emitOpError(); });
}

LogicalResult SpmdAllGatherOp::verify() {
  auto layoutType = cast<ShardedTensorType>(getLayout());
  if (failed(verifyLocalType(layoutType, getLocal().getType(), "operand",
                             [&] { return emitOpError(); })))
    return failure();
  return verifyFullTensor(*this, layoutType, getResult().getType(), "result");
}

LogicalResult SpmdScatterOp::verify() {
  if (failed(verifySourceRank(*this, getRoot())))
    return failure();
  auto layoutType = cast<ShardedTensorType>(getLayout());
  if (failed(
          verifyFullTensor(*this, layoutType, getSource().getType(), "source")))
    return failure();
  return verifyLocalType(layoutType, getResult().getType(), "result",
                         [&] { return emitOpError(); });
}

LogicalResult SpmdRedistributeOp::verify() {
  auto from = cast<ShardedTensorType>(getFrom());
  auto to = cast<ShardedTensorType>(getTo());
  if (from.getShape() != to.getShape() ||
      from.getElementType() != to.getElementType())
    return emitOpError() << "layouts of different tensors: " << from << " and "
                         << to;
  if (failed(verifyLocalType(from, getSource().getType(), "operand",
                             [&] { return emitOpError(); })))
    return failure();
  return verifyLocalType(to, getResult().getType(), "result",
                         [&] { return emitOpError(); });
}
