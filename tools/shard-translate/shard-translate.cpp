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
                   arg.starts_with("export-sharded-metadata");
    help |= arg.starts_with("help") || arg == "version";
  }
  if (!translation && !help) {
    llvm::errs() << "usage: shard-translate (--import-sharded-metadata "
                    "FILE.json | --export-sharded-metadata FILE.mlir) "
                    "[-o OUT]; --help for more\n";
    return 1;
  }
  // Exported modules may hold any IR shard-opt handles.
  shardc::registerShardedMetadataTranslations(shardc::registerAllDialects);
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv,
             "shard-translate: sharded tensor metadata (JSON) <-> IR\n"))
             ? 1
             : 0;
}
