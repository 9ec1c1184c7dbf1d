//===- NcclBackend.cpp - Collectives on CUDA buffers with NCCL ------------===//
//
// Communicators: one for the world, created on first use (rank 0 makes the
// unique id, MPI broadcasts it), and one per group of ranks that a grouped
// collective needs, split from the world's (ncclCommSplit) on first use and
// cached by the groups' colors. Every call is enqueued on the caller's
// stream (shardrt_set_cuda_stream) or the runtime's own, then waited for by
// polling the stream and the communicators' asynchronous errors, so that
// the watchdog (SHARDRT_TIMEOUT_SECONDS) can abort the communicators
// (ncclCommAbort) instead of waiting forever.
//
// NCCL has no v-variants: uneven blocks and every redistribution move as
// grouped ncclSend/ncclRecv of staged boxes; even all_gathers run
// ncclAllGather and all-reduces within groups (partial -> replicate over
// mesh axes) ncclAllReduce on the group's communicator. Boxes are packed,
// unpacked, copied and reduced by the CUDA kernels of Kernels.cu (any dims,
// any strides) with the host's element arithmetic.
//
//===----------------------------------------------------------------------===//

#include "Groups.h"
#include "Kernels.h"
#include "Runtime.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <map>
#include <mutex>
#include <thread>

namespace shardc {
namespace rt {
namespace nccl {

/// What the backend derives once from a checked call: whether it is an
/// all-reduce within groups, and their colors.
struct Prepared {
  std::optional<std::vector<int>> groups;
};

namespace {

/// The NCCL resources of the process. Never destroyed (see release()).
struct NcclState {
  bool ready = false;
  int device = -1;
  ncclComm_t world = nullptr;
  cudaStream_t stream = nullptr;
  /// Staging buffers: what is sent, what is received.
  char *stage[2] = {nullptr, nullptr};
  size_t stageBytes[2] = {0, 0};
  /// Communicators split from `world`, by the color of every world rank
  /// (null for a rank outside every group).
  std::map<std::vector<int>, ncclComm_t> groups;
  /// Guards the communicators against the watchdog's abort.
  std::mutex mutex;
};

NcclState &ncclState() {
  static NcclState *s = new NcclState();
  return *s;
}

/// The watchdog's hook: aborts every communicator, so that kernels waiting
/// for peers that never come return.
void abortCommunicators() {
  NcclState &s = ncclState();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &[colors, comm] : s.groups) {
    if (comm)
      ncclCommAbort(comm);
    comm = nullptr;
  }
  if (s.world)
    ncclCommAbort(s.world);
  s.world = nullptr;
}

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
              ncclComm_t comm, const std::string &group = "world") {
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

/// Creates the world communicator and the runtime's stream once. Every rank
/// calls it.
int ensureComm(const Collective &c) {
  NcclState &s = ncclState();
  if (s.ready && !s.world)
    return c.fail(SHARDRT_ERROR_BACKEND,
                  "the NCCL communicators were aborted by an earlier timeout");
  if (s.ready)
    return checkCuda(c, cudaSetDevice(s.device), "cudaSetDevice");
  std::string problem;
  int device = 0;
  if (int status = pickDevice(device, problem))
    return c.fail(static_cast<shardrt_status>(status), problem);

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
  cudaStream_t stream = nullptr;
  // A blocking stream: it waits for work on the legacy default stream.
  if (int status =
          checkCuda(c, cudaStreamCreate(&stream), "cudaStreamCreate")) {
    ncclCommDestroy(comm);
    return status;
  }
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.device = device;
    s.world = comm;
    s.stream = stream;
    s.ready = true;
  }
  addAbortHook(abortCommunicators);
  return SHARDRT_SUCCESS;
}

/// The stream of this call: the caller's (shardrt_set_cuda_stream) or the
/// runtime's.
cudaStream_t callStream() {
  void *mine = threadCudaStream();
  return mine ? static_cast<cudaStream_t>(mine) : ncclState().stream;
}

/// The communicator of the groups `colors` (this rank's is null when its
/// color is -1), split from the world's on first use. Every rank calls it.
int groupComm(const Collective &c, const std::vector<int> &colors,
              ncclComm_t &comm) {
  NcclState &s = ncclState();
  auto found = s.groups.find(colors);
  if (found != s.groups.end()) {
    comm = found->second;
    return SHARDRT_SUCCESS;
  }
  const int color = colors[c.rank] < 0 ? NCCL_SPLIT_NOCOLOR : colors[c.rank];
  comm = nullptr;
  watchStep("splitting a group communicator (ncclCommSplit)");
  const ncclResult_t split =
      ncclCommSplit(s.world, color, c.rank, &comm, nullptr);
  // A non-blocking split is waited for on the new communicator (this rank's,
  // when it has one) and on the world's.
  if (int status = checkNccl(c, split, "ncclCommSplit", comm ? comm : s.world,
                             describeGroup(colors, c.rank)))
    return status;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.groups[colors] = comm;
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
int endGroup(const Collective &c, int status, ncclComm_t comm) {
  watchStep("in ncclGroupEnd (grouped ncclSend/ncclRecv)");
  ncclResult_t r = ncclGroupEnd();
  if (status != SHARDRT_SUCCESS)
    return status;
  return checkNccl(c, r, "ncclGroupEnd", comm);
}

/// Waits for the call's stream, polling so that the communicators'
/// asynchronous errors are reported and the watchdog can abort.
int finish(const Collective &c, ncclComm_t group = nullptr,
           const std::string &groupName = "") {
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
        return checkNccl(c, async, "an asynchronous NCCL operation", comm,
                         comm == group ? groupName : "world");
      }
    }
    lock.unlock();
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
  }
  return ncclUint8;
}

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

