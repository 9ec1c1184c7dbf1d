//===- ShardDialect.cpp - The shard dialect -------------------------------===//

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace shardc;

#include "shardc/Dialect/ShardDialect.cpp.inc"

void ShardDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "shardc/Dialect/ShardOps.cpp.inc"
      >();
}
