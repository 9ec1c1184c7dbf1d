/*===- beside-upstream.c - shardc and upstream's C API in one program -----===*\
|*                                                                            *|
|* An embedder that drives MLIR through its C API, as MLIR's Python bindings  *|
|* do, links upstream's whole C API (libMLIRCAPIRegisterEverything, which     *|
|* brings upstream's Shard dialect and its handle mlirGetDialectHandle__shard__)
*|
|* and shardc's, registers all of upstream's passes and dialects, then        *|
|* shardc's passes. Nothing may abort or fail to link: every global name      *|
|* differs (pass names, C symbols). Then each dialect named `shard` works in  *|
|* a context of its own: upstream's runs its shard-partition, ours its        *|
|* shard-propagate and shard-spmd-partition. Exits non-zero on any failure.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "shardc-c/Shard.h"

#include "mlir-c/Dialect/Shard.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

static const char *kTestName = "beside-upstream";
#include "support.h"

/* A context with the dialects `registerDialects` registers, and the one of
 * `handle` loaded. */
static MlirContext contextWith(void (*registerDialects)(MlirDialectRegistry),
                               MlirDialectHandle handle) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  registerDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirDialectHandleLoadDialect(handle, ctx);
  return ctx;
}

/* Runs `pipeline` on `source` in `ctx`; the printed result lands in
 * `printed`. */
static int run(MlirContext ctx, const char *source, const char *pipeline,
               const char *what) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module))
    return fail(what);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  used = 0;
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), append, NULL);
  if (mlirLogicalResultIsFailure(parsed))
    return fail(what);
  MlirOperation op = mlirModuleGetOperation(module);
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op)))
    return fail(what);
  used = 0;
  mlirOperationPrint(op, append, NULL);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return 0;
}

/* Upstream's Shard dialect: a grid and a sharded function argument. */
static const char *kUpstream =
    "shard.grid @grid(shape = 2)\n"
    "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding\n"
    "  %b = shard.shard %a to %s : tensor<4xf32>\n"
    "  %c = shard.shard %b to %s annotate_for_users : tensor<4xf32>\n"
    "  return %c : tensor<4xf32>\n"
    "}\n";

/* Ours: an argument sharded on a mesh of 2, returned replicated. */
static const char *kOurs =
    "#m = #shard.mesh<shape = [2]>\n"
    "func.func @f(%a: tensor<4xf32> {shard.layout = #shard.placements<mesh = "
    "#m, placements = [S(0)]>}) -> (tensor<4xf32> {shard.layout = "
    "#shard.placements<mesh = #m, placements = [R]>}) {\n"
    "  return %a : tensor<4xf32>\n"
    "}\n";

int main(void) {
  mlirRegisterAllPasses();
  shardcRegisterAllPasses();

  MlirContext up =
      contextWith(mlirRegisterAllDialects, mlirGetDialectHandle__shard__());
  if (run(up, kUpstream, "builtin.module(func.func(shard-partition))",
          "upstream's shard-partition on upstream's Shard dialect"))
    return 1;
  if (!strstr(printed, "tensor<2xf32>"))
    return fail("upstream's shard-partition left no local tensor<2xf32>");

  MlirContext ours =
      contextWith(shardcRegisterAllDialects, mlirGetDialectHandle__shardc__());
  if (run(ours, kOurs, "builtin.module(shard-propagate,shard-spmd-partition)",
          "shardc's shard-propagate and shard-spmd-partition"))
    return 1;
  if (!strstr(printed, "shard.spmd.all_gather"))
    return fail("shardc's shard-spmd-partition left no shard.spmd.all_gather");

  mlirContextDestroy(up);
  mlirContextDestroy(ours);
  printf("beside-upstream: upstream's passes and dialects and shardc's "
         "registered in one process; each shard dialect ran its passes\n");
  return 0;
}
