//===- Passes.h - shard passes ----------------------------------*- C++ -*-===//

#ifndef SHARDC_PASSES_PASSES_H
#define SHARDC_PASSES_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

#include "shardc/Planning/Cost.h"
#include "shardc/Planning/Planner.h"

namespace shardc {
namespace planning {
class ShardPlanner;
} // namespace planning

#define GEN_PASS_DECL
#include "shardc/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "shardc/Passes/Passes.h.inc"

/// shard-plan-redistribute with `options`, planning with `shared` (a
/// planner built from the same options) and recording every global op in
/// its report, whether or not `options.report` names a file: a tool that
/// reads the plans (shard-plan) plans each redistribution once. `shared`
/// must outlive the pass.
std::unique_ptr<mlir::Pass>
createShardPlanRedistribute(const ShardPlanRedistributeOptions &options,
                            planning::ShardPlanner &shared);

/// Attaches the BufferizableOpInterface of the SPMD collectives: one-shot
/// bufferization lowers each to its runtime call, knowing that it reads its
/// input and writes a new buffer (registerAllDialects does this).
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

/// Adds the whole lowering, from the global view down to the LLVM dialect:
/// plan, lower to runtime calls, bufferize, and convert to LLVM.
void buildShardToLLVMPipeline(mlir::OpPassManager &pm);

/// Registers `shard-to-llvm`, the pipeline above, for textual pipelines.
void registerShardToLLVMPipeline();

} // namespace shardc

#endif // SHARDC_PASSES_PASSES_H
