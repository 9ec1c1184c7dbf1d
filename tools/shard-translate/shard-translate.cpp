//===- shard-translate.cpp - The shard dialect's translate tool -----------===//
//
// mlir-translate for shard IR: sharded tensor metadata as JSON (PyTorch's
// field names) in and out.
//
//   shard-translate --import-sharded-metadata x.json   # JSON -> IR
//   shard-translate --export-sharded-metadata x.mlir   # IR -> JSON
//
//===----------------------------------------------------------------------===//

#include "shardc/Register.h"
#include "shardc/Translate/ShardedMetadata.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  // Exported modules may hold any IR shard-opt handles.
  shardc::registerShardedMetadataTranslations(shardc::registerAllDialects);
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv,
             "shard-translate: sharded tensor metadata (JSON) <-> IR\n"))
             ? 1
             : 0;
}
