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
|* shard-propagate and shard-spmd-partition. Then one context holds all of    *|
|* upstream but its `shard` and shardc's (shardcRegisterEverything), every    *|
|* dialect loaded, and one pipeline runs shardc's passes and upstream's       *|
|* (one-shot bufferization of a vector.transfer_read, canonicalize, cse).     *|
|* Exits non-zero on any failure.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "shardc-c/RegisterEverything.h"
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

/* Ours beside upstream's vector dialect: a tensor distributed and gathered
 * (shard-plan-redistribute plans the all_gather, bufferization makes it a
 * runtime call), then read by vector.transfer_read, which bufferizes only
 * with the vector dialect's bufferization model registered. */
static const char *kMixed =
    "!s = !shard.tensor<4xf32, #shard.chunk<dim = 0, placements = "
    "[\"rank:0\", \"rank:1\"]>>\n"
    "func.func @f() -> vector<4xf32> {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %pad = arith.constant 0.0 : f32\n"
    "  %t = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
    "  %s = shard.distribute %t from rank 0 : tensor<4xf32> -> !s\n"
    "  %g = shard.all_gather %s : !s -> tensor<4xf32>\n"
    "  %v = vector.transfer_read %g[%c0], %pad : tensor<4xf32>, vector<4xf32>\n"
    "  return %v : vector<4xf32>\n"
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

  MlirContext all =
      contextWith(shardcRegisterEverything, mlirGetDialectHandle__shardc__());
  mlirContextLoadAllAvailableDialects(all);
  /* As many as upstream's: its dialects, `shard` being ours here. */
  if (mlirContextGetNumRegisteredDialects(all) !=
      mlirContextGetNumRegisteredDialects(up))
    return fail("shardcRegisterEverything registers other dialects than "
                "mlirRegisterAllDialects");
  if (run(all, kMixed,
          "builtin.module(shard-propagate,shard-spmd-partition,"
          "shard-plan-redistribute,canonicalize,cse,"
          "one-shot-bufferize{bufferize-function-boundaries=1},canonicalize,"
          "cse)",
          "shardc's passes and upstream's bufferization in one pipeline"))
    return 1;
  if (!strstr(printed, "vector.transfer_read") || !strstr(printed, "memref<") ||
      !strstr(printed, "shardrt_"))
    return fail("the pipeline left no transfer_read of a buffer after a "
                "runtime call");

  mlirContextDestroy(up);
  mlirContextDestroy(ours);
  mlirContextDestroy(all);
  printf("beside-upstream: upstream's passes and dialects and shardc's "
         "registered in one process; each shard dialect ran its passes; "
         "shardcRegisterEverything put all of upstream but its shard beside "
         "shardc in one context and one pipeline\n");
  return 0;
}
