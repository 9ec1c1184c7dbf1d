//===- ToolSupport.h - What every shardc tool's main does first -*- C++ -*-===//
//
// The LLVM libraries the tools link register hundreds of command-line options
// when they load (backend flags: --amdgpu-..., --x86-..., --arm-...). None
// of them means anything to a shardc tool, and listed in --help they bury the
// tool's own. Called first in main, before MLIR's drivers register their
// options, hideLibraryOptions hides every option registered so far but
// --help and --version: they still parse (and --help-hidden lists them).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TOOLS_TOOLSUPPORT_H
#define SHARDC_TOOLS_TOOLSUPPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace shardc {

inline void hideLibraryOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::StringRef name = entry.first;
    if (name.starts_with("help") || name == "version")
      continue;
    entry.second->setHiddenFlag(llvm::cl::Hidden);
  }
}

} // namespace shardc

#endif // SHARDC_TOOLS_TOOLSUPPORT_H