int prepare(const Collective &c) { return ensureComm(c); }

int allGather(const Collective &c) {
  const NcclState &s = ncclState();
  const int64_t es = static_cast<int64_t>(c.elemSize);
  // Which NCCL call runs is a function of the agreed counts only: equal
  // counts run one ncclAllGather, others grouped ncclSend/ncclRecv. Where
  // the blocks lie in this rank's global view is its own: it receives in
  // place when they lie one after another in rank order, else in staging.
  bool even = true;
  for (int r = 0; r < c.worldSize && even; ++r)
    even = c.counts[r] == c.counts[0];
  std::optional<std::vector<int64_t>> direct = directOffsets(c);
  if (direct && even) {
    for (int r = 0; r < c.worldSize && direct; ++r)
      if ((*direct)[r] != r * c.counts[0])
        direct.reset();
  }
  std::vector<int64_t> offsets = direct ? *direct : stagedOffsets(c);
  char *base = c.global.data;
  if (!direct) {
    if (int status = stageBuffer(c, 1, c.totalCount() * es, base))
      return status;
  }
  const int me = c.rank;
  if (c.myBlock >= 0 && c.counts[me] > 0) {
    const layout::Box &box = c.boxes[c.myBlock];
    View dst = direct ? subView(c.global, box, c.elemSize)
                      : contiguousView(base + offsets[me] * es, box.sizes);
    if (int status = copyOnDevice(c, c.local, dst))
      return status;
  }

  if (even) {
    const size_t bytes = c.counts[0] * es;
    watchStep("in ncclAllGather");
    if (int status =
            checkNccl(c,
                      ncclAllGather(base + offsets[me] * es, base, bytes,
                                    ncclUint8, s.world, callStream()),
                      "ncclAllGather", s.world))
      return status;
  } else {
    int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart", s.world);
    if (status)
      return status;
    for (int p = 0; p < c.worldSize && !status; ++p) {
      if (p == me)
        continue;
      if (c.counts[me] > 0)
        status = checkNccl(c,
                           ncclSend(base + offsets[me] * es, c.counts[me] * es,
                                    ncclUint8, p, s.world, callStream()),
                           "ncclSend", s.world);
      if (!status && c.counts[p] > 0)
        status = checkNccl(c,
                           ncclRecv(base + offsets[p] * es, c.counts[p] * es,
                                    ncclUint8, p, s.world, callStream()),
                           "ncclRecv", s.world);
    }
    if (int groupStatus = endGroup(c, status, s.world))
      return groupStatus;
  }

  if (!direct) {
    for (int r = 0; r < c.worldSize; ++r) {
      if (c.counts[r] == 0)
        continue;
      const layout::Box &box = c.boxes[c.blockOfRank[r]];
      if (int status =
              copyOnDevice(c, contiguousView(base + offsets[r] * es, box.sizes),
                           subView(c.global, box, c.elemSize)))
        return status;
    }
  }
  return finish(c);
}

