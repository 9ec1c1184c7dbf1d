//===- shard-run.cpp - Run a sharded program on MPI ranks and check it ----===//
//
//   mpirun -np N shard-run PROGRAM.mlir --entry FN --check [--report R.json]
//   mpirun -np N shard-run P1.mlir P2.mlir --entry F,G --check
//
// Runs FN partitioned on this rank's blocks (and, with --check, as written
// on whole tensors) and prints one verdict line per rank: whether every
// element of its result blocks matches, and the bytes it received (as the
// runtime counted them while the program ran). Several programs and
// entries run one after the other in one launch (each entry of each
// program; each line then names them). Exits non-zero on any rank's
// mismatch or error (the library: shardc/Run/Run.h).
//
//===----------------------------------------------------------------------===//

#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Register.h"
#include "shardc/Run/Run.h"
#include "shardrt.h"

#include "../ToolSupport.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace cl = llvm::cl;

/// Prints every rank's `line` on rank 0, in rank order (a rank that failed
/// has none: its errors went to stderr).
static void printInRankOrder(const std::string &line, int rank) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int length = static_cast<int>(line.size());
  std::vector<int> lengths(rank == 0 ? size : 0), offsets(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
             MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    for (int r = 0, at = 0; r < size; at += lengths[r], ++r)
      offsets[r] = at;
    all.resize(size ? offsets.back() + lengths.back() : 0);
  }
  MPI_Gatherv(line.data(), length, MPI_CHAR, all.data(), lengths.data(),
              offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::fwrite(all.data(), 1, all.size(), stdout);
    std::fflush(stdout);
  }
}

/// stderr, buffered: initialized before the handler that writes to it.
struct DiagnosticsStream {
  llvm::raw_fd_ostream out{2, /*shouldClose=*/false, /*unbuffered=*/false};
};

/// Diagnostics that point into a program's text, each leaving in one write
/// to stderr: every rank may report the same error at once, and the pieces
/// of unbuffered writes interleaved mid-line.
class WholeDiagnostics : private DiagnosticsStream,
                         public mlir::SourceMgrDiagnosticHandler {
public:
  WholeDiagnostics(llvm::SourceMgr &sources, mlir::MLIRContext *context)
      : mlir::SourceMgrDiagnosticHandler(sources, context, out) {
    out.SetBufferSize(1 << 16);
    setHandler([this](mlir::Diagnostic &diagnostic) {
      emitDiagnostic(diagnostic);
      out.flush();
      return mlir::success();
    });
  }
};

