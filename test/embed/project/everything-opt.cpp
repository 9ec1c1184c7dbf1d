// An opt tool as most ML compilers write theirs: every upstream dialect,
// extension and pass, with shardc's beside them (shardc::registerEverything
// in place of mlir::registerAllDialects and mlir::registerAllExtensions,
// which would register upstream's own `shard` dialect too).
#include "shardc/Register.h"
#include "shardc/RegisterEverything.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  shardc::registerEverything(registry);
  mlir::registerAllPasses();
  shardc::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "shardc beside all of upstream MLIR", registry));
}
