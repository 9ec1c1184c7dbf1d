//===- NcclResources.cpp - The NCCL backend's communicators and stream ----===//
//
// Communicators: one for the world, created on first use (rank 0 makes the
// unique id, MPI broadcasts it), and one per group of ranks that a call
// needs, split from the world's (ncclCommSplit, sharing its resources) on
// first use and kept among the most recently used. Every call is enqueued
// on the caller's stream (shardrt_set_cuda_stream) or the runtime's own,
// then waited for by polling the stream and the communicators' asynchronous
// errors, so that the watchdog (SHARDRT_TIMEOUT_SECONDS) can abort the
// communicators (ncclCommAbort) instead of waiting forever.
//
// A rank that fails within a call after the ranks agreed on it (out of
// memory for staging, a failed launch or NCCL call) leaves the others
// waiting for its part. It tells them in an alert (an MPI message on a
// communicator of its own, naming its error), aborts its communicators,
// waits for its stream, and starts a new epoch of communicators. The others
// look for alerts while they wait for their stream; one alerted by a member
// of its call aborts too and fails naming that rank's error. Every call's
// agreement carries the largest epoch, so a rank that completed its part
// (or took none) abandons its communicators at the next call, and every
// rank makes them anew alike.
//
//===----------------------------------------------------------------------===//

#include "Nccl.h"

#include "Groups.h"
#include "Kernels.h"
#include "RecentlyUsed.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <thread>

