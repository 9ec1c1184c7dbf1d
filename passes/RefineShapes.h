//===- RefineShapes.h - Static shapes before propagation --------*- C++ -*-===//
//
// Private to the passes.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_REFINESHAPES_H
#define SHARDC_PASSES_REFINESHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {

/// Canonicalizes each function of `module` that gets layouts (on its
/// arguments or results, or pinned in its body) and has tensors of dynamic
/// shape, so that the static shapes its tensor.cast, tensor.empty and
/// tensor.dim ops name reach the ops between them (as torch-mlir emits
/// them), and a reshape folding a dynamic dim with others into one beside
/// a linalg op is folded into that op (its loops over the dims unfolded),
/// and so is each of `callees` (those that take layouts from their
/// calls: specializeCallees). Other functions are left as they are.
void refineShapes(mlir::ModuleOp module,
                  llvm::ArrayRef<mlir::func::FuncOp> callees);

} // namespace shardc

#endif // SHARDC_PASSES_REFINESHAPES_H
