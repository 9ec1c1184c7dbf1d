//===- shard-lsp-server.cpp - A language server for shard IR --------------===//
//
// MLIR's language server (MlirLspServerLib, the library mlir-lsp-server is
// built on) with every dialect shard-opt registers: an editor running it
// (VS Code's MLIR extension: its "mlir.server_path" setting) parses shardc
// files as shard-opt does, with their diagnostics, hovers, definitions and
// references.
//
//===----------------------------------------------------------------------===//

#include "shardc/Register.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  shardc::registerAllDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry)) ? 1 : 0;
}
