// Parses a module, plans it with shardc's pass, prints the result: what a
// larger ML compiler does when it embeds shardc.
#include "shardc/Passes/Passes.h"
#include "shardc/Register.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: embed-demo FILE.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  shardc::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(shardc::createShardPlanRedistribute());
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