namespace shardc {
namespace rt {
namespace nccl {

namespace {

/// A kept communicator of groups: null on a rank in none of them.
struct GroupComm {
  ncclComm_t comm = nullptr;
  std::string name;
};
/// By the split they make (splitKey, Groups.h).
using GroupComms = RecentlyUsed<std::vector<int>, GroupComm>;

/// The NCCL resources of the process. Never destroyed (see release()).
struct NcclState {
  bool ready = false;
  int device = -1;
  ncclComm_t world = nullptr;
  cudaStream_t stream = nullptr;
  /// Staging buffers: what is sent, what is received, and what is
  /// received to be reduced.
  char *stage[3] = {nullptr, nullptr, nullptr};
  size_t stageBytes[3] = {0, 0, 0};
  /// Communicators split from `world`.
  GroupComms groups{kMaxGroupComms};
  /// How many times this rank abandoned its communicators (epoch()), and
  /// the epoch the call in progress began in.
  int64_t epoch = 0, callEpoch = 0;
  /// Where ranks tell each other of a failure within a call (alerts), and
  /// the alerts this rank is still sending, with their messages.
  MPI_Comm alerts = MPI_COMM_NULL;
  std::list<std::pair<MPI_Request, std::vector<char>>> alertsOut;
  /// Guards the communicators against the watchdog's abort.
  std::mutex mutex;
};

NcclState &ncclState() {
  static NcclState *s = new NcclState();
  return *s;
}

/// Aborts every communicator, so that kernels waiting for peers that never
/// come return (the watchdog's hook, and a failure within a call).
void abortCommunicators() {
  NcclState &s = ncclState();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.groups.clear([](GroupComm &g) {
    if (g.comm)
      ncclCommAbort(g.comm);
  });
  if (s.world)
    ncclCommAbort(s.world);
  s.world = nullptr;
}

/// The tag of alerts on their communicator.
constexpr int kAlertTag = 1;

/// A rank's failure within a call, as its alert tells it.
struct Alert {
  int from = -1;
  int64_t epoch = 0;
  std::string text;
};

/// Completes what it can of the alerts this rank is sending.
void progressAlerts(NcclState &s) {
  for (auto it = s.alertsOut.begin(); it != s.alertsOut.end();) {
    int done = 0;
    MPI_Test(&it->first, &done, MPI_STATUS_IGNORE);
    it = done ? s.alertsOut.erase(it) : std::next(it);
  }
}

/// Tells every other rank that this one failed within the call of its
/// current epoch, with `text`; false when it cannot (no communicator of
/// alerts yet: the first call failed before it was made).
bool sendAlerts(NcclState &s, const Collective &c, const std::string &text) {
  if (s.alerts == MPI_COMM_NULL)
    return false;
  progressAlerts(s);
  std::vector<char> message(sizeof(int64_t) + text.size());
  std::memcpy(message.data(), &s.epoch, sizeof(int64_t));
  std::memcpy(message.data() + sizeof(int64_t), text.data(), text.size());
  for (int r = 0; r < c.worldSize; ++r) {
    if (r == c.rank)
      continue;
    s.alertsOut.emplace_back(MPI_REQUEST_NULL, message);
    auto &out = s.alertsOut.back();
    MPI_Isend(out.second.data(), static_cast<int>(out.second.size()), MPI_BYTE,
              r, kAlertTag, s.alerts, &out.first);
  }
  return true;
}

/// Whether an alert of this epoch has come from a rank this rank waits for
/// (`members`, the world ranks of its group; empty: any rank). Receives
/// every alert that has arrived: those of earlier epochs (the ranks have
/// moved past them) and of ranks outside the group are dropped.
bool alerted(NcclState &s, const std::vector<int> &members, Alert &alert) {
  if (s.alerts == MPI_COMM_NULL)
    return false;
  progressAlerts(s);
  while (true) {
    int found = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kAlertTag, s.alerts, &found, &status);
    if (!found)
      return false;
    int size = 0;
    MPI_Get_count(&status, MPI_BYTE, &size);
    std::vector<char> message(static_cast<size_t>(std::max(size, 0)));
    MPI_Recv(message.data(), size, MPI_BYTE, status.MPI_SOURCE, kAlertTag,
             s.alerts, MPI_STATUS_IGNORE);
    if (message.size() < sizeof(int64_t))
      continue;
    int64_t epoch = 0;
    std::memcpy(&epoch, message.data(), sizeof(int64_t));
    const int from = status.MPI_SOURCE;
    if (epoch < s.epoch ||
        (!members.empty() &&
         std::find(members.begin(), members.end(), from) == members.end()))
      continue;
    alert.from = from;
    alert.epoch = epoch;
    alert.text.assign(message.data() + sizeof(int64_t),
                      message.size() - sizeof(int64_t));
    return true;
  }
}

/// Abandons the communicators of this epoch: aborts them (which ends the
/// NCCL work queued on them, so that none writes into this rank's buffers
/// later), waits for the call's stream, and starts the next epoch.
void abandonEpoch(NcclState &s, const char *step) {
  watchStep(step);
  abortCommunicators();
  if (s.ready) {
    const cudaStream_t stream = callStream();
    while (cudaStreamQuery(stream) == cudaErrorNotReady)
      std::this_thread::yield();
    cudaGetLastError();
  }
  ++s.epoch;
}

/// The call's failure on learning of `alert`.
int failAlerted(NcclState &s, const Collective &c, const Alert &alert) {
  abandonEpoch(s, "aborting the NCCL communicators after another rank failed "
                  "within the call (ncclCommAbort), then waiting for the "
                  "stream");
  return c.fail(SHARDRT_ERROR_BACKEND,
                "rank " + std::to_string(alert.from) +
                    " failed within this call after every rank had agreed on "
                    "it, so this rank's part cannot complete: " +
                    alert.text +
                    "; the NCCL communicators are aborted and made anew by "
                    "the next CUDA call; " +
                    kDataUndefined);
}

} // namespace

std::string cudaText(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

int checkCuda(const Collective &c, cudaError_t e, const char *call) {
  if (e == cudaSuccess)
    return SHARDRT_SUCCESS;
  // Clear the error so that later calls start clean.
  cudaGetLastError();
  return c.fail(SHARDRT_ERROR_BACKEND, std::string(call) +
                                           " failed: " + cudaText(e) + "; " +
                                           c.describeCounts());
}

int checkNccl(const Collective &c, ncclResult_t r, const char *call,
              ncclComm_t comm, const std::string &group) {
  // A non-blocking communicator (NCCL_COMM_BLOCKING=0, or its config)
  // returns ncclInProgress: the call's work is done only once the
  // communicator's asynchronous state is no longer ncclInProgress (the
  // watchdog ends a wait that never does).
  if (r == ncclInProgress && comm) {
    watchStep("waiting for a non-blocking NCCL communicator's work "
              "(ncclInProgress; polling ncclCommGetAsyncError)");
    while (r == ncclInProgress) {
      ncclResult_t state = ncclInProgress;
      ncclResult_t query = ncclCommGetAsyncError(comm, &state);
      r = query != ncclSuccess ? query : state;
      if (r == ncclInProgress)
        std::this_thread::yield();
    }
  }
  if (r == ncclSuccess)
    return SHARDRT_SUCCESS;
  std::string detail = ncclGetErrorString(r);
  // Also without a communicator (a failed ncclCommInitRank has none): NCCL
  // then returns the thread's last error.
  const char *last = ncclGetLastError(comm);
  if (last && *last)
    detail += ": " + std::string(last);
  return c.fail(SHARDRT_ERROR_BACKEND, std::string(call) + " on the " + group +
                                           " failed: " + detail + "; " +
                                           c.describeCounts());
}

namespace {

/// The GPU of this rank: its rank on the node modulo the visible GPUs.
int pickDevice(int &device, std::string &problem) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    problem = "no CUDA GPU visible (" +
              (e != cudaSuccess ? "cudaGetDeviceCount: " + cudaText(e)
                                : std::string("cudaGetDeviceCount found 0")) +
              ")";
    return SHARDRT_ERROR_UNAVAILABLE;
  }
  device = nodeLocalRank() % count;
  e = cudaSetDevice(device);
  if (e != cudaSuccess) {
    cudaGetLastError();
    problem =
        "cudaSetDevice(" + std::to_string(device) + ") failed: " + cudaText(e);
    return SHARDRT_ERROR_BACKEND;
  }
  return SHARDRT_SUCCESS;
}

/// Creates the world communicator (again, after they were abandoned), the
/// communicator of alerts and the runtime's stream. Every rank calls it.
int ensureComm(const Collective &c) {
  NcclState &s = ncclState();
  if (s.world)
    return checkCuda(c, cudaSetDevice(s.device), "cudaSetDevice");
  // First, before anything that can fail on one rank: every rank makes it.
  if (s.alerts == MPI_COMM_NULL) {
    watchStep("duplicating the runtime's communicator for alerts "
              "(MPI_Comm_dup)");
    MPI_Comm alerts = MPI_COMM_NULL;
    const int rc = MPI_Comm_dup(worldComm(c.prefix), &alerts);
    if (rc != MPI_SUCCESS)
      return c.fail(SHARDRT_ERROR_BACKEND,
                    "MPI_Comm_dup (the communicator of alerts) failed: " +
                        mpiErrorString(rc));
    MPI_Comm_set_errhandler(alerts, MPI_ERRORS_RETURN);
    s.alerts = alerts;
  }
  int device = s.device;
  if (!s.ready) {
    std::string problem;
    if (int status = pickDevice(device, problem))
      return c.fail(static_cast<shardrt_status>(status), problem);
  } else if (int status =
                 checkCuda(c, cudaSetDevice(s.device), "cudaSetDevice")) {
    return status;
  }

  struct {
    int status;
    ncclUniqueId id;
  } message{};
  if (c.rank == 0)
    message.status = ncclGetUniqueId(&message.id);
  watchStep("broadcasting the NCCL unique id (MPI_Bcast)");
  int rc =
      MPI_Bcast(&message, sizeof(message), MPI_BYTE, 0, worldComm(c.prefix));
  if (rc != MPI_SUCCESS)
    return c.fail(SHARDRT_ERROR_BACKEND,
                  "MPI_Bcast of the NCCL unique id failed: " +
                      mpiErrorString(rc));
  if (message.status != ncclSuccess)
    return c.fail(
        SHARDRT_ERROR_BACKEND,
        std::string("ncclGetUniqueId failed on rank 0: ") +
            ncclGetErrorString(static_cast<ncclResult_t>(message.status)));
  ncclComm_t comm = nullptr;
  watchStep("creating the NCCL world communicator (ncclCommInitRank)");
  // Checked with the new communicator: a non-blocking one is waited for.
  const ncclResult_t made =
      ncclCommInitRank(&comm, c.worldSize, message.id, c.rank);
  if (int status = checkNccl(c, made, "ncclCommInitRank", comm))
    return status;
  cudaStream_t stream = s.stream;
  // A blocking stream: it waits for work on the legacy default stream.
  if (!stream) {
    if (int status =
            checkCuda(c, cudaStreamCreate(&stream), "cudaStreamCreate")) {
      ncclCommDestroy(comm);
      return status;
    }
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.device = device;
    s.world = comm;
    s.stream = stream;
    s.ready = true;
  }
  addAbortHook(abortCommunicators);
  // After the CUDA runtime registered its own teardown (at its first call,
  // before this one): handlers run in reverse, so this one runs while CUDA
  // still works.
  static const bool releasesAtExit = [] {
    std::atexit([] { release(); });
    return true;
  }();
  (void)releasesAtExit;
  return SHARDRT_SUCCESS;
}

} // namespace

ncclComm_t worldNccl() { return ncclState().world; }

/// The stream of this call: the caller's (shardrt_set_cuda_stream) or the
/// runtime's.
cudaStream_t callStream() {
  void *mine = threadCudaStream();
  return mine ? static_cast<cudaStream_t>(mine) : ncclState().stream;
}

int groupComm(const Collective &c, const std::vector<int> &colors,
              const std::vector<int> &keys, ncclComm_t &comm,
              std::string &name) {
  NcclState &s = ncclState();
  std::vector<int> key = splitKey(colors, keys);
  if (const GroupComm *found = s.groups.find(key)) {
    comm = found->comm;
    name = found->name;
    return SHARDRT_SUCCESS;
  }
  const int color = key[2 * c.rank];
  name = color < 0 ? "" : describeGroup(key, c.rank);
  comm = nullptr;
  // Sharing the world's resources (buffers, proxy threads): a group costs
  // little device memory.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.splitShare = 1;
  watchStep("splitting a group communicator (ncclCommSplit)");
  const ncclResult_t split = ncclCommSplit(
      s.world, color < 0 ? NCCL_SPLIT_NOCOLOR : color,
      key[2 * c.rank + 1] < 0 ? 0 : key[2 * c.rank + 1], &comm, &config);
  // A non-blocking split is waited for on the new communicator (this rank's,
  // when it has one) and on the world's.
  if (int status = checkNccl(c, split, "ncclCommSplit", comm ? comm : s.world,
                             color < 0 ? "world" : name))
    return status;
  std::lock_guard<std::mutex> lock(s.mutex);
  // Every rank evicts the same one: the least recently used of the same
  // sequence of calls.
  s.groups.insert(std::move(key), GroupComm{comm, name}, [](GroupComm &old) {
    if (old.comm)
      ncclCommDestroy(old.comm);
  });
  return SHARDRT_SUCCESS;
}

/// A staging buffer (0: send, 1: receive) of at least `bytes` on the
/// device, kept between calls.
int stageBuffer(const Collective &c, int slot, size_t bytes, char *&buffer) {
  NcclState &s = ncclState();
  if (bytes > s.stageBytes[slot]) {
    if (s.stage[slot]) {
      // The previous call has finished (every call waits for its stream).
      cudaFree(s.stage[slot]);
      s.stage[slot] = nullptr;
      s.stageBytes[slot] = 0;
    }
    if (int status = checkCuda(
            c, cudaMalloc(reinterpret_cast<void **>(&s.stage[slot]), bytes),
            "cudaMalloc of a staging buffer"))
      return status;
    s.stageBytes[slot] = bytes;
  }
  buffer = s.stage[slot];
  return SHARDRT_SUCCESS;
}

/// Copies view `src` into view `dst` (equal sizes) on the call's stream.
int copyOnDevice(const Collective &c, const View &src, const View &dst) {
  const CopyPlan plan(src.sizes, src.strides, dst.strides, c.elemSize);
  for (const DeviceCopy &copy : deviceCopies(plan, c.elemSize, true)) {
    if (int status =
            checkCuda(c, cuda::copy(copy, src.data, dst.data, callStream()),
                      "the copy kernel"))
      return status;
  }
  return SHARDRT_SUCCESS;
}

/// dst = dst op src (equal sizes) on the call's stream.
int reduceOnDevice(const Collective &c, const View &src, const View &dst) {
  const CopyPlan plan(src.sizes, src.strides, dst.strides, c.elemSize);
  for (const DeviceCopy &copy : deviceCopies(plan, c.elemSize, false)) {
    if (int status = checkCuda(c,
                               cuda::reduce(copy, src.data, dst.data, c.dtype,
                                            c.reduce, callStream()),
                               "the reduction kernel"))
      return status;
  }
  return SHARDRT_SUCCESS;
}

/// view = view / count on the call's stream (avg).
int divideOnDevice(const Collective &c, const View &view, int64_t count) {
  const CopyPlan plan(view.sizes, view.strides, view.strides, c.elemSize);
  for (const DeviceCopy &copy : deviceCopies(plan, c.elemSize, false)) {
    if (int status = checkCuda(
            c, cuda::divide(copy, view.data, count, c.dtype, callStream()),
            "the division kernel"))
      return status;
  }
  return SHARDRT_SUCCESS;
}

/// Ends a group opened by ncclGroupStart, reporting the first failure.
int endGroup(const Collective &c, int status, ncclComm_t comm,
             const std::string &group) {
  watchStep("in ncclGroupEnd (grouped ncclSend/ncclRecv)");
  ncclResult_t r = ncclGroupEnd();
  if (status != SHARDRT_SUCCESS)
    return status;
  return checkNccl(c, r, "ncclGroupEnd", comm, group);
}

/// Waits for the call's stream, polling so that the communicators'
/// asynchronous errors are reported and the watchdog can abort.
int finish(const Collective &c, ncclComm_t group, const std::string &groupName,
           const std::vector<int> &members) {
  watchStep("waiting for the NCCL kernels (polling the stream)");
  cudaStream_t stream = callStream();
  while (true) {
    cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess)
      return SHARDRT_SUCCESS;
    if (e != cudaErrorNotReady)
      return checkCuda(c, e, "the stream");
    NcclState &s = ncclState();
    // Under the lock the watchdog aborts them under: an aborted
    // communicator is gone, and so is the world's pointer.
    std::unique_lock<std::mutex> lock(s.mutex);
    if (!s.world)
      return c.fail(SHARDRT_ERROR_BACKEND,
                    "the NCCL communicators were aborted while the call "
                    "waited");
    for (ncclComm_t comm : {s.world, group}) {
      if (!comm)
        continue;
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        lock.unlock();
        // A peer's abort may show as a remote error: its alert names the
        // cause.
        Alert alert;
        if (alerted(s, members, alert))
          return failAlerted(s, c, alert);
        return checkNccl(c, async, "an asynchronous NCCL operation", comm,
                         comm == group ? groupName : "world");
      }
    }
    lock.unlock();
    // A rank that failed within the call will never make its part.
    Alert alert;
    if (alerted(s, members, alert))
      return failAlerted(s, c, alert);
    std::this_thread::yield();
  }
}

