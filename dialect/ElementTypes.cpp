//===- ElementTypes.cpp - Element types, as every layer names them --------===//

#include "shardc/Dialect/ElementTypes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace shardc;

namespace {

template <unsigned Width,
          IntegerType::SignednessSemantics Signedness = IntegerType::Signless>
Type integer(MLIRContext *ctx) {
  return IntegerType::get(ctx, Width, Signedness);
}
Type f32(MLIRContext *ctx) { return Float32Type::get(ctx); }
Type f64(MLIRContext *ctx) { return Float64Type::get(ctx); }
Type f16(MLIRContext *ctx) { return Float16Type::get(ctx); }
Type bf16(MLIRContext *ctx) { return BFloat16Type::get(ctx); }
Type index(MLIRContext *ctx) { return IndexType::get(ctx); }
Type f8e4m3fn(MLIRContext *ctx) { return Float8E4M3FNType::get(ctx); }
Type f8e5m2(MLIRContext *ctx) { return Float8E5M2Type::get(ctx); }
template <Type (*Part)(MLIRContext *)> Type complex(MLIRContext *ctx) {
  return ComplexType::get(Part(ctx));
}

constexpr auto Signed = IntegerType::Signed;
constexpr auto Unsigned = IntegerType::Unsigned;

const ElementTypeInfo kTable[] = {
    {"f32", "float32", "float", runtime_dtype::F32, 4, f32},
    {"f64", "float64", "double", runtime_dtype::F64, 8, f64},
    {"f16", "float16", "half", runtime_dtype::F16, 2, f16},
    {"bf16", "bfloat16", "", runtime_dtype::BF16, 2, bf16},
    // Types the runtime has no code of its own for move as the bytes of one
    // of the same width (bytesOnly: never reduced).
    {"f8E4M3FN", "float8_e4m3fn", "", runtime_dtype::U8, 1, f8e4m3fn,
     /*bytesOnly=*/true},
    {"f8E5M2", "float8_e5m2", "", runtime_dtype::U8, 1, f8e5m2,
     /*bytesOnly=*/true},
    {"i8", "int8", "", runtime_dtype::I8, 1, integer<8>},
    {"i16", "int16", "short", runtime_dtype::I16, 2, integer<16>},
    {"i32", "int32", "int", runtime_dtype::I32, 4, integer<32>},
    {"i64", "int64", "long", runtime_dtype::I64, 8, integer<64>},
    {"ui8", "uint8", "", runtime_dtype::U8, 1, integer<8, Unsigned>},
    {"ui16", "uint16", "", runtime_dtype::U16, 2, integer<16, Unsigned>},
    {"ui32", "uint32", "", runtime_dtype::U32, 4, integer<32, Unsigned>},
    {"ui64", "uint64", "", runtime_dtype::U64, 8, integer<64, Unsigned>},
    // Moved as bytes (a boolean mask, a comparison's result), not reduced.
    {"i1", "bool", "", runtime_dtype::U8, 1, integer<1>, /*bytesOnly=*/true},
    // MLIR's index (lowered to 64 bits; no PyTorch dtype of its own):
    // moved as i64 elements (an index tensor cast from an i64 one, a
    // lookup's row numbers), not reduced.
    {"index", "", "", runtime_dtype::I64, 8, index,
     /*bytesOnly=*/true},
    {"complex<f16>", "complex32", "chalf", kNoRuntimeDtype, 4, complex<f16>},
    {"complex<f32>", "complex64", "cfloat", kNoRuntimeDtype, 8, complex<f32>},
    {"complex<f64>", "complex128", "cdouble", kNoRuntimeDtype, 16,
     complex<f64>},
    // Signed integers are PyTorch's signed dtypes too; PyTorch names import
    // as the signless types above.
    {"si8", "int8", "", runtime_dtype::I8, 1, integer<8, Signed>,
     /*bytesOnly=*/true},
    {"si16", "int16", "", runtime_dtype::I16, 2, integer<16, Signed>,
     /*bytesOnly=*/true},
    {"si32", "int32", "", runtime_dtype::I32, 4, integer<32, Signed>,
     /*bytesOnly=*/true},
    {"si64", "int64", "", runtime_dtype::I64, 8, integer<64, Signed>,
     /*bytesOnly=*/true},
    {"si1", "bool", "", runtime_dtype::U8, 1, integer<1, Signed>,
     /*bytesOnly=*/true},
};

} // namespace

bool ElementTypeInfo::hasRuntime() const {
  return runtimeDtype != kNoRuntimeDtype;
}

llvm::ArrayRef<ElementTypeInfo> shardc::elementTypes() { return kTable; }

const ElementTypeInfo *shardc::lookupElementType(Type type) {
  if (!type)
    return nullptr;
  for (const ElementTypeInfo &row : kTable)
    if (row.build(type.getContext()) == type)
      return &row;
  return nullptr;
}

const ElementTypeInfo *shardc::lookupTorchDtype(llvm::StringRef name) {
  name.consume_front("torch.");
  if (name.empty())
    return nullptr;
  for (const ElementTypeInfo &row : kTable)
    if (row.torchName == name || row.torchAlias == name)
      return &row;
  return nullptr;
}

std::string shardc::whyNotReducible(Type type) {
  auto name = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    return text;
  };
  if (!isa<IntegerType, FloatType>(type))
    return "the runtime reduces numbers only, not " + name();
  const ElementTypeInfo *row = lookupElementType(type);
  if (!row || !row->hasRuntime())
    return "the runtime does not move " + name();
  if (row->bytesOnly)
    return "the runtime moves " + name() + " as bytes and does not reduce it";
  return "";
}

std::string shardc::runtimeElementTypesText() {
  std::string text;
  for (const ElementTypeInfo &row : kTable)
    if (row.hasRuntime())
      text += (text.empty() ? "" : ", ") + row.mlirName.str();
  return text;
}
