//===- RegisterEverything.cpp - shardc beside all of upstream, C API ------===//

#include "shardc-c/RegisterEverything.h"

#include "shardc/RegisterEverything.h"

#include "mlir/CAPI/IR.h"

void shardcRegisterEverything(MlirDialectRegistry registry) {
  shardc::registerEverything(*unwrap(registry));
}
