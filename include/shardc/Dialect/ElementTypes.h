//===- ElementTypes.h - Element types, as every layer names them -*- C++
//-*-===//
//
// One table of the element types shardc knows: the MLIR type, PyTorch's
// dtype name (and its alias), the runtime's dtype code (shardrt_dtype) and
// entry-point suffix (shardrt_mlir_<op>_<suffix>), and the size in bytes.
// The importer and exporter of PyTorch metadata, the lowering to runtime
// calls and shard-plan all read it, so that they accept the same types.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_ELEMENTTYPES_H
#define SHARDC_DIALECT_ELEMENTTYPES_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace shardc {

struct ElementTypeInfo {
  /// The MLIR type, as printed: "f32", "ui8", "complex<f32>".
  llvm::StringLiteral mlirName;
  /// PyTorch's dtype name (str(torch.float32) without "torch.") and its
  /// alias ("float"), or "" when it has none.
  llvm::StringLiteral torchName, torchAlias;
  /// The runtime's dtype code (shardrt_dtype), or kNoRuntimeDtype.
  int32_t runtimeDtype;
  /// The size of one element.
  int64_t bytes;
  /// Builds the MLIR type.
  mlir::Type (*build)(mlir::MLIRContext *);
  /// Whether the runtime moves this type's elements only as the bytes of
  /// runtimeDtype (i1 as ui8, one byte each, as MLIR stores it; index as
  /// i64), so that it does not reduce them (a sum of i1 is not a sum of
  /// bytes).
  bool bytesOnly = false;

  /// Whether the runtime moves elements of this type.
  bool hasRuntime() const;
  /// The suffix of the runtime's MLIR entry points for this type
  /// (shardrt_mlir_all_gather_f32): its MLIR name. Only with hasRuntime().
  llvm::StringRef runtimeSuffix() const { return mlirName; }
};

/// No runtime dtype code: the runtime does not move elements of the type.
constexpr int32_t kNoRuntimeDtype = -1;

/// The runtime's dtype codes (shardrt_dtype in runtime/include/shardrt.h),
/// numbered here so that the dialect does not depend on the runtime's
/// header; the lowering to runtime calls (passes/RuntimeCalls.cpp) checks at
/// compile time that they agree with it. Compiled programs carry them.
namespace runtime_dtype {
constexpr int32_t F32 = 0, F64 = 1, F16 = 2, BF16 = 3, I8 = 4, I32 = 5, I64 = 6,
                  U8 = 7, I16 = 8, U16 = 9, U32 = 10, U64 = 11;
} // namespace runtime_dtype

/// Every row, in the order PyTorch lists its dtypes; a PyTorch name maps to
/// the first row that has it (signless integers before signed ones).
llvm::ArrayRef<ElementTypeInfo> elementTypes();

/// The row of `type`, or null when the table has none.
const ElementTypeInfo *lookupElementType(mlir::Type type);

/// The row of a PyTorch dtype name ("float32", "torch.float32", "float",
/// "half", "long", ...), or null when the name is unknown.
const ElementTypeInfo *lookupTorchDtype(llvm::StringRef name);

/// "f32, f64, ..., ui8": the element types the runtime moves.
std::string runtimeElementTypesText();

/// Why partial values of element type `type` cannot be reduced across
/// ranks ("the runtime moves i1 as bytes and does not reduce it"), or ""
/// where they can: a number type the runtime moves as itself. The rules
/// keep a reduction whole where its result's cannot (no search offers
/// them), and a Partial destination of such a type is refused.
std::string whyNotReducible(mlir::Type type);

} // namespace shardc

#endif // SHARDC_DIALECT_ELEMENTTYPES_H
