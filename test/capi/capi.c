/*===- capi.c - The shard dialect through MLIR's C API --------------------===*\
|*                                                                            *|
|* Registers the dialect and passes through shardc-c/Shard.h, parses a module *|
|* with sharded tensors, verifies it, plans it with a textual pipeline and    *|
|* checks the SPMD collective in the printed result; a bad spec is rejected.  *|
|* Exits non-zero on any failure.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "shardc-c/Shard.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

static const char *kTestName = "capi";
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kModule =
    "!s = !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = "
    "[\"rank:0\", \"rank:1\", \"rank:2\", \"rank:3\"]>>\n"
    "func.func @gather(%s: !s) -> tensor<6x10xf32> {\n"
    "  %t = shard.all_gather %s : !s -> tensor<6x10xf32>\n"
    "  return %t : tensor<6x10xf32>\n"
    "}\n";

/* Blocks 0 and 1 overlap: the type verifier rejects it. */
static const char *kBad =
    "func.func @bad(%s: !shard.tensor<4xf32, #shard.enumerable<["
    "{offsets = [0], sizes = [3], placement = \"rank:0\"}, "
    "{offsets = [2], sizes = [2], placement = \"rank:1\"}]>>) {\n"
    "  return\n"
    "}\n";

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  shardcRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirDialect shard =
      mlirDialectHandleLoadDialect(mlirGetDialectHandle__shardc__(), ctx);
  if (mlirDialectIsNull(shard))
    return fail("the shard dialect did not load");
  MlirStringRef ns = mlirDialectGetNamespace(shard);
  if (ns.length != 5 || strncmp(ns.data, "shard", 5) != 0)
    return fail("the dialect's namespace is not 'shard'");
  shardcRegisterAllPasses();

  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module))
    return fail("the module did not parse");
  MlirOperation op = mlirModuleGetOperation(module);
  if (!mlirOperationVerify(op))
    return fail("the module did not verify");

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("builtin.module(shard-plan-redistribute)"),
      append, NULL);
  if (mlirLogicalResultIsFailure(parsed))
    return fail("the pass pipeline did not parse");
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op)))
    return fail("shard-plan-redistribute failed");
  used = 0;
  mlirOperationPrint(op, append, NULL);
  if (!strstr(printed, "shard.spmd.all_gather %arg0 over world from"))
    return fail("the planned module has no shard.spmd.all_gather");
  if (strstr(printed, "shard.all_gather "))
    return fail("the global all_gather is still there");

  /* A spec whose blocks overlap: parsing fails (the diagnostic goes to the
   * context's handler). */
  MlirModule bad =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kBad));
  if (!mlirModuleIsNull(bad))
    return fail("overlapping blocks were accepted");

  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  printf("capi: the shard dialect registered, parsed, verified and planned "
         "through MLIR's C API\n");
  return 0;
}