int scatter(const Collective &c) {
  const NcclState &s = ncclState();
  const int64_t es = static_cast<int64_t>(c.elemSize);
  const bool isRoot = c.rank == c.root;

  std::vector<int64_t> offsets(c.worldSize, 0);
  const char *sendBase = nullptr;
  if (isRoot) {
    std::optional<std::vector<int64_t>> direct = directOffsets(c);
    if (direct) {
      offsets = *direct;
      sendBase = c.global.data;
    } else {
      int64_t next = 0;
      offsets = scatterStagingOffsets(c, next);
      char *stage = nullptr;
      if (int status = stageBuffer(c, 0, next * es, stage))
        return status;
      for (int r = 0; r < c.worldSize; ++r) {
        if (r == c.root || c.counts[r] == 0)
          continue;
        const layout::Box &box = c.boxes[c.blockOfRank[r]];
        if (int status = copyOnDevice(
                c, subView(c.global, box, c.elemSize),
                contiguousView(stage + offsets[r] * es, box.sizes)))
          return status;
      }
      sendBase = stage;
    }
  }

  const int64_t myCount = c.counts[c.rank];
  char *recvBuffer = nullptr;
  bool unpack = false;
  if (!isRoot && myCount > 0) {
    recvBuffer = c.local.data;
    if (!isContiguous(c.local.sizes, c.local.strides)) {
      if (int status = stageBuffer(c, 1, myCount * es, recvBuffer))
        return status;
      unpack = true;
    }
  }

  int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart", s.world);
  if (status)
    return status;
  if (isRoot) {
    for (int p = 0; p < c.worldSize && !status; ++p) {
      if (p != c.root && c.counts[p] > 0)
        status =
            checkNccl(c,
                      ncclSend(sendBase + offsets[p] * es, c.counts[p] * es,
                               ncclUint8, p, s.world, callStream()),
                      "ncclSend", s.world);
    }
  } else if (myCount > 0) {
    status = checkNccl(c,
                       ncclRecv(recvBuffer, myCount * es, ncclUint8, c.root,
                                s.world, callStream()),
                       "ncclRecv", s.world);
  }
  if (int groupStatus = endGroup(c, status, s.world))
    return groupStatus;

  if (unpack)
    status =
        copyOnDevice(c, contiguousView(recvBuffer, c.local.sizes), c.local);
  if (!status && isRoot && myCount > 0)
    status = copyOnDevice(c, subView(c.global, c.boxes[c.myBlock], c.elemSize),
                          c.local);
  if (status)
    return status;
  return finish(c);
}

