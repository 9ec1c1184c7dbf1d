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
#include "mlir/Pass/PassOptions.h"

#include "shardc/Planning/Cost.h"
#include "shardc/Planning/CostModel.h"
#include "shardc/Planning/Planner.h"

namespace shardc {
namespace planning {
class ShardPlanner;
} // namespace planning

/// How -shard-propagate chooses layouts (its `search` option).
enum class PropagationSearch {
  /// Op by op, in program order, from the layouts already known.
  Greedy,
  /// Every free op's sharding and free value's layout of a function
  /// together, at least modelled time (docs/partition.md).
  Whole,
};

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

/// The largest rank the layouts in `root`'s ops' attributes name (the
/// global types of arguments, results and collectives), -1 for none.
int64_t largestNamedRank(mlir::Operation *root);

/// What -shard-plan-redistribute does to `module`, planned with `planner`:
/// checks, then every global op localized (recorded in the planner's report
/// when `recordAll` or when `report` names a file, which is then written).
/// For passes that end in it (-shard-spmd-partition) without a nested
/// pipeline and its verification of the whole module.
mlir::LogicalResult planRedistributions(mlir::ModuleOp module,
                                        planning::ShardPlanner &planner,
                                        llvm::StringRef report, bool recordAll);

/// Attaches the BufferizableOpInterface of the SPMD collectives: one-shot
/// bufferization lowers each to its runtime call, knowing that it reads its
/// input and writes a new buffer (registerAllDialects does this).
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

/// The passes that plan, with the cost model `costModel` (the options
/// they take besides their own, declared once in Planning/CostModel.h).
std::unique_ptr<mlir::Pass>
createShardPropagate(const ShardPropagateOptions &options,
                     const planning::PlanningOptions &costModel);
std::unique_ptr<mlir::Pass>
createShardPartition(const ShardPartitionOptions &options,
                     const planning::PlanningOptions &costModel);
std::unique_ptr<mlir::Pass>
createShardPlanRedistribute(const ShardPlanRedistributeOptions &options,
                            const planning::PlanningOptions &costModel);

/// The shard-to-llvm pipeline's options: the cost model's (made from its
/// one table, Planning/CostModel.h), which it hands to every pass that
/// plans (-shard-propagate, -shard-spmd-partition,
/// -shard-plan-redistribute), and device-alloc.
struct ShardToLLVMOptions
    : public mlir::PassPipelineOptions<ShardToLLVMOptions> {
  using CostModelFlag = Option<std::string, planning::CostModelOptionParser>;
  planning::CostModelFlags<CostModelFlag> costModel{
      [this](const planning::CostModelOption &option) {
        return std::make_unique<CostModelFlag>(*this, option.name,
                                               llvm::cl::desc(option.help));
      }};
  Option<bool> deviceAlloc{
      *this, "device-alloc",
      llvm::cl::desc(
          "Allocate every buffer through _mlir_memref_to_llvm_alloc and "
          "_free, which shardrt defines: CUDA managed memory when its NCCL "
          "backend is built and a GPU is visible, host memory otherwise "
          "(programs on CUDA meshes: NCCL's collectives need device memory)"),
      llvm::cl::init(false)};
};

/// -shard-propagate from its options as a textual pipeline writes them
/// ("search=whole link=infiniband"), and its cost model in `costModel`: a
/// tool that runs the passes apart (shard-run's --propagate) partitions and
/// lowers with the cost model it propagated with. Errors go to `errors`.
mlir::FailureOr<std::unique_ptr<mlir::Pass>>
parseShardPropagate(llvm::StringRef options,
                    planning::PlanningOptions &costModel,
                    llvm::raw_ostream &errors);

/// Adds the whole lowering, from the global view down to the LLVM dialect:
/// propagate, partition, plan (with the cost model `options` describes),
/// bufferize with runtime calls, and convert to LLVM.
void buildShardToLLVMPipeline(
    mlir::OpPassManager &pm,
    const ShardToLLVMOptions &options = ShardToLLVMOptions());

/// Registers `shard-to-llvm`, the pipeline above, for textual pipelines.
void registerShardToLLVMPipeline();

} // namespace shardc

#endif // SHARDC_PASSES_PASSES_H