ncclDataType_t ncclType(shardrt_dtype dtype) {
  switch (dtype) {
  case SHARDRT_F32:
    return ncclFloat32;
  case SHARDRT_F64:
    return ncclFloat64;
  case SHARDRT_F16:
    return ncclFloat16;
  case SHARDRT_BF16:
    return ncclBfloat16;
  case SHARDRT_I8:
    return ncclInt8;
  case SHARDRT_I32:
    return ncclInt32;
  case SHARDRT_I64:
    return ncclInt64;
  case SHARDRT_U8:
    return ncclUint8;
  case SHARDRT_U32:
    return ncclUint32;
  case SHARDRT_U64:
    return ncclUint64;
  case SHARDRT_I16:
  case SHARDRT_U16:
    // No NCCL type: never reduced by NCCL (nativeReduction).
    break;
  }
  return ncclUint8;
}

bool nativeReduction(shardrt_dtype dtype, shardrt_reduce reduce,
                     ncclRedOp_t &op) {
  const bool floating = dtype == SHARDRT_F32 || dtype == SHARDRT_F64 ||
                        dtype == SHARDRT_F16 || dtype == SHARDRT_BF16;
  if (floating && (reduce == SHARDRT_MAX || reduce == SHARDRT_MIN))
    return false;
  // NCCL has no 16-bit integers: the runtime's own kernels reduce them.
  if (dtype == SHARDRT_I16 || dtype == SHARDRT_U16)
    return false;
  op = reduce == SHARDRT_PRODUCT ? ncclProd
       : reduce == SHARDRT_MAX   ? ncclMax
       : reduce == SHARDRT_MIN   ? ncclMin
                                 : ncclSum;
  return true;
}

