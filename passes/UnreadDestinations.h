//===- UnreadDestinations.h - Destinations no op reads ----------*- C++ -*-===//
//
// Private to the passes (-shard-propagate).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_UNREADDESTINATIONS_H
#define SHARDC_PASSES_UNREADDESTINATIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"

namespace shardc {

/// In each of `funcs` (the functions that get layouts): a destination
/// whose elements its op never reads (a linalg op's init its payload does
/// not read and whose map is a permutation of its loops, every loop
/// parallel: linalg.copy, fill, transpose, an elementwise generic; a
/// linalg.pack's or linalg.unpack's dest, all of it written; a
/// tensor.insert_slice's dest that the slice fills) is given as a tensor.empty
/// of its type instead: the same results, and no layout of the tensor it was is
/// then needed there, so nothing moves it (before: a function argument given as
/// the destination was moved into the op's layout, an all_to_all of elements no
/// rank read). Not where the destination is made by tensor.empty already or
/// pinned (shard.constraint), nor in the regions of an op with a rule (they run
/// as written).
void emptyUnreadDestinations(llvm::ArrayRef<mlir::func::FuncOp> funcs);

} // namespace shardc

#endif // SHARDC_PASSES_UNREADDESTINATIONS_H
