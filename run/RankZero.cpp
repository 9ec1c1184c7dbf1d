//===- RankZero.cpp - Work done once, on rank 0, for every rank -----------===//
//
// See RankZero.h.
//
//===----------------------------------------------------------------------===//

#include "RankZero.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <string>
#include <thread>

using namespace mlir;

namespace shardc::run {

namespace {

/// Waits for `request` without spinning: ranks that wait while another
/// computes leave it the cores they share with it (a blocking MPI call
/// polls at full speed).
void waitQuietly(MPI_Request &request) {
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

} // namespace

void broadcastRaw(void *data, long long size) {
  MPI_Request request;
  for (long long at = 0; at < size; at += INT_MAX) {
    const int count = static_cast<int>(std::min<long long>(size - at, INT_MAX));
    MPI_Ibcast(static_cast<char *>(data) + at, count, MPI_BYTE, 0,
               MPI_COMM_WORLD, &request);
    waitQuietly(request);
  }
}

namespace {

/// Sends `bytes` from rank 0 to every rank (their `bytes` take its size).
void broadcastBytes(std::string &bytes, int rank) {
  long long size = static_cast<long long>(bytes.size());
  broadcastValue(size);
  if (rank != 0)
    bytes.assign(static_cast<size_t>(size), '\0');
  broadcastRaw(bytes.data(), size);
}

} // namespace

LogicalResult propagateOnRankZero(OwningOpRef<ModuleOp> &copy,
                                  std::unique_ptr<Pass> propagate) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  std::string bytes;
  char ok = 1;
  if (rank == 0) {
    PassManager pm(copy->getContext());
    pm.addPass(std::move(propagate));
    ok = succeeded(pm.run(*copy));
    if (world == 1)
      return success(ok);
    llvm::raw_string_ostream os(bytes);
    if (ok && failed(writeBytecodeToFile(*copy, os))) {
      ok = 0;
      emitError(copy->getLoc())
          << "shard-run: the propagated program cannot be written as "
             "bytecode for the other ranks";
    }
  }
  broadcastValue(ok);
  if (!ok)
    return failure();
  broadcastBytes(bytes, rank);
  if (rank == 0)
    return success();
  ParserConfig config(copy->getContext());
  OwningOpRef<ModuleOp> received =
      parseSourceString<ModuleOp>(bytes, config, "shard-run-propagated");
  if (!received)
    return emitError(copy->getLoc())
           << "shard-run: the program rank 0 propagated cannot be read";
  copy = std::move(received);
  return success();
}

} // namespace shardc::run
