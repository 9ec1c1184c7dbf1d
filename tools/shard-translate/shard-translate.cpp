//===- shard-translate.cpp - The shard dialect's translate tool -----------===//
//
// mlir-translate for shard IR: sharded tensor metadata as JSON (PyTorch's
// field names) in and out, and programs annotated for upstream MLIR's own
// shard dialect in.
//
//   shard-translate --import-sharded-metadata x.json   # JSON -> IR
//   shard-translate --export-sharded-metadata x.mlir   # IR -> JSON
//   shard-translate --import-upstream-shard u.mlir     # upstream's -> ours
//
//===----------------------------------------------------------------------===//

#include "shardc/Register.h"
#include "shardc/Translate/ImportUpstream.h"
#include "shardc/Translate/ShardedMetadata.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include "../ToolSupport.h"

int main(int argc, char **argv) {
  shardc::hideLibraryOptions();
  // Without a translation there is nothing to do: one line says what to
  // give (MLIR's driver would complain twice about a missing option).
  bool translation = false, help = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = llvm::StringRef(argv[i]).ltrim('-');
    translation |= arg.starts_with("import-sharded-metadata") ||
                   arg.starts_with("export-sharded-metadata") ||
                   arg.starts_with("import-upstream-shard");
    help |= arg.starts_with("help") || arg == "version";
  }
  if (!translation && !help) {
    llvm::errs() << "usage: shard-translate (--import-sharded-metadata "
                    "FILE.json | --export-sharded-metadata FILE.mlir | "
                    "--import-upstream-shard FILE.mlir) [-o OUT]; --help for "
                    "more\n";
    return 1;
  }
  // Exported modules may hold any IR shard-opt handles.
  shardc::registerShardedMetadataTranslations(shardc::registerAllDialects);
  shardc::registerUpstreamShardImport();
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv,
             "shard-translate: sharded tensor metadata (JSON) <-> IR; "
             "upstream's shard annotations -> shardc's\n"))
             ? 1
             : 0;
}
