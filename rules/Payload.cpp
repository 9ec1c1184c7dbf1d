//===- Payload.cpp - What the rules ask of an op's regions ----------------===//

#include "shardc/Rules/Payload.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

bool shardc::dependsOn(Value value, Block &body,
                       const llvm::SmallPtrSetImpl<Value> &args) {
  llvm::SmallVector<Value> stack{value};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!stack.empty()) {
    Value v = stack.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (args.contains(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &body)
      continue;
    for (Value operand : def->getOperands())
      stack.push_back(operand);
    // Values used inside a nested region count too.
    def->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        stack.push_back(operand);
    });
  }
  return false;
}

Value shardc::maskedRead(OpBuilder &b, Location loc, Value table,
                         ValueRange indices, ArrayRef<LocalDim> local) {
  SmallVector<Value> at(indices);
  Value inRange;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (const LocalDim &dim : local) {
    Value index = arith::SubIOp::create(b, loc, at[dim.dim], dim.first);
    Value above =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero);
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        index, dim.size);
    Value here = arith::AndIOp::create(b, loc, above, below);
    inRange = inRange ? arith::AndIOp::create(b, loc, inRange, here) : here;
    at[dim.dim] = index;
  }
  Type element = cast<RankedTensorType>(table.getType()).getElementType();
  auto branch = scf::IfOp::create(b, loc, TypeRange{element}, inRange,
                                  /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
  OpBuilder then = branch.getThenBodyBuilder();
  scf::YieldOp::create(
      then, loc, ValueRange{tensor::ExtractOp::create(then, loc, table, at)});
  OpBuilder other = branch.getElseBodyBuilder();
  scf::YieldOp::create(
      other, loc,
      ValueRange{arith::ConstantOp::create(
          other, loc, identityOf(layout::Placement::Reduce::Sum, element))});
  return branch.getResult(0);
}
