//===- DynamicExtents.h - Chunks of run-time extents in IR ------*- C++ -*-===//
//
// A mesh layout may cut a dynamic dim (shardc::dynamicDimCuts): each block
// holds torch.chunk's piece of the run-time extent, nested over the mesh
// axes that cut it, outer first, as layout::meshBox computes it at compile
// time. These build the same arithmetic as IR, for what only the run time
// knows: the partition's local sizes and offsets, the runtime lowering's
// block tables, and the extent itself, summed from the blocks at a
// function's entry.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_DYNAMICEXTENTS_H
#define SHARDC_PASSES_DYNAMICEXTENTS_H

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Builders.h"

namespace shardc {

/// The offset and size (index values) of the piece of a dim of `extent`
/// elements held at mesh coordinates `indices` of the axes cutting it, whose
/// sizes are `counts` (outer first): torch.chunk of what the outer axes
/// left, an empty piece at the dim's end (layout::meshBox's arithmetic).
std::pair<mlir::Value, mlir::Value>
buildMeshChunk(mlir::OpBuilder &b, mlir::Location loc, mlir::Value extent,
               llvm::ArrayRef<int64_t> counts,
               llvm::ArrayRef<mlir::Value> indices);

/// The run-time extent of dim `d` of a tensor of global type `type`, whose
/// layout cuts it, from this rank's block `local` of it: the blocks' sizes
/// summed over the mesh axes that cut it (each group along them tiles the
/// dim once), by a shard.spmd.all_reduce of one i64 that every rank of the
/// mesh runs. `made` (if given) receives the ops built, in order.
mlir::Value
buildExtentFromBlocks(mlir::OpBuilder &b, mlir::Location loc, mlir::Value local,
                      ShardedTensorType type, int64_t d,
                      llvm::SmallVectorImpl<mlir::Operation *> *made = nullptr);

} // namespace shardc

#endif // SHARDC_PASSES_DYNAMICEXTENTS_H