namespace {

/// The groups of a redistribute_reduce that NCCL runs as ncclAllReduce on a
/// communicator per group: an all-reduce within groups (Groups.h), with an
/// op whose NCCL semantics are the runtime's (sum,
/// avg as sum then division, product; max and min on integers only: NCCL's
/// floating max and min do not propagate NaN).
const std::optional<std::vector<int>> &groupsOf(const Collective &c) {
  if (c.ncclPrepared)
    return c.ncclPrepared->groups;
  auto p = std::make_shared<Prepared>();
  const bool floating = c.dtype == SHARDRT_F32 || c.dtype == SHARDRT_F64 ||
                        c.dtype == SHARDRT_F16 || c.dtype == SHARDRT_BF16;
  const bool opFits =
      !(floating && (c.reduce == SHARDRT_MAX || c.reduce == SHARDRT_MIN));
  // Agreed data only (not this rank's strides): every rank makes the same
  // choice, so all call ncclAllReduce or none does.
  if (c.op == OpKind::RedistributeReduce && opFits) {
    layout::BlockTable src;
    src.boxes = c.boxes;
    src.owners = c.owners;
    for (const layout::Box &box : c.boxes)
      src.volumes.push_back(*layout::volume(box.sizes));
    p->groups = rt::groupedAllReduce(src, c.partial, c.dst, c.worldSize);
  }
  c.ncclPrepared = std::move(p);
  return c.ncclPrepared->groups;
}

/// A redistribute_reduce that is an all-reduce within groups.
int runGroupedAllReduce(const Collective &c, const std::vector<int> &colors) {
  ncclComm_t comm = nullptr;
  if (int status = groupComm(c, colors, comm))
    return status;
  if (!comm || c.myBlock < 0)
    return finish(c);
  int64_t members = 0;
  for (int color : colors)
    members += color == colors[c.rank];
  const std::string group = describeGroup(colors, c.rank);
  const ncclRedOp_t op = c.reduce == SHARDRT_PRODUCT ? ncclProd
                         : c.reduce == SHARDRT_MAX   ? ncclMax
                         : c.reduce == SHARDRT_MIN   ? ncclMin
                                                     : ncclSum;
  // A block that is not one contiguous run is reduced in staging (packed
  // before, unpacked after): a choice of this rank alone, the call the same.
  const bool staged = !isContiguous(c.local.sizes, c.local.strides) ||
                      !isContiguous(c.dstLocal.sizes, c.dstLocal.strides);
  const char *send = c.local.data;
  char *receive = c.dstLocal.data;
  if (staged) {
    char *stage = nullptr;
    if (int status = stageBuffer(c, 1, c.counts[c.rank] * c.elemSize, stage))
      return status;
    if (int status =
            copyOnDevice(c, c.local, contiguousView(stage, c.local.sizes)))
      return status;
    send = receive = stage;
  }
  watchStep("in ncclAllReduce");
  if (int status = checkNccl(
          c,
          ncclAllReduce(send, receive, static_cast<size_t>(c.counts[c.rank]),
                        ncclType(c.dtype), op, comm, callStream()),
          "ncclAllReduce", comm, group))
    return status;
  if (staged) {
    if (int status = copyOnDevice(c, contiguousView(receive, c.dstLocal.sizes),
                                  c.dstLocal))
      return status;
  }
  if (c.reduce == SHARDRT_AVG) {
    if (int status = divideOnDevice(c, c.dstLocal, members))
      return status;
  }
  return finish(c, comm, group);
}

} // namespace

