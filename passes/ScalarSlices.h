//===- ScalarSlices.h - Scalars read and written as slices ------*- C++ -*-===//
//
// Private to the passes (-shard-propagate).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_SCALARSLICES_H
#define SHARDC_PASSES_SCALARSLICES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"

namespace shardc {

/// In each of `funcs` (the functions that get layouts): a tensor.extract of
/// one element of a tensor of rank 1 or more at constant indices becomes
/// the extract_slice of that element (a tensor of one element, of the same
/// rank), collapsed to rank 0, and the extract of it; at indices only the
/// run time knows, a lookup of no loops (a linalg.generic of rank 0 whose
/// payload extracts it: the lookup rules may run it masked on each rank's
/// block and all-reduce one element). A tensor.insert of one element becomes
/// the insert_slice of a tensor of that element (tensor.from_elements): the
/// same values, and the slice rules then move only the element (the rank
/// holding it sends it) and leave the rest of the tensor where it is
/// (before: the tensor was made whole first, all of it gathered on every
/// rank; an insert then sliced it back). Not inside the regions of an op
/// with a rule (a payload's extract is a lookup, ruled with its op), nor
/// of a tensor of one element (rank 0, or every dim 1: the slice itself).
void sliceScalarAccesses(llvm::ArrayRef<mlir::func::FuncOp> funcs);

} // namespace shardc

#endif // SHARDC_PASSES_SCALARSLICES_H
