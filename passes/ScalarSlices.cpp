//===- ScalarSlices.cpp - Scalars read and written as slices --------------===//
//
// A step of -shard-propagate (ScalarSlices.h).
//
//===----------------------------------------------------------------------===//

#include "ScalarSlices.h"

#include "shardc/Dialect/PartitionContext.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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
      if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
        Value tensor = extract.getTensor();
        const int64_t rank = element(tensor).getRank();
        SmallVector<OpFoldResult> ones(rank, b.getIndexAttr(1));
        Value slice = tensor::ExtractSliceOp::create(
            b, loc, element(tensor), tensor, indices(extract.getIndices()),
            ones, ones);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value read = tensor::ExtractOp::create(b, loc, slice,
                                               SmallVector<Value>(rank, zero));
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
