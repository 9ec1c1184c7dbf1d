//===- ScalarSlices.cpp - Scalars read and written as slices --------------===//
//
// A step of -shard-propagate (ScalarSlices.h).
//
//===----------------------------------------------------------------------===//

#include "ScalarSlices.h"

#include "shardc/Dialect/PartitionContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace shardc;

void shardc::sliceScalarAccesses(ArrayRef<func::FuncOp> funcs) {
  for (func::FuncOp func : funcs) {
    if (func.isExternal())
      continue;
    SmallVector<Operation *> accesses;
    func.walk([&](Operation *op) {
      if (!isa<tensor::ExtractOp, tensor::InsertOp>(op) || enclosingRuleOp(op))
        return;
      auto type = dyn_cast<RankedTensorType>(isa<tensor::ExtractOp>(op)
                                                 ? op->getOperand(0).getType()
                                                 : op->getResult(0).getType());
      // (A tensor of one element is the slice already.)
      if (type && type.getRank() > 0 && !type.getEncoding() &&
          !llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; }))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      auto element = [&](Value tensor) {
        auto type = cast<RankedTensorType>(tensor.getType());
        return RankedTensorType::get(SmallVector<int64_t>(type.getRank(), 1),
                                     type.getElementType());
      };
      auto indices = [&](ValueRange values) {
        return getAsOpFoldResult(SmallVector<Value>(values));
      };
      if (auto extract = dyn_cast<tensor::ExtractOp>(op);
          extract && llvm::any_of(extract.getIndices(), [](Value i) {
            return !getConstantIntValue(i);
          })) {
        // At indices only the run time knows: a lookup of no loops (a
        // linalg.generic of rank 0 whose payload extracts it), which the
        // lookup rules may run masked on each rank's block and sum (one
        // element all-reduced) rather than gather the tensor.
        Value tensor = extract.getTensor();
        Type elementType = extract.getType();
        Value init =
            tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, elementType);
        auto lookup = linalg::GenericOp::create(
            b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
            ArrayRef<AffineMap>{AffineMap::get(b.getContext())},
            ArrayRef<utils::IteratorType>{},
            [&](OpBuilder &nested, Location nestedLoc, ValueRange) {
              Value v = tensor::ExtractOp::create(nested, nestedLoc, tensor,
                                                  extract.getIndices());
              linalg::YieldOp::create(nested, nestedLoc, v);
            });
        Value read = tensor::ExtractOp::create(b, loc, lookup.getResult(0),
                                               ValueRange{});
        extract.getResult().replaceAllUsesWith(read);
        extract.erase();
        continue;
      }
      if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
        // The slice of the element (its rank kept: the slice rules move
        // the window of a cut dim), collapsed to rank 0 and read at no
        // index (no constant made).
        Value tensor = extract.getTensor();
        const int64_t rank = element(tensor).getRank();
        SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
        Value slice = tensor::ExtractSliceOp::create(
            b, loc, element(tensor), tensor, indices(extract.getIndices()),
            ones, ones);
        Value scalar = tensor::CollapseShapeOp::create(
            b, loc, RankedTensorType::get({}, extract.getType()), slice,
            ArrayRef<ReassociationIndices>{});
        Value read = tensor::ExtractOp::create(b, loc, scalar, ValueRange{});
        extract.getResult().replaceAllUsesWith(read);
        extract.erase();
        continue;
      }
      auto insert = cast<tensor::InsertOp>(op);
      Value dest = insert.getDest();
      const int64_t rank = element(dest).getRank();
      SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
      Value scalar = tensor::FromElementsOp::create(
          b, loc, element(dest), ValueRange{insert.getScalar()});
      Value written = tensor::InsertSliceOp::create(
          b, loc, scalar, dest, indices(insert.getIndices()), ones, ones);
      insert.getResult().replaceAllUsesWith(written);
      insert.erase();
    }
  }
}
