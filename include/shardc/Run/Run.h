//===- Run.h - Run a sharded program on MPI ranks and check it --*- C++ -*-===//
//
// What shard-run does, for embedders and tests: JIT-compiles one function of
// an annotated program twice (as written, on whole tensors, and partitioned,
// on each rank's blocks), fills every argument's global tensor with small
// integers derived from the global element index (exact in every dtype), runs
// both on this MPI rank and compares every element of this rank's result
// blocks with the matching element of the whole result.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUN_RUN_H
#define SHARDC_RUN_RUN_H

#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace shardc {
namespace run {

struct RunOptions {
  /// The function to run.
  std::string entry;
  /// Also run the program as written and compare (shard-run --check):
  /// integers exactly, floats within 1e-5 (f16, bf16: 1e-2) of the largest
  /// magnitude of the result, since the sharded program sums in another
  /// order; where an f32 result differs by more, within 8 times the
  /// rounding of the program as written (measured against the same program
  /// in f64).
  bool check = false;
  /// Where to write the plan report of the partitioned program (rank 0
  /// writes it); empty: not written.
  std::string reportFile;
  /// -shard-propagate's options for the partitioned run ("search=greedy",
  /// say; its pass must be registered: shardc::registerAllPasses); empty:
  /// the defaults.
  std::string propagate;
  /// Extra shared libraries for the JIT (the runtime is in the process).
  std::vector<std::string> sharedLibs;
  /// For testing the check: on this rank, the first element of the first
  /// result block is changed before the comparison (-1: none).
  int corruptRank = -1;
  /// Rank 0 says on stderr what a phase (compiling, running, checking) is
  /// doing once it has run this many seconds, again every so often, and how
  /// long it took when it ends; a shorter phase says nothing. 0: every
  /// phase is announced and timed; negative: never.
  double progressAfter = 5;
  /// The size of every dynamic dim ('?') of the entry's arguments in this
  /// run (the program is compiled with the dims dynamic; a result's are
  /// read from the run); -1: none given (an entry with dynamic dims is then
  /// refused).
  int64_t dynamicSize = -1;
  /// The values integer inputs take, intRange[0] to intRange[1]
  /// inclusive (an embedding's ids within its table: --int-range=0:V-1);
  /// floats keep -6 to 6. Unset: -6 to 6 for every type.
  std::optional<std::array<int64_t, 2>> intRange;
  /// The JIT's LLVM optimization level, 0 to 3 (both the IR passes and the
  /// code generator): 0 compiles a small program in about half the time
  /// of 2 (the test suite's choice), 2 makes faster code.
  unsigned optLevel = 2;
};

struct RunOutcome {
  /// False when a result element differs.
  bool matches = true;
  /// The elements of this rank's result blocks compared.
  int64_t elementsChecked = 0;
  /// What this rank received in the program's collectives as it ran, as
  /// the runtime counts it (shardrt_bytes_received): a collective in a loop
  /// counts once per iteration.
  int64_t bytesReceived = 0;
  /// Whether the program's layouts named CUDA devices, run as the CPU
  /// devices of the same ranks (shard-run's buffers are host memory: the same
  /// plan runs through the MPI backend).
  bool cudaOnHost = false;
  /// Whether they ran on this rank's GPU (the runtime has its NCCL backend
  /// and sees a GPU): buffers in CUDA managed memory, collectives on NCCL.
  bool cudaOnDevice = false;
  /// The first mismatch, in words, and how many there were.
  std::string firstMismatch;
  int64_t mismatches = 0;
};

/// The most bytes this process may still allocate: the machine's physical
/// memory, lowered by the process's address-space and data limits
/// (RLIMIT_AS, RLIMIT_DATA, less what the process maps already) and by its
/// cgroup's memory.max (less memory.current) where those are set.
int64_t memoryLimitBytes();

/// Whether `range` is one RunOptions::intRange may be: LO <= HI, both
/// within 32-bit integers (-2^31 <= LO, HI < 2^31).
bool validIntRange(const std::array<int64_t, 2> &range);

/// RunOptions::intRange from its text, "LO:HI" (two integers, a
/// validIntRange); nullopt where the text is not that.
std::optional<std::array<int64_t, 2>> parseIntRange(llvm::StringRef text);

/// Runs `options.entry` of `module` on this rank (MPI must be initialized;
/// every rank of the world calls it). Emits diagnostics and fails when the
/// program cannot be compiled or run: no such function, a non-tensor or
/// dynamic-shaped argument or result, an element type it cannot fill,
/// several blocks on one rank, buffers that this rank's memory cannot hold
/// (memoryLimitBytes; every rank then stops before running anything).
mlir::FailureOr<RunOutcome> runProgram(mlir::ModuleOp module,
                                       const RunOptions &options);

} // namespace run
} // namespace shardc

#endif // SHARDC_RUN_RUN_H
