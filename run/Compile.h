//===- Compile.h - shard-run's JIT compilation (private) -----------------===//
//
// What shard-run compiles: the program as written (on whole tensors) or
// partitioned as -shard-propagate and -shard-spmd-partition make it,
// lowered to LLVM and JIT-compiled; and the runtime's own functions it
// calls. Run.cpp runs and checks what this compiles.
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUN_COMPILE_H
#define SHARDC_RUN_COMPILE_H

#include "shardc/Dialect/Shard.h"
#include "shardc/Run/Run.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/DynamicLibrary.h"

#include <memory>
#include <string>
#include <vector>

namespace shardc::run::detail {

/// The runtime's functions shard-run calls itself (shardrt.h), found in
/// this process (the runtime linked into the tool: shardrt, or the
/// simulated device's): its memory, and its count of received bytes.
struct RuntimeSymbols {
  void *(*alloc)(size_t) = nullptr;
  void (*free)(void *) = nullptr;
  int (*cudaDevices)() = nullptr;
  int64_t (*bytesReceived)() = nullptr;

  static const RuntimeSymbols &get() {
    static const RuntimeSymbols m = [] {
      RuntimeSymbols m;
      // The process's own symbols (and its libraries') become searchable.
      llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
      auto find = [](const char *name) {
        return llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name);
      };
      m.alloc = reinterpret_cast<void *(*)(size_t)>(
          find("_mlir_memref_to_llvm_alloc"));
      m.free =
          reinterpret_cast<void (*)(void *)>(find("_mlir_memref_to_llvm_free"));
      m.cudaDevices = reinterpret_cast<int (*)()>(find("shardrt_cuda_devices"));
      m.bytesReceived =
          reinterpret_cast<int64_t (*)()>(find("shardrt_bytes_received"));
      return m;
    }();
    return m;
  }
  /// Whether CUDA layouts run on this rank's GPU: the runtime has its NCCL
  /// backend and sees a GPU.
  bool gpu() const { return alloc && free && cudaDevices && cudaDevices() > 0; }
};

/// A module compiled for the JIT, with the entry's signature.
struct Compiled {
  std::unique_ptr<mlir::ExecutionEngine> engine;
  mlir::FunctionType type;
  /// After partitioning: the global types of the entry's arguments and
  /// results (null where not a tensor with a layout).
  std::vector<ShardedTensorType> argGlobal, resultGlobal;
  /// The largest rank any layout of the partitioned program names.
  int64_t largestRank = -1;
  /// Whether its layouts named CUDA devices, run on host buffers.
  bool cudaOnHost = false;
  /// Whether they run on the GPU: buffers in the runtime's CUDA managed
  /// memory (--shard-to-llvm's device-alloc), collectives on NCCL.
  bool onDevice = false;
  /// The functions the program declares without a body (before lowering:
  /// not the runtime's), for call()'s message where the JIT finds one
  /// nowhere.
  std::vector<std::string> declared;
};

/// Whether the program as written communicates (global shard ops, SPMD
/// collectives): then it runs on every rank.
bool writtenCommunicates(mlir::ModuleOp module);

/// The entry's type in this run: its tensors' dynamic dims of size `size`.
mlir::FunctionType concreteType(mlir::FunctionType type, int64_t size);

/// `module`'s entry (options.entry) compiled for the JIT: as written
/// (`partitioned` false: layouts stripped, f32 widened where `widen`) or
/// propagated and partitioned on this rank (its plan report to `report`).
mlir::FailureOr<Compiled> compile(mlir::ModuleOp module,
                                  const RunOptions &options, bool partitioned,
                                  const std::string &report,
                                  bool widen = false);

} // namespace shardc::run::detail

#endif
