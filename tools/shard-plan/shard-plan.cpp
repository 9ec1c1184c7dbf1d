//===- shard-plan.cpp - A redistribution, from layouts to a plan ----------===//
//
// For people who think in layouts, not IR: reads two layouts of one tensor
// (sharded tensor metadata or DTensor JSON, docs/json.md), plans the
// redistribution with -shard-plan-redistribute, and prints the plan in words
// and its cost (docs/planner.md).
//
//   shard-plan --from A.json --to B.json [--topology T.json] [--link L]
//              [--world-size N] [--report R.json] [-o OUT.mlir [--lower]]
//   mpirun -np N shard-plan --from A.json --to B.json --execute
//   shard-plan --from A1.json --to B1.json --from A2.json --to B2.json ...
//
// With --execute the redistribution runs through shard-run's harness (run/):
// `return %a` between the two layouts, partitioned and planned as the
// compiler does (the plan printed), lowered and JIT-compiled, run on every
// rank's blocks of inputs derived from each element's global index, and
// every element of each rank's result checked against the program as
// written (a Partial destination's copies reduced first).
//
// Several --from/--to pairs are planned (and executed) one after the other
// in one run, each under a line naming it: under mpirun, MPI starts once.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/ElementTypes.h"
#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Planning/Describe.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Register.h"
#include "shardc/Run/Run.h"
#include "shardc/Translate/ShardedMetadata.h"

#include "shardrt.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace shardc;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("shard-plan options");

cl::list<std::string> fromFiles(
    "from",
    cl::desc("The source layout (JSON); several --from/--to pairs plan one "
             "redistribution each, in turn"),
    cl::value_desc("A.json"), cl::OneOrMore, cl::cat(category));
cl::list<std::string> toFiles("to", cl::desc("The destination layout (JSON)"),
                              cl::value_desc("B.json"), cl::OneOrMore,
                              cl::cat(category));
/// The cost model's flags (--link, --alpha-us, --beta-gbps, --topology,
/// --plans, --world-size, --peak-gflops), made from the planning library's
/// one table; under --execute, world-size defaults to the MPI world.
using CostModelFlag = cl::opt<std::string, /*ExternalStorage=*/false,
                              planning::CostModelOptionParser>;
planning::CostModelFlags<CostModelFlag>
    costModelFlags([](const planning::CostModelOption &option) {
      return std::make_unique<CostModelFlag>(llvm::StringRef(option.name),
                                             cl::desc(option.help),
                                             cl::cat(category));
    });
