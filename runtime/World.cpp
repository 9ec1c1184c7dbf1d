//===- World.cpp - The process's MPI world, errors and their C ABI --------===//
//
// MPI initialized once (or adopted from the program), the runtime's own
// duplicate of MPI_COMM_WORLD, the hooks that release what the runtime holds
// when MPI is finalized (by the runtime at exit or by the program), the last
// error of each thread and the prefix of every message.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace shardc {
namespace rt {

namespace {

/// The process's MPI state. Never destroyed: it must outlive the handler
/// that finalizes MPI at exit.
struct State {
  std::mutex mutex;
  /// Whether shardrt called MPI_Init_thread (and so owes MPI_Finalize).
  bool initializedMpi = false;
  bool atExitRegistered = false;
  int rank = -1;
  int size = 0;
  MPI_Comm world = MPI_COMM_NULL;
  /// Where the ranks waiting in an agreement's MPI_Iallreduce ask and answer
  /// which of them are there (rollCallComm).
  MPI_Comm rollCall = MPI_COMM_NULL;
  int nodeRank = 0;
  /// Set once MPI is initialized and rank and size are known (`ready`) and
  /// once `world` exists (`worldReady`); both are cleared when MPI is
  /// finalized, by shardrt or by the program. A call checks them without
  /// the mutex or any MPI query.
  std::atomic<bool> ready{false};
  std::atomic<bool> worldReady{false};
};

State &state() {
  static State *s = new State();
  return *s;
}

thread_local std::string lastError;
thread_local void *cudaStreamOfThread = nullptr;

/// Runs at the start of MPI_Finalize, whoever calls it (MPI deletes
/// MPI_COMM_SELF's attributes first): releases NCCL's resources, and later
/// calls take the slow path, which reports that MPI has been finalized.
int onMpiFinalize(MPI_Comm, int, void *, void *) {
#ifdef SHARDRT_HAVE_NCCL
  // The program's own MPI_Finalize ends the runtime's use of NCCL too (its
  // communicators need no MPI to be destroyed).
  nccl::release();
#endif
  State &s = state();
  s.ready.store(false);
  s.worldReady.store(false);
  return MPI_SUCCESS;
}

/// Releases what shardrt holds and finalizes MPI if shardrt initialized it.
/// At exit the CUDA runtime may already be torn down: NCCL's resources were
/// released before, by the handler the NCCL backend registers after CUDA's
/// (NcclResources.cpp).
void finalizeRuntime(bool atExit) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return;
#ifdef SHARDRT_HAVE_NCCL
  if (!atExit)
    nccl::release();
#else
  (void)atExit;
#endif
  releaseAgreedCalls();
  releaseGroupComms();
  s.ready.store(false);
  s.worldReady.store(false);
  if (s.world != MPI_COMM_NULL)
    MPI_Comm_free(&s.world);
  s.world = MPI_COMM_NULL;
  if (s.rollCall != MPI_COMM_NULL)
    MPI_Comm_free(&s.rollCall);
  s.rollCall = MPI_COMM_NULL;
  if (s.initializedMpi) {
    MPI_Finalize();
    s.initializedMpi = false;
  }
}

void finalizeAtExit() { finalizeRuntime(/*atExit=*/true); }

} // namespace

std::string plural(int64_t n, const std::string &noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

void *threadCudaStream() { return cudaStreamOfThread; }

int fail(shardrt_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

std::string mpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, length) + " (MPI error " + std::to_string(code) +
         ")";
}

int ensureMpi() {
  State &s = state();
  if (s.ready.load(std::memory_order_acquire))
    return SHARDRT_SUCCESS;
  std::lock_guard<std::mutex> lock(s.mutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return fail(SHARDRT_ERROR_BACKEND,
                "shardrt: MPI has been finalized; call shardrt before "
                "MPI_Finalize or shardrt_finalize");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    int rc =
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS)
      return fail(SHARDRT_ERROR_BACKEND,
                  "shardrt: MPI_Init_thread failed: " + mpiErrorString(rc));
    s.initializedMpi = true;
    if (!s.atExitRegistered) {
      std::atexit(finalizeAtExit);
      s.atExitRegistered = true;
    }
  }
  if (s.rank < 0) {
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, onMpiFinalize, &keyval,
                               nullptr) != MPI_SUCCESS ||
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr) != MPI_SUCCESS)
      return SHARDRT_SUCCESS; // Without it, every call takes this path.
  }
  s.ready.store(true, std::memory_order_release);
  return SHARDRT_SUCCESS;
}

