//===- ShardedMetadata.h - Sharded tensor metadata as JSON ------*- C++ -*-===//
//
// PyTorch's sharded tensor metadata as JSON, with PyTorch's field names
// (ShardedTensorMetadata: "size", "tensor_properties", "shards_metadata";
// DTensor: "device_mesh", "placements"), to and from the sharded tensor type.
// The schema is described in docs/json.md. These are the two translations of
// shard-translate; the library has no tool code.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TRANSLATE_SHARDEDMETADATA_H
#define SHARDC_TRANSLATE_SHARDEDMETADATA_H

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace shardc {

/// Reads sharded tensor metadata (JSON text) into a sharded tensor type:
/// ShardedTensor metadata gives an enumerable spec, or a chunk spec when its
/// "sharding_spec" is one (and agrees with "shards_metadata"); DTensor
/// metadata ("device_mesh", "placements") gives a placements spec. Every
/// problem (malformed JSON, a missing field or one of the wrong type, an
/// integer outside int64, an invalid device or placement, a spec the
/// verifier rejects) is emitted as an error at a location in `fileName` that
/// names the field and the value, and the result is failure. Never throws.
mlir::FailureOr<ShardedTensorType>
importShardedMetadata(llvm::StringRef json, llvm::StringRef fileName,
                      mlir::MLIRContext *context);

/// As importShardedMetadata, wrapped in a module with one function,
/// `func.func @sharded_tensor(%arg0: <the type>) { return }`. Loads the func
/// and shard dialects. Returns null on failure (the errors are emitted).
mlir::OwningOpRef<mlir::ModuleOp>
importShardedMetadataModule(llvm::StringRef json, llvm::StringRef fileName,
                            mlir::MLIRContext *context);

/// Writes `type` as ShardedTensor metadata JSON: "size", "tensor_properties"
/// (PyTorch's dtype name), "shards_metadata" (the distinct blocks, canonical
/// placement strings) and "sharding_spec" (chunk or enumerable); for a
/// placements spec also "device_mesh" and "placements", so that importing
/// the output gives back the same type. Fails, emitting at `loc`, when the
/// element type has no PyTorch dtype.
mlir::LogicalResult exportShardedMetadata(ShardedTensorType type,
                                          llvm::raw_ostream &os,
                                          mlir::Location loc);

/// Writes the metadata of the first function argument, in module order, of
/// sharded tensor type under `op`; fails with an error if there is none.
mlir::LogicalResult exportShardedMetadata(mlir::Operation *op,
                                          llvm::raw_ostream &os);

/// The PyTorch dtype name of an element type ("float32", "bfloat16",
/// "complex64", ...), or "" when PyTorch has no such dtype.
llvm::StringRef getTorchDtypeName(mlir::Type elementType);

/// The element type of a PyTorch dtype name ("float32", "torch.float32",
/// "float", "half", "long", ...), or null when the name is unknown.
mlir::Type parseTorchDtype(llvm::StringRef name, mlir::MLIRContext *context);

/// A diagnostic located at a whole file (line 0), as the importer locates
/// JSON errors, as printWholeFileDiagnostic prints it ("FILE: error:
/// message\n" and a line per note); nullopt for other locations.
std::optional<std::string>
formatWholeFileDiagnostic(const mlir::Diagnostic &diag);
/// Prints a diagnostic located at a whole file (line 0), as the importer
/// locates JSON errors, as "FILE: error: message" with its notes, and
/// succeeds; fails (leaving it to the next handler) for other locations.
mlir::LogicalResult printWholeFileDiagnostic(mlir::Diagnostic &diag);

/// Registers the translations `--import-sharded-metadata` (JSON to IR) and
/// `--export-sharded-metadata` (IR to JSON) for mlirTranslateMain. Both
/// register the shard and func dialects; `registerDialects`, when given,
/// adds the dialects an exported module may also use (shard-translate passes
/// shardc::registerAllDialects).
void registerShardedMetadataTranslations(
    std::function<void(mlir::DialectRegistry &)> registerDialects = {});

} // namespace shardc

#endif // SHARDC_TRANSLATE_SHARDEDMETADATA_H