namespace {

/// Whether the device memory of `view` (its first element) can be checked.
int checkBuffer(const char *what, const char *data, int device,
                std::string &problem) {
  cudaPointerAttributes attributes{};
  cudaError_t e = cudaPointerGetAttributes(&attributes, data);
  if (e != cudaSuccess) {
    cudaGetLastError();
    problem = std::string("cudaPointerGetAttributes on the ") + what +
              " data failed: " + cudaText(e);
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  }
  if (attributes.type != cudaMemoryTypeDevice &&
      attributes.type != cudaMemoryTypeManaged) {
    problem = std::string("the ") + what +
              " data is not CUDA device memory, but the call says cuda";
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  }
  if (attributes.type == cudaMemoryTypeDevice && attributes.device != device) {
    problem = std::string("the ") + what + " data is on CUDA device " +
              std::to_string(attributes.device) +
              " but this rank uses device " + std::to_string(device) +
              " (node-local rank " + std::to_string(nodeLocalRank()) + ")";
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  }
  return SHARDRT_SUCCESS;
}

bool holdsData(const View &view) {
  std::optional<int64_t> n = layout::volume(view.sizes);
  return view.data && n && *n > 0;
}

} // namespace

int checkLocal(const Collective &c, std::string &problem) {
  int device = 0;
  if (int status = pickDevice(device, problem))
    return status;
  // A CUDA error that earlier work on this thread left would be returned by
  // this call's first launch and blamed on it.
  cudaError_t leftover = cudaGetLastError();
  if (leftover != cudaSuccess) {
    problem = "a CUDA error left by earlier work on this thread, before this "
              "call: " +
              cudaText(leftover) + " (now cleared; this call did not run)";
    return SHARDRT_ERROR_BACKEND;
  }
  if (isRedistribution(c.op)) {
    for (const auto &[views, what] :
         {std::make_pair(&c.srcViews, "source block"),
          std::make_pair(&c.dstViews, "destination block")}) {
      for (const auto &[b, view] : *views) {
        if (holdsData(view)) {
          if (int status = checkBuffer(what, view.data, device, problem))
            return status;
        }
      }
    }
    return SHARDRT_SUCCESS;
  }
  if (c.myBlock >= 0 && holdsData(c.local)) {
    if (int status = checkBuffer("local", c.local.data, device, problem))
      return status;
  }
  if (holdsData(c.global))
    return checkBuffer("global", c.global.data, device, problem);
  return SHARDRT_SUCCESS;
}

