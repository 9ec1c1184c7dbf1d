//===- Shard.cpp - The shard dialect for the MLIR C API -------------------===//

#include "shardc-c/Shard.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Register.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

// The handle is mlirGetDialectHandle__shardc__: upstream's libMLIRCAPIShard
// defines mlirGetDialectHandle__shard__ for its own dialect of the same
// name, and an embedder may link both.
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Shardc, shardc, shardc::ShardDialect)

void shardcRegisterAllDialects(MlirDialectRegistry registry) {
  shardc::registerAllDialects(*unwrap(registry));
}

void shardcRegisterAllPasses(void) { shardc::registerAllPasses(); }