int worldRank() { return state().rank; }
int worldSize() { return state().size; }

bool agreesInMessages(int worldSize) {
  return worldSize <= kAgreeInMessagesMaxRanks;
}
int nodeLocalRank() { return state().nodeRank; }
MPI_Comm rollCallComm() { return state().rollCall; }

MPI_Comm worldComm(const std::string &prefix) {
  State &s = state();
  if (s.worldReady.load(std::memory_order_acquire))
    return s.world;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.world != MPI_COMM_NULL)
    return s.world;
  // Non-blocking: while it waits for a rank that has not made its first
  // call, this thread tells the watchdog which ranks those are (a roll call
  // on MPI_COMM_WORLD, since the runtime's own communicators are what this
  // makes). Once every rank has joined, the rest cannot wait for one.
  MPI_Comm world = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Comm_idup(MPI_COMM_WORLD, &world, &request);
  if (rc == MPI_SUCCESS)
    rc = waitForEveryRankOfWorld(request);
  if (rc != MPI_SUCCESS) {
    fail(SHARDRT_ERROR_BACKEND,
         prefix +
             "MPI_Comm_idup(MPI_COMM_WORLD) failed: " + mpiErrorString(rc));
    return MPI_COMM_NULL;
  }
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  // The rank among the processes of this node picks the GPU.
  MPI_Comm node = MPI_COMM_NULL;
  rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, s.rank, MPI_INFO_NULL,
                           &node);
  if (rc != MPI_SUCCESS) {
    fail(SHARDRT_ERROR_BACKEND,
         prefix + "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed: " +
             mpiErrorString(rc));
    MPI_Comm_free(&world);
    return MPI_COMM_NULL;
  }
  MPI_Comm_rank(node, &s.nodeRank);
  MPI_Comm_free(&node);
  MPI_Comm rollCall = MPI_COMM_NULL;
  rc = MPI_Comm_dup(world, &rollCall);
  if (rc != MPI_SUCCESS) {
    fail(SHARDRT_ERROR_BACKEND,
         prefix + "MPI_Comm_dup (the roll call's communicator) failed: " +
             mpiErrorString(rc));
    MPI_Comm_free(&world);
    return MPI_COMM_NULL;
  }
  MPI_Comm_set_errhandler(rollCall, MPI_ERRORS_RETURN);
  s.rollCall = rollCall;
  s.world = world;
  s.worldReady.store(true, std::memory_order_release);
  return s.world;
}

std::string callPrefix(OpKind op, int32_t dtype, int32_t device, int64_t root,
                       int32_t reduce, int32_t groupKind) {
  const bool group = op == OpKind::Group;
  std::string s =
      "shardrt: rank " + std::to_string(worldRank()) + ": " +
      (group ? "group " + groupKindName(groupKind) : std::string(opName(op))) +
      "(" + dtypeName(dtype) + ", " + deviceName(device) + ", world of " +
      plural(worldSize(), "rank");
  const bool rooted = group && (groupKind == SHARDRT_COLLECTIVE_BROADCAST ||
                                groupKind == SHARDRT_COLLECTIVE_GATHER);
  const bool reduces =
      group && (groupKind == SHARDRT_COLLECTIVE_ALL_REDUCE ||
                groupKind == SHARDRT_COLLECTIVE_REDUCE_SCATTER);
  if (op == OpKind::Scatter || rooted)
    s += ", root " + std::to_string(root);
  if (op == OpKind::RedistributeReduce || reduces)
    s += ", op " +
         (isReduceOp(reduce) ? reduceName(reduce) : std::to_string(reduce));
  return s + "): ";
}

} // namespace rt
} // namespace shardc

using namespace shardc::rt;

int shardrt_init(void) { return ensureMpi(); }

int shardrt_finalize(void) {
  finalizeRuntime(/*atExit=*/false);
  return SHARDRT_SUCCESS;
}

int shardrt_rank(void) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    return -1;
  return worldRank();
}

int shardrt_world_size(void) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    return -1;
  return worldSize();
}

const char *shardrt_backends(void) {
#ifdef SHARDRT_HAVE_NCCL
  return "mpi,nccl";
#else
  return "mpi";
#endif
}

const char *shardrt_last_error(void) { return lastError.c_str(); }

int shardrt_set_cuda_stream(void *stream) {
  cudaStreamOfThread = stream;
  return SHARDRT_SUCCESS;
}