int64_t epoch() { return ncclState().epoch; }

int prepare(const Collective &c, int64_t agreedEpoch) {
  NcclState &s = ncclState();
  if (agreedEpoch > s.epoch) {
    // Another rank abandoned the communicators after a failure this rank
    // did not see (its part completed, or it took none): so does this one,
    // and every rank makes them anew below. No work is queued on them: every
    // call waits for its stream.
    watchStep("aborting NCCL communicators that another rank abandoned after "
              "a failure (ncclCommAbort)");
    abortCommunicators();
    s.epoch = agreedEpoch;
  }
  s.callEpoch = s.epoch;
  return ensureComm(c);
}

int failedAfterAgreement(const Collective &c, int status) {
  NcclState &s = ncclState();
  // Another rank's failure: this rank has already abandoned the epoch.
  if (s.epoch != s.callEpoch)
    return status;
  const std::string error = shardrt_last_error();
  const bool prefixed = error.compare(0, c.prefix.size(), c.prefix) == 0;
  const bool told =
      sendAlerts(s, c, prefixed ? error.substr(c.prefix.size()) : error);
  abandonEpoch(s, "aborting the NCCL communicators after this rank failed "
                  "within the call (ncclCommAbort), then waiting for the "
                  "stream");
  return fail(static_cast<shardrt_status>(status),
              error + (told ? "; the other ranks were told, and the NCCL "
                              "communicators are aborted and made anew by the "
                              "next CUDA call"
                            : "; the NCCL communicators are aborted and made "
                              "anew by the next CUDA call"));
}

