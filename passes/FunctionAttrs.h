//===- FunctionAttrs.h - Editing every argument's attributes at once -*- C++
//-*-===//
//
// Private to the passes: changes attributes of a function's arguments and
// results in one write per kind. Attributes are uniqued and never freed, so
// setting them one argument at a time (setArgAttr, removeArgAttr) makes a
// new array of every argument's dictionary per call: memory growing as the
// square of the arguments (1.1 GB for a function of 8,000).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_FUNCTIONATTRS_H
#define SHARDC_PASSES_FUNCTIONATTRS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"

namespace shardc {

/// The attribute that pins a function argument's or result's layout, and
/// the one that keeps its global type once partitioned.
constexpr llvm::StringLiteral kLayoutAttr = "shard.layout";
/// -shard-propagate=auto=true: the mesh a function's layouts are chosen on
/// (a #shard.mesh on the func.func), and an argument's batch dim (an
/// integer on the argument), which the search then cuts on the mesh's
/// first axis.
constexpr llvm::StringLiteral kMeshAttr = "shard.mesh";
constexpr llvm::StringLiteral kBatchAttr = "shard.batch";
constexpr llvm::StringLiteral kGlobalAttr = "shard.global";

/// Calls `edit(i, attrs)` for every argument i of `func` (with its
/// attributes), then sets them all at once; the same for the results.
template <typename EditArg, typename EditResult>
void editFunctionAttrs(mlir::func::FuncOp func, EditArg editArg,
                       EditResult editResult) {
  mlir::MLIRContext *ctx = func.getContext();
  auto edited = [&](llvm::SmallVectorImpl<mlir::DictionaryAttr> &all,
                    auto &edit) {
    for (auto [i, attrs] : llvm::enumerate(all)) {
      mlir::NamedAttrList list(attrs);
      edit(static_cast<unsigned>(i), list);
      all[i] = list.getDictionary(ctx);
    }
  };
  llvm::SmallVector<mlir::DictionaryAttr> args, results;
  func.getAllArgAttrs(args);
  func.getAllResultAttrs(results);
  edited(args, editArg);
  edited(results, editResult);
  func.setAllArgAttrs(args);
  func.setAllResultAttrs(results);
}

} // namespace shardc

#endif // SHARDC_PASSES_FUNCTIONATTRS_H
