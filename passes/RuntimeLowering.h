//===- RuntimeLowering.h - SPMD ops as runtime calls ------------*- C++ -*-===//
//
// How an SPMD collective becomes a call of the shardrt C ABI on buffers: its
// runtime call (runtimeCallOf) with the layouts' tables as constant globals,
// this rank's input buffer, a new buffer for its output, and the call in a
// private wrapper. Used where collectives are bufferized (the
// BufferizableOpInterface models of BufferizableCollectives.cpp, which
// one-shot bufferization and -shard-lower-to-runtime run), and for
// shard.spmd.rank by -shard-lower-to-runtime. Private to passes/.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_RUNTIMELOWERING_H
#define SHARDC_PASSES_RUNTIMELOWERING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace shardc {

/// Allocates a buffer of `type` with `dynamicSizes` at the builder's point.
using AllocateBuffer = llvm::function_ref<mlir::FailureOr<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::MemRefType, mlir::ValueRange)>;

/// Emits, before the SPMD collective `op`, its runtime call reading `input`
/// (the buffer of its input tensor, any layout) and writing a new buffer
/// from `allocate`, which it returns. Functions, wrappers and constant
/// tables are declared once in `op`'s nearest symbol table (looked up in
/// `tables`, which is kept up to date). Emits at `op` and fails where the
/// op has no runtime call.
mlir::FailureOr<mlir::Value>
lowerCollectiveToRuntime(mlir::OpBuilder &b, mlir::Operation *op,
                         mlir::Value input, AllocateBuffer allocate,
                         mlir::SymbolTableCollection &tables);

/// Emits, before `op`, this rank's index (`shardrt_rank()` as an index).
mlir::FailureOr<mlir::Value>
lowerRankToRuntime(mlir::OpBuilder &b, mlir::Operation *op,
                   mlir::SymbolTableCollection &tables);

} // namespace shardc

#endif // SHARDC_PASSES_RUNTIMELOWERING_H