namespace {

/// Frees the communicator of alerts while MPI works: receives the alerts
/// that arrived and were not needed, and lets go of those still being sent
/// (their messages are kept for the process's life).
void releaseAlerts(NcclState &s) {
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (s.alerts != MPI_COMM_NULL && !finalized) {
    Alert unused;
    while (alerted(s, {}, unused)) {
    }
    static auto *sending =
        new std::list<std::pair<MPI_Request, std::vector<char>>>();
    for (auto &out : s.alertsOut)
      MPI_Request_free(&out.first);
    sending->splice(sending->end(), s.alertsOut);
    MPI_Comm_free(&s.alerts);
  }
  s.alerts = MPI_COMM_NULL;
}

/// Waits up to `seconds` (0: for ever) for `stream`'s work; false when it
/// is still running (a stuck device or a peer that never comes).
bool waitForStream(cudaStream_t stream, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    const cudaError_t e = cudaStreamQuery(stream);
    if (e != cudaErrorNotReady) {
      cudaGetLastError();
      return true;
    }
    const std::chrono::duration<double> waited =
        std::chrono::steady_clock::now() - start;
    if (seconds > 0 && waited.count() > seconds)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

} // namespace

void release() {
  NcclState &s = ncclState();
  releaseAlerts(s);
  if (!s.ready)
    return;
  cudaSetDevice(s.device);
  // Bounded by the call timeout: a stream that never finishes (a peer that
  // never comes) must not hang the program's exit. Its communicators are
  // then aborted, which ends their kernels, and the buffers it may still
  // use are left to the process's end.
  const bool idle = waitForStream(s.stream, callTimeout().seconds);
  if (!idle)
    std::fprintf(stderr,
                 "shardrt: rank %d: at shutdown the runtime's CUDA stream "
                 "still ran after %g s (SHARDRT_TIMEOUT_SECONDS): the NCCL "
                 "communicators are aborted instead of destroyed\n",
                 worldRank(), callTimeout().seconds);
  std::lock_guard<std::mutex> lock(s.mutex);
  auto end = [idle](ncclComm_t comm) {
    if (comm)
      idle ? ncclCommDestroy(comm) : ncclCommAbort(comm);
  };
  s.groups.clear([&](GroupComm &g) { end(g.comm); });
  end(s.world);
  s.world = nullptr;
  if (idle) {
    for (char *stage : s.stage)
      if (stage)
        cudaFree(stage);
    cudaStreamDestroy(s.stream);
  }
  s.stream = nullptr;
  for (int slot = 0; slot < 3; ++slot) {
    s.stage[slot] = nullptr;
    s.stageBytes[slot] = 0;
  }
  s.device = -1;
  s.ready = false;
}

int visibleDevices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

void *managedAlloc(size_t bytes) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return nullptr;
  }
  void *p = nullptr;
  if (cudaMallocManaged(&p, bytes > 0 ? bytes : 1) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

bool managedFree(void *p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  if (attributes.type != cudaMemoryTypeManaged)
    return false;
  cudaFree(p);
  return true;
}

} // namespace nccl
} // namespace rt
} // namespace shardc
