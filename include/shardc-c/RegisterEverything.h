/*===- shardc-c/RegisterEverything.h - beside all of upstream -----*- C -*-===*\
|*                                                                            *|
|* For embedders that drive MLIR through its C API and want all of upstream   *|
|* MLIR beside shardc in one context: call this in place of                   *|
|* mlirRegisterAllDialects (libMLIRCAPIRegisterEverything), which registers   *|
|* upstream's own `shard` dialect, whose name shardc's dialect takes.         *|
|*                                                                            *|
|*   MlirDialectRegistry registry = mlirDialectRegistryCreate();             *|
|*   shardcRegisterEverything(registry);                                      *|
|*   mlirContextAppendDialectRegistry(context, registry);                     *|
|*   mlirRegisterAllPasses();    // upstream's passes                         *|
|*   shardcRegisterAllPasses();  // ours (shardc-c/Shard.h)                   *|
|*                                                                            *|
|* Link ShardcCAPIRegisterEverything.                                         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SHARDC_C_REGISTER_EVERYTHING_H
#define SHARDC_C_REGISTER_EVERYTHING_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every upstream dialect, extension and interface model that
 * mlirRegisterAllDialects registers except upstream's `shard` dialect, then
 * shardc's dialects (shardc::registerEverything). */
MLIR_CAPI_EXPORTED void shardcRegisterEverything(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif /* SHARDC_C_REGISTER_EVERYTHING_H */
