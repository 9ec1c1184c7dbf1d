//===- ElementTypesTest.cpp - The one element-type table ------------------===//
//
// The table agrees with MLIR (names, sizes), with PyTorch's names, and with
// the runtime: every type it says the runtime moves has the runtime's MLIR
// entry points, under the suffix the lowering calls.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/ElementTypes.h"
#include "shardc/Dialect/Shard.h"

#include "shardrt.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <set>

using namespace shardc;

namespace {

std::string printed(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

TEST(ElementTypes, RowsAgreeWithMLIR) {
  mlir::MLIRContext context;
  std::set<std::string> names;
  for (const ElementTypeInfo &row : elementTypes()) {
    mlir::Type type = row.build(&context);
    EXPECT_EQ(printed(type), row.mlirName.str());
    EXPECT_EQ(lookupElementType(type), &row) << row.mlirName.str();
    EXPECT_EQ(elementBytes(type), row.bytes) << row.mlirName.str();
    EXPECT_TRUE(names.insert(row.mlirName.str()).second) << row.mlirName.str();
  }
  EXPECT_EQ(lookupElementType(mlir::IntegerType::get(&context, 4)), nullptr);
  EXPECT_EQ(lookupElementType(mlir::Type()), nullptr);
}

TEST(ElementTypes, PyTorchNamesImportAsSignlessTypes) {
  mlir::MLIRContext context;
  struct Case {
    const char *name, *type;
  } cases[] = {{"float32", "f32"},
               {"torch.float", "f32"},
               {"half", "f16"},
               {"torch.bfloat16", "bf16"},
               {"int8", "i8"},
               {"long", "i64"},
               {"uint8", "ui8"},
               {"bool", "i1"},
               {"cfloat", "complex<f32>"}};
  for (const Case &c : cases) {
    const ElementTypeInfo *row = lookupTorchDtype(c.name);
    ASSERT_NE(row, nullptr) << c.name;
    EXPECT_EQ(row->mlirName.str(), c.type) << c.name;
  }
  for (const char *unknown : {"", "torch.", "float128", "Float32", "torch"})
    EXPECT_EQ(lookupTorchDtype(unknown), nullptr) << unknown;
  // Every row with a PyTorch name (all but index) leads back to a row of
  // the same name.
  for (const ElementTypeInfo &row : elementTypes()) {
    if (row.torchName.empty()) {
      EXPECT_EQ(row.mlirName.str(), "index");
      continue;
    }
    const ElementTypeInfo *back = lookupTorchDtype(row.torchName);
    ASSERT_NE(back, nullptr) << row.torchName.str();
    EXPECT_EQ(back->torchName, row.torchName);
  }
}

// What the lowering calls exists in the runtime, for every type the table
// says the runtime moves, with distinct dtype codes.
TEST(ElementTypes, RuntimeEntryPointsExist) {
  ASSERT_NE(shardrt_backends(), nullptr); // links the runtime
  std::set<int32_t> codes;
  int moved = 0;
  for (const ElementTypeInfo &row : elementTypes()) {
    if (!row.hasRuntime())
      continue;
    // A type moved as bytes shares the code of a type of its width.
    if (row.bytesOnly) {
      const ElementTypeInfo *carrier = nullptr;
      for (const ElementTypeInfo &other : elementTypes())
        if (!other.bytesOnly && other.runtimeDtype == row.runtimeDtype)
          carrier = &other;
      ASSERT_NE(carrier, nullptr) << row.mlirName.str();
      EXPECT_EQ(carrier->bytes, row.bytes) << row.mlirName.str();
    } else
      EXPECT_TRUE(codes.insert(row.runtimeDtype).second) << row.mlirName.str();
    moved += row.bytesOnly ? 0 : 1;
    EXPECT_GE(row.runtimeDtype, SHARDRT_F32);
    EXPECT_LE(row.runtimeDtype, SHARDRT_U64);
    for (const char *op :
         {"all_gather", "scatter", "redistribute", "redistribute_reduce"}) {
      std::string symbol =
          std::string("shardrt_mlir_") + op + "_" + row.runtimeSuffix().str();
      EXPECT_NE(dlsym(RTLD_DEFAULT, symbol.c_str()), nullptr) << symbol;
    }
  }
  EXPECT_EQ(moved, SHARDRT_U64 + 1); // every shardrt_dtype has a row
  EXPECT_EQ(runtimeElementTypesText(),
            "f32, f64, f16, bf16, f8E4M3FN, f8E5M2, i8, i16, i32, i64, ui8, "
            "ui16, ui32, ui64, i1, index, si8, si16, si32, si64, si1");
}

} // namespace
