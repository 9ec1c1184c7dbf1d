//===- Register.cpp - Register the shard dialect and passes ---------------===//

#include "shardc/Register.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Rules/Rules.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/MLProgram/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Shape/IR/Shape.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"

void shardc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<
      ShardDialect, mlir::affine::AffineDialect, mlir::arith::ArithDialect,
      mlir::bufferization::BufferizationDialect, mlir::cf::ControlFlowDialect,
      mlir::func::FuncDialect, mlir::index::IndexDialect,
      mlir::linalg::LinalgDialect, mlir::LLVM::LLVMDialect,
      mlir::math::MathDialect, mlir::memref::MemRefDialect,
      mlir::scf::SCFDialect, mlir::tensor::TensorDialect,
      mlir::tosa::TosaDialect, mlir::ml_program::MLProgramDialect,
      // Loaded with linalg (a dependent dialect) but not registered, a
      // file whose first complex op came before any linalg op was refused
      // at parse ("Dialect 'complex' not found").
      mlir::complex::ComplexDialect,
      // ub.poison (what recent MLIR writes for values never read: a pad's
      // or a transfer's padding) was refused at parse ("Dialect 'ub' not
      // found"); the pipeline lowers it (convert-ub-to-llvm).
      mlir::ub::UBDialect,
      // Quantized TOSA's element types (!quant.uniform, TFLite's int8
      // models): loaded with tosa only, a signature naming one before any
      // tosa op was refused at parse.
      mlir::quant::QuantDialect,
      // Shape computations of dynamic-shape programs (TensorFlow's path
      // through mhlo: shape.shape_of, shape.cstr_broadcastable): parsed, and
      // left as they are in functions without layouts.
      mlir::shape::ShapeDialect,
      // Parsed where a file holds it (tpp-mlir's tests print results with
      // vector ops beside the functions they shard; 396 of them were
      // refused at parse, "Dialect 'vector' not found"); not lowered by the
      // shard-to-llvm pipeline (-shard-check-lowered names such an op).
      mlir::vector::VectorDialect>();
  mlir::arith::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  mlir::cf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::linalg::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::linalg::registerTilingInterfaceExternalModels(registry);
  mlir::memref::registerAllocationOpInterfaceExternalModels(registry);
  mlir::ml_program::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::scf::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::tensor::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::vector::registerBufferizableOpInterfaceExternalModels(registry);
  registerShardingRules(registry);
  registerBufferizableOpInterfaceExternalModels(registry);
}

void shardc::registerAllPasses() {
  registerShardPasses();
  registerShardToLLVMPipeline();
}