int redistribute(const Collective &c) {
  if (const auto &groups = groupsOf(c))
    return runGroupedAllReduce(c, *groups);
  const NcclState &s = ncclState();
  const int64_t es = static_cast<int64_t>(c.elemSize);
  const RedistributionPlan &plan = c.plan;
  const bool reduces = plan.reduces();
  if (!reduces) {
    for (size_t i = 0; i < plan.copies.size(); ++i) {
      if (int status = copyOnDevice(c, copySource(c, i), copyDestination(c, i)))
        return status;
    }
    if (!plan.exchange)
      return finish(c);
  }

  // Stage what this rank sends, and receive into a stage, each in peer
  // order.
  std::vector<int64_t> sendCounts, sendOffsets, recvCounts, recvOffsets;
  const int64_t sent =
      packedOffsets(plan.sends, c.worldSize, sendCounts, sendOffsets);
  const int64_t received =
      packedOffsets(plan.receives, c.worldSize, recvCounts, recvOffsets);
  char *sendStage = nullptr, *recvStage = nullptr;
  if (sent > 0) {
    if (int status = stageBuffer(c, 0, sent * es, sendStage))
      return status;
  }
  if (received > 0) {
    if (int status = stageBuffer(c, 1, received * es, recvStage))
      return status;
  }
  int64_t next = 0;
  for (const Transfer &t : plan.sends) {
    if (int status =
            copyOnDevice(c, sendView(c, t),
                         contiguousView(sendStage + next * es, t.box.sizes)))
      return status;
    next += *layout::volume(t.box.sizes);
  }

  if (plan.exchange) {
    int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart", s.world);
    if (status)
      return status;
    for (int p = 0; p < c.worldSize && !status; ++p) {
      if (sendCounts[p] > 0)
        status = checkNccl(c,
                           ncclSend(sendStage + sendOffsets[p] * es,
                                    sendCounts[p] * es, ncclUint8, p, s.world,
                                    callStream()),
                           "ncclSend", s.world);
      if (!status && recvCounts[p] > 0)
        status = checkNccl(c,
                           ncclRecv(recvStage + recvOffsets[p] * es,
                                    recvCounts[p] * es, ncclUint8, p, s.world,
                                    callStream()),
                           "ncclRecv", s.world);
    }
    if (int groupStatus = endGroup(c, status, s.world))
      return groupStatus;
  }

  // Where each received box starts in the stage.
  std::vector<int64_t> starts;
  next = 0;
  for (const Transfer &t : plan.receives) {
    starts.push_back(next);
    next += *layout::volume(t.box.sizes);
  }
  if (!reduces) {
    for (size_t i = 0; i < plan.receives.size(); ++i) {
      const Transfer &t = plan.receives[i];
      if (int status = copyOnDevice(
              c, contiguousView(recvStage + starts[i] * es, t.box.sizes),
              receiveView(c, t)))
        return status;
    }
    return finish(c);
  }
  // The contributions in the plan's order (the host's: MpiBackend.cpp).
  for (const layout::Contribution &step : plan.order) {
    const Transfer *t = step.received ? &plan.receives[step.index] : nullptr;
    const View from =
        t ? contiguousView(recvStage + starts[step.index] * es, t->box.sizes)
          : copySource(c, step.index);
    const View to = t ? receiveView(c, *t) : copyDestination(c, step.index);
    if (int status = step.reduce ? reduceOnDevice(c, from, to)
                                 : copyOnDevice(c, from, to))
      return status;
  }
  if (c.reduce == SHARDRT_AVG) {
    for (const layout::Combined &combined : plan.combined) {
      if (int status = divideOnDevice(c,
                                      boxView(c.dstViews.at(combined.dstBlock),
                                              c.dst.boxes[combined.dstBlock],
                                              combined.box, c.elemSize),
                                      combined.count))
        return status;
    }
  }
  return finish(c);
}

void release() {
  NcclState &s = ncclState();
  if (!s.ready)
    return;
  cudaSetDevice(s.device);
  cudaStreamSynchronize(s.stream);
  for (char *stage : s.stage) {
    if (stage)
      cudaFree(stage);
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &[colors, comm] : s.groups) {
    if (comm)
      ncclCommDestroy(comm);
  }
  s.groups.clear();
  cudaStreamDestroy(s.stream);
  if (s.world)
    ncclCommDestroy(s.world);
  s.world = nullptr;
  s.stream = nullptr;
  s.stage[0] = s.stage[1] = nullptr;
  s.stageBytes[0] = s.stageBytes[1] = 0;
  s.device = -1;
  s.ready = false;
}

} // namespace nccl
} // namespace rt
} // namespace shardc
