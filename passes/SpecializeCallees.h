//===- SpecializeCallees.h - A callee per layout at its calls ---*- C++ -*-===//
//
// Private to the passes (-shard-propagate).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_SPECIALIZECALLEES_H
#define SHARDC_PASSES_SPECIALIZECALLEES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace shardc {

/// Whether `func` gets layouts of its own: shard.layout on an argument or
/// result, a shard.constraint in its body, or a mesh (shard.mesh) for
/// auto=true.
bool hasOwnLayouts(mlir::func::FuncOp func);

/// Gives every call of a function without layouts of its own (a callee
/// with a body, outside any cycle of calls), made from a function that
/// gets layouts (of its own, or, called by no function, through its calls
/// of functions that do) or from such a callee, a callee of its own: the
/// first call
/// keeps the function where it is private and every call of it is one of
/// these; each other call gets a private copy (at most 4096 copies in a
/// module; past them calls keep their callee). Each call's callee is then
/// searched with that call's layouts (docs/partition.md, "Calls"). The
/// copies carry their function's name (shard.specialized_from) until
/// mergeSpecializedCallees. Returns the callees the calls now have.
llvm::SmallVector<mlir::func::FuncOp> specializeCallees(mlir::ModuleOp module);

/// The functions that get layouts: those with layouts of their own,
/// `callees` (specializeCallees' answer), and every function a call path
/// leads from to one of them (an entry calling a kernel that pins its
/// layouts), calls inside a rule op's regions left out. The steps that
/// rewrite ops for sharding before the search (UnreadDestinations.h,
/// ScalarSlices.h) rewrite these.
llvm::SmallVector<mlir::func::FuncOp>
functionsGettingLayouts(mlir::ModuleOp module,
                        llvm::ArrayRef<mlir::func::FuncOp> callees);

/// After propagation: each copy equal to an earlier one of the same
/// function (the same types, layouts and body) is dropped for it, so that
/// one callee is left per distinct layout; then the names the copies carry
/// are dropped.
void mergeSpecializedCallees(mlir::ModuleOp module);

} // namespace shardc

#endif // SHARDC_PASSES_SPECIALIZECALLEES_H
