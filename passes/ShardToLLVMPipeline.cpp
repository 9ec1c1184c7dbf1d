//===- ShardToLLVMPipeline.cpp - shard-to-llvm ----------------------------===//
//
// The whole lowering: propagate layouts and partition annotated functions,
// plan, lower to runtime calls, bufferize, free buffers, and convert to the
// LLVM dialect, ready for mlir-runner, mlir-translate or shard-run.
//
//===----------------------------------------------------------------------===//

#include "shardc/Passes/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ComplexToLLVM/ComplexToLLVM.h"
#include "mlir/Conversion/ComplexToStandard/ComplexToStandard.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void shardc::buildShardToLLVMPipeline(OpPassManager &pm,
                                      const ShardToLLVMOptions &options) {
  // Annotated functions (shard.layout, shard.constraint): their per-rank
  // form; nothing changes in programs without annotations. Every pass that
  // plans gets the pipeline's cost model.
  // The options' texts were parsed (which refuses a bad one) or assigned
  // from a cost model (which reads back): reading them cannot fail. Each
  // pass's planner checks the values' ranges.
  planning::PlanningOptions costModel;
  [[maybe_unused]] std::string problem = options.costModel.read(costModel);
  assert(problem.empty() && "a cost model option's text that set refuses");
  pm.addPass(createShardPropagate({}, costModel));
  pm.addPass(createShardPartition({}, costModel));
  pm.addPass(createShardPlanRedistribute({}, costModel));
  // TOSA (of the per-rank program) as linalg, tensor and arith; first
  // float zero points given as values made constants (which that lowering
  // needs), and its optional decompositions (tosa.transpose_conv2d as a
  // conv2d, which TOSA's lowering to linalg takes).
  pm.addPass(createShardFloatZeroPoints());
  pm.addNestedPass<func::FuncOp>(tosa::createTosaOptionalDecompositionsPass());
  // tosa.cond_if, tosa.while_loop and tosa.scatter as scf.
  pm.addNestedPass<func::FuncOp>(createTosaToSCFPass());
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalgNamed());
  pm.addNestedPass<func::FuncOp>(tosa::createTosaToLinalg());
  // tosa.apply_scale too (what tosa.mul with a shift and tosa.rescale
  // lower to), in 64-bit arithmetic as TOSA specifies it.
  TosaToArithPassOptions tosaToArith;
  tosaToArith.includeApplyRescale = true;
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass(tosaToArith));
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  // linalg.softmax as the linalg ops it stands for.
  pm.addPass(createShardDecomposeAggregates());
  // affine.for and affine.if, which partition enters as it enters scf's
  // (their values pass as RegionBranchOpInterface says), as scf ops, which
  // bufferization knows.
  pm.addPass(createLowerAffinePass());
  // vector.mask around a transfer (linalg's masked vectorization) as the
  // transfer with its mask operand: buffer deallocation puts ops inside a
  // mask's region, which then holds more than the one op it masks ("expects
  // only one operation to mask").
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  // A masked write into a tensor as a read, a select and a write (one-shot
  // bufferization takes one spanning its tensor for a full overwrite, and
  // copies nothing into the new buffer it writes); a mask with a passthru
  // around a read (which -lower-vector-mask leaves) as the masked read and
  // a select.
  pm.addPass(createShardMaskedTransfers());
  pm.addPass(createCanonicalizerPass());
  // A slice's dims of size 1 at stride 1 (upstream's strided-metadata
  // expansion crashes on some other strides there).
  pm.addPass(createShardUnitStrides());
  // A split into several dims of run-time size as a reshape (upstream's
  // strided-metadata expansion crashes on it).
  pm.addPass(createShardDynamicExpands());
  // Bufferize; the collectives become runtime calls there, where the
  // analysis knows what each reads and writes.
  pm.addPass(createShardLowerToRuntime());
  pm.addPass(createCanonicalizerPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // The clones deallocation leaves (a function returning a buffer it was
  // passed) as allocations and copies.
  pm.addPass(createConvertBufferizationToMemRefPass());

  pm.addPass(createConvertLinalgToLoopsPass());
  // Vector transfers the vector dialect cannot lower directly as loops.
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Complex numbers (FFTs, complex matmuls in payloads): their arithmetic
  // on real and imaginary parts, then LLVM structs (below).
  pm.addPass(createConvertComplexToStandardPass());
  // Math ops: LLVM intrinsics where there are some, libm calls otherwise.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Vector ops (a kernel's vector.print of its timing, say: calls of MLIR's
  // C runner utilities, which shard-run loads).
  pm.addPass(createConvertVectorToLLVMPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.deviceAlloc;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertComplexToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  // ub.poison as LLVM's poison.
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // What no conversion took (arithmetic on f8 types) named at its op, not
  // when the module is translated to LLVM IR.
  pm.addPass(createShardCheckLowered());
}

void shardc::registerShardToLLVMPipeline() {
  PassPipelineRegistration<ShardToLLVMOptions>(
      "shard-to-llvm",
      "Lower shard IR to the LLVM dialect: propagate and partition annotated "
      "functions, plan collectives, bufferize (collectives become shardrt "
      "calls), convert to LLVM",
      [](OpPassManager &pm, const ShardToLLVMOptions &options) {
        buildShardToLLVMPipeline(pm, options);
      });
}