/// One run's verdict line for this rank: `label` names the program and
/// entry where one launch runs several.
static std::string verdictLine(const shardc::run::RunOutcome &outcome,
                               bool check, const std::string &entry,
                               const std::string &label, int rank) {
  char text[512];
  if (!check)
    std::snprintf(text, sizeof text,
                  "shard-run: %srank %d: ran @%s, received %lld bytes\n",
                  label.c_str(), rank, entry.c_str(),
                  static_cast<long long>(outcome.bytesReceived));
  else if (outcome.matches)
    std::snprintf(text, sizeof text,
                  "shard-run: %srank %d: OK, %lld elements checked, received "
                  "%lld bytes\n",
                  label.c_str(), rank,
                  static_cast<long long>(outcome.elementsChecked),
                  static_cast<long long>(outcome.bytesReceived));
  else
    std::snprintf(text, sizeof text,
                  "shard-run: %srank %d: MISMATCH, %lld of %lld elements "
                  "differ; first: %s\n",
                  label.c_str(), rank,
                  static_cast<long long>(outcome.mismatches),
                  static_cast<long long>(outcome.elementsChecked),
                  outcome.firstMismatch.c_str());
  return text;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // A program with dynamic dims, or slices or elements at run-time offsets
  // or indices, checks their extents as it runs; a failed check stops the rank
  // (abort) after naming the op and its location. Its message goes to stdout,
  // which abort does not flush: line by line.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  llvm::setBugReportMsg(
      "shard-run stopped. If 'ERROR: Runtime op verification failed' is "
      "printed above, the program is not valid at this run's sizes (a "
      "dynamic dim contradicting another at this --dynamic-size, or a slice "
      "or an element at a run-time offset or index past its tensor's end): "
      "the op and its location are named there. If 'ERROR: the program's "
      "own assertion failed' is printed above, a cf.assert of the program "
      "(torch-mlir checks its inputs so) failed on this run's inputs "
      "(shard-run's values: -6 to 6, or --int-range's): its message and "
      "location are "
      "there. If the rank stopped on a floating point exception (SIGFPE), "
      "the program divided an integer by zero on this run's inputs "
      "(shard-run's values include 0: --int-range=1:7 avoids it). "
      "Otherwise this is a crash of shard-run: please report it "
      "with the backtrace below.\n");
  shardc::hideLibraryOptions();
  // Registered after the libraries' options are hidden: --help lists these.
  cl::list<std::string> inputFiles(
      cl::Positional, cl::desc("<program.mlir>..."), cl::OneOrMore);
  cl::list<std::string> entries(
      "entry",
      cl::desc("The function to run (several: comma-separated or repeated; "
               "each runs in every program, in turn; one of a nested module "
               "as MODULE::FN, that module run as the program)"),
      cl::OneOrMore, cl::CommaSeparated);
  cl::opt<bool> check("check",
                      cl::desc("Also run the program as written on whole "
                               "tensors and compare every element"));
  cl::opt<std::string> report(
      "report", cl::desc("Write the plan report of the partitioned "
                         "program (JSON) to this file (one program and "
                         "entry)"));

  cl::opt<std::string> propagate(
      "propagate",
      cl::desc("-shard-propagate's options for the partitioned run, as "
               "shard-opt takes them (\"search=greedy\", "
               "\"memory-budget=65536\")"));

  cl::opt<int> corruptRank(
      "corrupt-rank", cl::Hidden, cl::init(-1),
      cl::desc("For testing the check: change one element of this rank's "
               "first result block"));

  cl::opt<double> progressAfter(
      "progress-after", cl::init(5.0),
      cl::desc("Rank 0 says on stderr what a phase (compiling, running, "
               "checking) is doing once it has run this many seconds (5 by "
               "default), and how long it took; 0: every phase; negative: "
               "never"));

  cl::opt<unsigned> optLevel(
      "opt-level", cl::init(2),
      cl::desc("The JIT's LLVM optimization level, 0 to 3 (2 by default; 0 "
               "compiles a small program in about half the time)"));

  cl::opt<int64_t> dynamicSize(
      "dynamic-size", cl::init(-1),
      cl::desc("The size of every dynamic dim ('?') of the entry's "
               "arguments in this run (a result's are read from the run); "
               "the program is compiled with them dynamic"));

  cl::opt<std::string> intRange(
      "int-range", cl::value_desc("LO:HI"),
      cl::desc("The values integer inputs take, LO to HI "
               "inclusive (an embedding's ids within its table: 0:V-1); "
               "floats keep -6 to 6 (the default for every type)"));

  cl::ParseCommandLineOptions(
      argc, argv,
      "shard-run: runs a sharded program's function on MPI ranks and checks "
      "it against the program as written\n");
  if (!std::isfinite(progressAfter)) {
    std::fprintf(stderr,
                 "shard-run: --progress-after takes a number of seconds, "
                 "got %g\n",
                 static_cast<double>(progressAfter));
    return 1;
  }
  if (optLevel > 3) {
    std::fprintf(stderr, "shard-run: --opt-level takes 0, 1, 2 or 3, got %u\n",
                 static_cast<unsigned>(optLevel));
    return 1;
  }
  for (const std::string &e : entries)
    if (e.empty()) {
      std::fprintf(stderr, "shard-run: --entry names an empty function\n");
      return 1;
    }
  const bool several = inputFiles.size() > 1 || entries.size() > 1;
  if (several && !report.empty()) {
    std::fprintf(stderr, "shard-run: --report writes one run's plan: give one "
                         "program and one --entry with it\n");
    return 1;
  }
  std::optional<std::array<int64_t, 2>> intRangeValue;
  if (!intRange.empty() || intRange.getNumOccurrences() > 0) {
    intRangeValue = shardc::run::parseIntRange(intRange);
    if (!intRangeValue) {
      std::fprintf(stderr,
                   "shard-run: --int-range must be LO:HI, two integers with "
                   "-2^31 <= LO <= HI < 2^31, got '%s'\n",
                   intRange.c_str());
      return 1;
    }
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The runtime the JIT-compiled code calls (its symbols are this
  // process's).
  if (shardrt_init() != SHARDRT_SUCCESS) {
    std::fprintf(stderr, "shard-run: rank %d: %s\n", rank,
                 shardrt_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  mlir::DialectRegistry registry;
  shardc::registerAllDialects(registry);
  shardc::registerAllPasses(); // --propagate parses its options
  mlir::MLIRContext context(registry);
  // A diagnostic points at its line of the program; the op it is about is
  // not printed after it (a function's error once came with the whole
  // function, a wall of IR from every rank).
  context.printOpOnDiagnostic(false);
  int anyBad = 0;
  for (const std::string &inputFile : inputFiles) {
    // Each program's own source manager: diagnostics point into its text.
    llvm::SourceMgr sources;
    WholeDiagnostics diagnostics(sources, &context);
    std::string errorText;
    auto file = shardc::planning::openRegularInputFile(inputFile, &errorText);
    mlir::OwningOpRef<mlir::ModuleOp> module;
    if (!file) {
      std::fprintf(stderr, "shard-run: rank %d: %s\n", rank, errorText.c_str());
    } else {
      sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
      module = mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
    }
    for (const std::string &entry : entries) {
      std::string label;
      if (inputFiles.size() > 1)
        label = inputFile + " ";
      if (several)
        label += "@" + entry + ": ";
      shardc::run::RunOutcome outcome;
      int failed = 1;
      if (module) {
        shardc::run::RunOptions options;
        options.entry = entry;
        options.check = check;
        options.reportFile = report;
        options.propagate = propagate;
        options.corruptRank = corruptRank;
        options.progressAfter = progressAfter;
        options.dynamicSize = dynamicSize;
        options.intRange = intRangeValue;
        options.optLevel = optLevel;
        if (llvm::sys::fs::exists(SHARDC_MLIR_C_RUNNER_UTILS))
          options.sharedLibs.push_back(SHARDC_MLIR_C_RUNNER_UTILS);
        mlir::FailureOr<shardc::run::RunOutcome> result =
            shardc::run::runProgram(*module, options);
        if (mlir::succeeded(result)) {
          failed = 0;
          outcome = *result;
        }
      }
      std::string line;
      if (!failed) {
        if (outcome.cudaOnDevice && rank == 0)
          std::printf("shard-run: %snote: the layouts name CUDA devices; "
                      "shard-run runs them on each rank's GPU through the "
                      "NCCL backend, its buffers in CUDA managed memory\n",
                      label.c_str());
        if (outcome.cudaOnHost && rank == 0)
          std::printf("shard-run: %snote: the layouts name CUDA devices; "
                      "shard-run runs them as the CPU devices of the same "
                      "ranks, on host buffers through the MPI backend (the "
                      "same plan)\n",
                      label.c_str());
        // This rank's line; rank 0 prints every rank's in rank order
        // (each rank printing its own came out in any order).
        line = verdictLine(outcome, check, entry, label, rank);
        std::fflush(stdout);
      }
      printInRankOrder(line, rank);
      // Every rank exits non-zero when any rank failed or differed; the
      // next run starts with every rank done with this one.
      int bad = failed || !outcome.matches ? 1 : 0, runBad = 0;
      MPI_Allreduce(&bad, &runBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      anyBad |= runBad;
    }
  }
  MPI_Finalize();
  return anyBad;
}