/// The cost model the flags give (read in main).
planning::PlanningOptions costModel;
cl::opt<std::string> reportFile("report",
                                cl::desc("Write the plan report (JSON) here"),
                                cl::value_desc("R.json"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Write the planned SPMD IR here"),
                                cl::value_desc("OUT.mlir"), cl::cat(category));
cl::opt<bool> lower("lower",
                    cl::desc("With -o: the IR after the whole shard-to-llvm "
                             "pipeline"),
                    cl::cat(category));
cl::opt<bool> execute("execute",
                      cl::desc("Run the plan on every MPI rank (under "
                               "mpirun) and check every element"),
                      cl::cat(category));
cl::opt<bool> show("show",
                   cl::desc("Draw both layouts (1-D and 2-D tensors) as grids "
                            "of the ranks that hold each block"),
                   cl::cat(category));
cl::opt<bool> allRanks("all-ranks",
                       cl::desc("List every rank (default: the first 64; a run "
                                "of ranks that own no block, one line)"),
                       cl::cat(category));

constexpr int64_t kRanksListed = 64;

/// Under --execute, ranks other than 0 keep quiet about errors that every
/// rank finds alike.
bool quiet = false;

void error(const llvm::Twine &message) {
  if (quiet)
    return;
  // What stdout holds goes first; then the message in one write, so that
  // other ranks' output cannot cut into it.
  llvm::outs().flush();
  llvm::errs() << ("shard-plan: error: " + message + "\n").str();
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// Prints diagnostics located at a whole file (line 0) as "FILE: error:
/// message", as shard-translate does, and those about the options (at no
/// location) as the tool's errors; others go to the source manager's
/// handler, which shows the line.
LogicalResult printToolDiagnostic(Diagnostic &diag) {
  // About the options, not a file: "shard-plan: error: --alpha-us: ...".
  if (isa<UnknownLoc>(diag.getLocation())) {
    error(diag.str());
    return success();
  }
  return printWholeFileDiagnostic(diag);
}

/// Reads a layout file into the source manager and imports it.
FailureOr<ShardedTensorType> readLayout(const std::string &path,
                                        llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context) {
  std::string problem;
  std::unique_ptr<llvm::MemoryBuffer> file =
      planning::openRegularInputFile(path, &problem);
  if (!file) {
    error(problem);
    return failure();
  }
  llvm::StringRef text = file->getBuffer();
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return importShardedMetadata(text, path, context);
}

/// What the driver computed before any execution.
struct Planned {
  ShardedTensorType from, to;
};

/// Imports, checks, plans, writes the outputs and (when `print`) prints the
/// plan. Returns failure after printing why.
FailureOr<Planned> plan(MLIRContext *context, const std::string &fromFile,
                        const std::string &toFile, int64_t worldSize,
                        bool print, bool writeFiles) {
  context->loadDialect<ShardDialect, func::FuncDialect>();
  // The op is the tool's own, not the user's: the message says enough.
  context->printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler sourceHandler(sourceMgr, context);
  ScopedDiagnosticHandler wholeFile(context, printToolDiagnostic);
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(quiet); });

  FailureOr<ShardedTensorType> from = readLayout(fromFile, sourceMgr, context);
  if (failed(from))
    return failure();
  FailureOr<ShardedTensorType> to = readLayout(toFile, sourceMgr, context);
  if (failed(to))
    return failure();
  if (from->getDims() != to->getDims() ||
      from->getElementType() != to->getElementType()) {
    error("the layouts are of different tensors: " + fromFile + " is " +
          planning::tensorText(*from) + " but " + toFile + " is " +
          planning::tensorText(*to) +
          "; a redistribution keeps the shape and the dtype");
    return failure();
  }
  // What --execute cannot run is said before anything is planned or printed.
  const ElementTypeInfo *row = lookupElementType(from->getElementType());
  if (execute && (!row || !row->hasRuntime())) {
    error("--execute supports the element types the runtime moves (" +
          runtimeElementTypesText() + "), not " +
          typeText(from->getElementType()));
    return failure();
  }
  // The ranks the plan covers: the world, holding every rank named.
  int64_t largest = -1;
  for (ShardedTensorType type : {*from, *to})
    for (const layout::Block &b : type.getDeviceBlocks())
      largest = std::max(largest, b.placement.rank);
  if (worldSize > 0 && largest >= worldSize) {
    if (!execute) {
      error("--world-size " +
            layout::checkWorldSize(worldSize, largest).error());
      return failure();
    }
    // Under --execute the runtime refuses the layouts on every rank, with
    // its message; the plan covers the ranks they name.
    worldSize = 0;
  }
  const int64_t ranks = std::max(worldSize, largest + 1);

  // The cost model and the plans, checked as the pass checks them.
  planning::PlanningOptions planning = costModel;
  planning.worldSize = worldSize;
  std::unique_ptr<planning::ShardPlanner> planner =
      planning::ShardPlanner::create(planning, [&] {
        return emitError(UnknownLoc::get(context)) << "--";
      });
  if (!planner)
    return failure();

  // func.func @redistribute(%a: !A) -> !B {
  //   %b = shard.redistribute %a : !A -> !B
  //   return %b : !B
  // }
  Location loc = FileLineColLoc::get(context, fromFile, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  auto fn = func::FuncOp::create(
      builder, loc, "redistribute",
      builder.getFunctionType(TypeRange{*from}, TypeRange{*to}));
  builder.setInsertionPointToEnd(fn.addEntryBlock());
  auto redistribute =
      RedistributeOp::create(builder, loc, *to, fn.getArgument(0));
  func::ReturnOp::create(builder, loc, redistribute.getResult());
  if (failed(verify(*module)))
    return failure();
  // A plan moves data between ranks: every block must name one.
  for (auto [type, path] : {std::pair(*from, &fromFile), {*to, &toFile}}) {
    auto diagnose = [&] {
      return emitError(FileLineColLoc::get(context, *path, 0, 0))
             << "cannot plan this layout: ";
    };
    if (failed(verifyPlannable(type, diagnose)))
      return failure();
  }

  // The pass plans with the tool's planner and records its report there:
  // the plan is computed once, for the IR and the words alike.
  ShardPlanRedistributeOptions options;
  options.report = writeFiles ? reportFile.getValue() : "";
  PassManager pm(context);
  pm.addPass(createShardPlanRedistribute(options, *planner));
  if (failed(pm.run(*module)))
    return failure();
  if (lower) {
    // The rest of the pipeline (its planning finds nothing left to plan).
    PassManager lowering(context);
    buildShardToLLVMPipeline(lowering);
    if (failed(lowering.run(*module)))
      return failure();
  }

  if (writeFiles && !outputFile.empty()) {
    std::string problem;
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(outputFile, &problem);
    if (!out) {
      error(problem);
      return failure();
    }
    module->print(out->os());
    out->keep();
  }
  if (print) {
    if (show) {
      planning::printLayouts(llvm::outs(), *from, *to);
      llvm::outs() << "\n";
    }
    planning::WordsOptions words;
    words.ranks = ranks;
    words.ranksListed = allRanks ? ranks : kRanksListed;
    words.costModel =
        planning::costModelText(planning, planner->topology(), "--");
    planning::printPlan(llvm::outs(), *planner, *from, *to, words);
    llvm::outs().flush();
  }
  return Planned{*from, *to};
}

/// Where several pairs run: the line that names the next (rank 0 only).
void printPairHeader(size_t pair) {
  if (fromFiles.size() < 2)
    return;
  llvm::outs() << (pair ? "\n" : "") << "== " << fromFiles[pair] << " -> "
               << toFiles[pair] << "\n";
  llvm::outs().flush();
}

int runPlanOnly() {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  int status = 0;
  for (size_t pair = 0; pair < fromFiles.size(); ++pair) {
    printPairHeader(pair);
    if (failed(plan(&context, fromFiles[pair], toFiles[pair],
                    costModel.worldSize, /*print=*/true,
                    /*writeFiles=*/true)))
      status = 1;
  }
  return status;
}

/// `func.func @redistribute(%a: tensor {shard.layout = A}) -> (tensor
/// {shard.layout = B}) { return %a }`: the redistribution as a program
/// shard-run's harness (run/) partitions, runs and checks.
OwningOpRef<ModuleOp> redistributionProgram(MLIRContext *context,
                                            const std::string &fromFile,
                                            ShardedTensorType from,
                                            ShardedTensorType to) {
  Location loc = FileLineColLoc::get(context, fromFile, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  auto tensor = RankedTensorType::get(from.getDims(), from.getElementType());
  auto fn = func::FuncOp::create(
      builder, loc, "redistribute",
      builder.getFunctionType(TypeRange{tensor}, TypeRange{tensor}));
  fn.setArgAttr(0, "shard.layout", from.getSpec());
  fn.setResultAttr(0, "shard.layout", to.getSpec());
  builder.setInsertionPointToEnd(fn.addEntryBlock());
  func::ReturnOp::create(builder, loc, fn.getArgument(0));
  return module;
}

/// Under mpirun: every rank plans (rank 0 prints and writes the outputs),
/// the ranks agree that all went well, then run the redistribution through
/// shard-run's harness (run/: partitioned and planned as the compiler does,
/// the same plan; lowered, JIT-compiled and run on each rank's blocks of
/// inputs derived from each element's global index; every element of
/// each rank's result checked against the program as written).
int executePair(MLIRContext &context, const std::string &fromFile,
                const std::string &toFile, int rank, int worldSize) {
  FailureOr<Planned> planned =
      plan(&context, fromFile, toFile, worldSize, /*print=*/rank == 0,
           /*writeFiles=*/rank == 0);
  // A failure on one rank (writing rank 0's files) stops every rank.
  int ready = succeeded(planned) ? 1 : 0, allReady = 0;
  MPI_Allreduce(&ready, &allReady, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!allReady)
    return 1;
  llvm::outs().flush();

  // The harness's diagnostics, one line each, as this rank's report.
  std::string report;
  run::RunOutcome outcome;
  bool ran = false;
  {
    ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        report +=
            "rank " + std::to_string(rank) + ": ERROR: " + diag.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> program =
        redistributionProgram(&context, fromFile, planned->from, planned->to);
    run::RunOptions options;
    options.entry = "redistribute";
    options.check = true;
    // The cost model of the plan printed, as -shard-propagate's options:
    // the program is partitioned and planned under it.
    planning::PlanningOptions model = costModel;
    model.worldSize = worldSize;
    options.propagate = planning::costModelOptionsText(model);
    if (llvm::sys::fs::exists(SHARDC_MLIR_C_RUNNER_UTILS))
      options.sharedLibs.push_back(SHARDC_MLIR_C_RUNNER_UTILS);
    FailureOr<run::RunOutcome> result = run::runProgram(*program, options);
    if (succeeded(result)) {
      outcome = *result;
      ran = true;
    }
  }
  int ok = ran && outcome.matches ? 1 : 0;
  if (ran) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (outcome.matches)
      os << "rank " << rank << ": OK, " << outcome.elementsChecked
         << (outcome.elementsChecked == 1 ? " element checked"
                                          : " elements checked")
         << " (received " << outcome.bytesReceived << " bytes)\n";
    else
      os << "rank " << rank << ": MISMATCH, " << outcome.mismatches << " of "
         << outcome.elementsChecked
         << " elements differ; first: " << outcome.firstMismatch << "\n";
    report += text;
  } else if (report.empty()) {
    report = "rank " + std::to_string(rank) + ": ERROR: the run failed\n";
  }
  // Rank 0 prints every rank's lines, in rank order, then the verdict: the
  // output of mpirun's ranks would interleave in any order.
  int length = static_cast<int>(report.size());
  std::vector<int> lengths(rank == 0 ? worldSize : 0), starts;
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
             MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    int64_t total = 0;
    for (int n : lengths) {
      starts.push_back(static_cast<int>(total));
      total += n;
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(report.data(), length, MPI_CHAR, all.data(), lengths.data(),
              starts.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  int failedRanks = 0, notOk = 1 - ok;
  MPI_Reduce(&notOk, &failedRanks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::string ranks =
        std::to_string(worldSize) + (worldSize == 1 ? " rank" : " ranks");
    // One rule with shard-run: CUDA layouts run on host buffers, or on
    // each rank's GPU where the runtime sees one.
    if (outcome.cudaOnDevice)
      all = "note: the layouts name CUDA devices; --execute runs them on "
            "each rank's GPU through the NCCL backend, its buffers in CUDA "
            "managed memory\n" +
            all;
    else if (outcome.cudaOnHost)
      all = "note: the layouts name CUDA devices; --execute runs them as the "
            "CPU devices of the same ranks, on host buffers through the MPI "
            "backend (the same plan)\n" +
            all;
    all += failedRanks == 0
               ? "executed on " + ranks + ": every element checked, all OK\n"
               : "executed on " + ranks + ": FAILED on " +
                     std::to_string(failedRanks) +
                     (failedRanks == 1 ? " rank\n" : " ranks\n");
    llvm::outs() << all;
    llvm::outs().flush();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return failedRanks != 0 ? 1 : 0;
}

int runExecute() {
  if (shardrt_init() != SHARDRT_SUCCESS) {
    error(llvm::Twine("--execute: cannot initialize MPI: ") +
          shardrt_last_error());
    return 1;
  }
  int rank = shardrt_rank(), worldSize = shardrt_world_size();
  quiet = rank != 0;
  if (costModel.worldSize != 0 && costModel.worldSize != worldSize) {
    error("--world-size " + std::to_string(costModel.worldSize) +
          " but the MPI " + "world has " + std::to_string(worldSize) +
          " ranks");
    return 1; // alike on every rank
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  // Each pair in turn, every rank in step (each ends at a barrier).
  int failures = 0;
  for (size_t pair = 0; pair < fromFiles.size(); ++pair) {
    if (rank == 0)
      printPairHeader(pair);
    failures +=
        executePair(context, fromFiles[pair], toFiles[pair], rank, worldSize);
  }
  // Rank 0 alone carries the verdict out: a rank exiting with an error makes
  // mpirun stop the others, and output still in flight could be lost.
  return rank == 0 && failures != 0 ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Under mpirun the ranks share one output: lines go out whole, at flushes.
  llvm::outs().SetBuffered();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "shard-plan: the plan of a redistribution between two layouts (JSON), "
      "in words, with its cost\n");
  if (std::string problem = costModelFlags.read(costModel); !problem.empty()) {
    error("--" + problem);
    return 1;
  }
  if (costModel.worldSize != 0) {
    layout::Result<void> problem = layout::checkWorldSize(costModel.worldSize);
    if (!problem.ok()) {
      error("--world-size " + problem.error());
      return 1;
    }
  }
  if (fromFiles.size() != toFiles.size()) {
    error("each --from needs its --to: got " +
          std::to_string(fromFiles.size()) + " --from and " +
          std::to_string(toFiles.size()) + " --to");
    return 1;
  }
  if (fromFiles.size() > 1 && (!outputFile.empty() || !reportFile.empty())) {
    error("-o and --report write one plan: give one --from/--to pair with "
          "them");
    return 1;
  }
  if (lower && outputFile.empty()) {
    error("--lower needs -o");
    return 1;
  }
  return execute ? runExecute() : runPlanOnly();
}
