//===- ImportUpstream.h - Programs annotated for upstream's Shard dialect -===//
//
// A program written for upstream MLIR's own `shard` dialect (shard.grid,
// shard.sharding, shard.shard, as its sharding-propagation and
// shard-partition passes take it) in shardc's form: each grid a mesh, each
// sharding DTensor placements on it (a tensor dim split over grid axes is
// S(dim) on each of them listed in grid order; a strided shard, _S(dim,
// f), on one that a more major axis later in the grid follows), each
// shard.shard a pin
// (shard.constraint), or the layout of the function argument it annotates
// or the result it returns. The two dialects share the name `shard`, so
// the program is read in a context of its own (every upstream dialect, its
// `shard` included) and written again in shardc's (every upstream dialect
// but that one, and shardc's). What has no exact counterpart is refused,
// at the op, with what to do: halos, explicit shard offsets (imported as
// each rank's block) only the run time knows or with copies, an uneven
// split (a dim the shards do not divide, or of dynamic size: shardc cuts
// those as torch.chunk does), any other upstream shard op.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TRANSLATE_IMPORTUPSTREAM_H
#define SHARDC_TRANSLATE_IMPORTUPSTREAM_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace shardc {

/// The program of `sourceMgr`'s main file, annotated for upstream's `shard`
/// dialect, in shardc's form in `context` (which must have shardc's dialect
/// and the upstream dialects the program uses: shardc::registerEverything);
/// null after emitting errors (located in the file) where it cannot be.
mlir::OwningOpRef<mlir::ModuleOp>
importUpstreamShard(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                    mlir::MLIRContext *context);

/// Registers shard-translate's --import-upstream-shard.
void registerUpstreamShardImport();

} // namespace shardc

#endif // SHARDC_TRANSLATE_IMPORTUPSTREAM_H
