//===- Register.h - Register the shard dialect and passes -------*- C++ -*-===//
//
// For embedders: one call each to make the dialect, the passes and the
// lowering pipeline known to a larger compiler.
//
//   mlir::DialectRegistry registry;
//   shardc::registerAllDialects(registry);
//   mlir::MLIRContext context(registry);
//   shardc::registerAllPasses();   // for textual pipelines (optional)
//
// Note: the dialect is named `shard`, like upstream MLIR's own Shard dialect
// (C++ namespace mlir::shard). Do not register both in one MLIRContext.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_REGISTER_H
#define SHARDC_REGISTER_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace shardc {

/// Registers the shard dialect and the dialects its passes produce or shard
/// (affine, arith, bufferization, cf, func, index, linalg, llvm, math,
/// memref, ml_program, scf, tensor, tosa: IR as torch-mlir and TOSA-based
/// ingress emit it parses), with their bufferization models (the SPMD
/// collectives' included), the memref allocation interface and the
/// sharding rules of upstream ops (shardc/Rules/Rules.h).
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers the shard passes and the `shard-to-llvm` pipeline.
void registerAllPasses();

} // namespace shardc

#endif // SHARDC_REGISTER_H
