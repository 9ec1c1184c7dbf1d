//===- shard-opt.cpp - The shard dialect's opt tool -----------------------===//
//
// mlir-opt for shard IR: the shard dialect, its passes, the shard-to-llvm
// pipeline, and the upstream dialects and passes that pipeline uses.
//
//===----------------------------------------------------------------------===//

#include "shardc/Register.h"

#include "../ToolSupport.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  shardc::hideLibraryOptions();
  mlir::DialectRegistry registry;
  shardc::registerAllDialects(registry);
  shardc::registerAllPasses();

  // The upstream passes of the shard-to-llvm pipeline (and of
  // -shard-lower-to-runtime's), for use one by one: the pipeline that
  // --dump-pass-pipeline prints runs again as printed.
  mlir::registerTransformsPasses();
  mlir::bufferization::registerBufferizationPasses();
  mlir::bufferization::registerBufferizationPipelines();
  mlir::registerConvertBufferizationToMemRefPass();
  mlir::registerConvertElementwiseToLinalgPass();
  mlir::registerConvertLinalgToLoopsPass();
  mlir::memref::registerExpandReallocPass();
  mlir::memref::registerExpandStridedMetadataPass();
  mlir::registerConvertComplexToStandardPass();
  mlir::registerConvertComplexToLLVMPass();
  mlir::registerConvertMathToLLVMPass();
  mlir::registerConvertMathToLibmPass();
  mlir::registerSCFToControlFlowPass();
  mlir::registerLowerAffinePass();
  mlir::registerFinalizeMemRefToLLVMConversionPass();
  mlir::registerArithToLLVMConversionPass();
  mlir::registerConvertIndexToLLVMPass();
  mlir::registerConvertControlFlowToLLVMPass();
  mlir::registerConvertFuncToLLVMPass();
  mlir::registerUBToLLVMConversionPass();
  mlir::registerReconcileUnrealizedCastsPass();
  mlir::registerTosaToLinalgNamed();
  mlir::registerTosaToLinalg();
  mlir::registerTosaToArithPass();
  mlir::registerTosaToTensorPass();
  mlir::registerTosaToSCFPass();
  mlir::registerConvertVectorToSCF();
  mlir::registerConvertVectorToLLVMPass();
  mlir::vector::registerLowerVectorMaskPass();
  mlir::tosa::registerTosaOptionalDecompositionsPass();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "shard-opt: the shard dialect's optimizer driver\n",
      registry));
}
