//===- Shard.cpp - The shard dialect for the MLIR C API -------------------===//

#include "shardc-c/Shard.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Register.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Shard, shard, shardc::ShardDialect)

void shardcRegisterAllDialects(MlirDialectRegistry registry) {
  shardc::registerAllDialects(*unwrap(registry));
}

void shardcRegisterAllPasses(void) { shardc::registerAllPasses(); }
