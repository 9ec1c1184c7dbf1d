//===- Payload.h - What the rules ask of an op's regions --------*- C++ -*-===//
//
// For the rules of ops with regions (a linalg payload, tensor.pad's body):
// what a value computed there depends on, and the masked read of a table
// cut over the ranks (an embedding lookup, vocab-parallel).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_PAYLOAD_H
#define SHARDC_RULES_PAYLOAD_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace shardc {

/// Whether `value`, computed in `body` (or its nested regions), depends on
/// one of `args`.
bool dependsOn(mlir::Value value, mlir::Block &body,
               const llvm::SmallPtrSetImpl<mlir::Value> &args);

/// A dim of a table that this rank holds a block of: the block's first
/// index and size there.
struct LocalDim {
  unsigned dim;
  mlir::Value first, size;
};

/// The element of `table` (this rank's block) at the global `indices`, read
/// at the local index along each of `local`'s dims, and 0 (a sum's
/// identity) where an index falls outside this rank's block there, which is
/// then not read: each rank's part of a lookup whose parts are summed.
mlir::Value maskedRead(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value table, mlir::ValueRange indices,
                       llvm::ArrayRef<LocalDim> local);

} // namespace shardc

#endif // SHARDC_RULES_PAYLOAD_H
