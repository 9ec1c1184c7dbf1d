//===- RegisterEverything.h - shardc beside all of upstream MLIR -*- C++
//-*-===//
//
// For compilers whose opt tool registers all of upstream MLIR: one call in
// place of mlir::registerAllDialects and mlir::registerAllExtensions (which
// register upstream's own `shard` dialect, whose name shardc's dialect
// takes: both in one registry abort with "Trying to register different
// dialects for the same namespace: shard").
//
//   mlir::DialectRegistry registry;
//   shardc::registerEverything(registry);
//   mlir::registerAllPasses();      // upstream's, for textual pipelines
//   shardc::registerAllPasses();    // ours: no name is upstream's
//
// Link shardc::ShardcRegisterEverything (it brings every upstream dialect).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_REGISTER_EVERYTHING_H
#define SHARDC_REGISTER_EVERYTHING_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace shardc {

/// Registers every dialect, extension and interface model that MLIR 22's
/// mlir::registerAllDialects and mlir::registerAllExtensions register, except
/// upstream's `shard` dialect, then shardc's (shardc::registerAllDialects).
/// Upstream's sharding-interface models on arith, func, linalg, tensor and
/// tosa ops are registered too: they load nothing, and only upstream's
/// `shard` passes, which cannot run beside shardc's dialect, would use them.
void registerEverything(mlir::DialectRegistry &registry);

} // namespace shardc

#endif // SHARDC_REGISTER_EVERYTHING_H
