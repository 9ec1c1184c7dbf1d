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

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace shardc {

inline void hideLibraryOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::StringRef name = entry.first;
    if (name.starts_with("help") || name == "version")
      continue;
    entry.second->setHiddenFlag(llvm::cl::Hidden);
  }
}

/// mlir::openInputFile for a tool's input: "-" (stdin) or a regular file. A
/// device (/dev/zero) or a directory would be read without end or fail
/// obscurely; they are refused, with `error` saying so.
inline std::unique_ptr<llvm::MemoryBuffer>
openRegularInputFile(llvm::StringRef path, std::string *error) {
  llvm::sys::fs::file_status status;
  if (path != "-" && !llvm::sys::fs::status(path, status) &&
      !llvm::sys::fs::is_regular_file(status)) {
    *error = "cannot read '" + path.str() + "': not a regular file";
    return nullptr;
  }
  return mlir::openInputFile(path, error);
}

} // namespace shardc

#endif // SHARDC_TOOLS_TOOLSUPPORT_H
