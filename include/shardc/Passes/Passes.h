//===- Passes.h - shard passes ----------------------------------*- C++ -*-===//

#ifndef SHARDC_PASSES_PASSES_H
#define SHARDC_PASSES_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace shardc {

#define GEN_PASS_DECL
#include "shardc/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "shardc/Passes/Passes.h.inc"

/// Adds the whole lowering, from the global view down to the LLVM dialect:
/// plan, lower to runtime calls, bufferize, and convert to LLVM.
void buildShardToLLVMPipeline(mlir::OpPassManager &pm);

/// Registers `shard-to-llvm`, the pipeline above, for textual pipelines.
void registerShardToLLVMPipeline();

} // namespace shardc

#endif // SHARDC_PASSES_PASSES_H
