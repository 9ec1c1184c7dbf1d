/*===- shardc-c/Shard.h - The shard dialect for the MLIR C API ----*- C -*-===*\
|*                                                                            *|
|* For embedders that drive MLIR through its C API (and its Python and other  *|
|* bindings): the dialect's handle, and one call each to register everything  *|
|* the passes produce and the passes themselves.                              *|
|*                                                                            *|
|*   MlirDialectRegistry registry = mlirDialectRegistryCreate();             *|
|*   shardcRegisterAllDialects(registry);                                     *|
|*   mlirContextAppendDialectRegistry(context, registry);                     *|
|*   shardcRegisterAllPasses();  // for textual pipelines                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SHARDC_C_SHARD_H
#define SHARDC_C_SHARD_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__shardc__(): the `shard` dialect. Like upstream MLIR's
 * own Shard dialect it is named `shard`: never load both in one context. Its
 * handle is named after the project, so that a program may link upstream's
 * C API (mlirGetDialectHandle__shard__, libMLIRCAPIShard) beside this one. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Shardc, shardc);

/* Registers the shard dialect and the dialects its passes produce (affine,
 * arith, bufferization, cf, func, index, linalg, llvm, math, memref,
 * ml_program, scf, tensor, tosa), with their bufferization models, the SPMD
 * collectives' and the sharding rules of upstream ops. */
MLIR_CAPI_EXPORTED void shardcRegisterAllDialects(MlirDialectRegistry registry);

/* Registers the shard passes and the `shard-to-llvm` pipeline, for
 * mlirParsePassPipeline. No name is one of upstream MLIR's passes, so this may
 * follow mlirRegisterAllPasses(). */
MLIR_CAPI_EXPORTED void shardcRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* SHARDC_C_SHARD_H */
