//===- SliceProducers.h - Slices computed where the blocks are --*- C++ -*-===//
//
// Private to the passes.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PASSES_SLICEPRODUCERS_H
#define SHARDC_PASSES_SLICEPRODUCERS_H

#include "mlir/IR/BuiltinOps.h"

namespace shardc {

/// In each function of `module` that gets layouts: a linalg op computed
/// from a tensor laid out in several blocks per rank (a layout that is not
/// a mesh layout, such as a fused q|k|v weight whose blocks are each
/// rank's heads of q, k and v), whose result is only read through disjoint
/// unit-stride slices, computes each slice from the slices of its operands
/// instead (TilingInterface::generateResultTileValue): the same elements,
/// computed once each, so that each slice can be computed from the blocks
/// where they are. Repeated up the chain of such ops.
void sliceProducers(mlir::ModuleOp module);

} // namespace shardc

#endif // SHARDC_PASSES_SLICEPRODUCERS_H
