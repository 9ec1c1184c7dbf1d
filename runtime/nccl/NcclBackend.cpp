//===- NcclBackend.cpp - Collectives on CUDA buffers with NCCL ------------===//
//
// One communicator for the world, created on first use: rank 0 makes the
// unique id, MPI broadcasts it. NCCL has no v-variants, so uneven blocks move
// by grouped ncclSend/ncclRecv (even ones by ncclAllGather), as do the boxes
// of a redistribution (always staged). Data moves as
// bytes. Boxes that are not contiguous are packed and unpacked with
// cudaMemcpy2DAsync on the runtime's stream; every call synchronizes that
// stream before returning. The stream is a blocking one: it waits for work
// on the legacy default stream; work on other streams must be complete
// before the call.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <climits>
#include <cstdio>

namespace shardc {
namespace rt {
namespace nccl {

namespace {

/// The NCCL resources of the process. Never destroyed (see release()).
struct NcclState {
  bool ready = false;
  int device = -1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  char *stage = nullptr;
  size_t stageBytes = 0;
};

NcclState &ncclState() {
  static NcclState *s = new NcclState();
  return *s;
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

int checkNccl(const Collective &c, ncclResult_t r, const char *call) {
  if (r == ncclSuccess)
    return SHARDRT_SUCCESS;
  std::string detail = ncclGetErrorString(r);
  const NcclState &s = ncclState();
  if (s.comm) {
    const char *last = ncclGetLastError(s.comm);
    if (last && *last)
      detail += ": " + std::string(last);
  }
  return c.fail(SHARDRT_ERROR_BACKEND, std::string(call) + " failed: " +
                                           detail + "; " + c.describeCounts());
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

/// Creates the world communicator and the stream once. Every rank calls it.
int ensureComm(const Collective &c) {
  NcclState &s = ncclState();
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
  if (int status =
          checkNccl(c, ncclCommInitRank(&comm, c.worldSize, message.id, c.rank),
                    "ncclCommInitRank"))
    return status;
  cudaStream_t stream = nullptr;
  if (int status =
          checkCuda(c, cudaStreamCreate(&stream), "cudaStreamCreate")) {
    ncclCommDestroy(comm);
    return status;
  }
  s.device = device;
  s.comm = comm;
  s.stream = stream;
  s.ready = true;
  return SHARDRT_SUCCESS;
}

/// A staging buffer of at least `bytes` on the device, kept between calls.
int stageBuffer(const Collective &c, size_t bytes, char *&buffer) {
  NcclState &s = ncclState();
  if (bytes > s.stageBytes) {
    if (s.stage) {
      cudaFree(s.stage);
      s.stage = nullptr;
      s.stageBytes = 0;
    }
    if (int status =
            checkCuda(c, cudaMalloc(reinterpret_cast<void **>(&s.stage), bytes),
                      "cudaMalloc of the staging buffer"))
      return status;
    s.stageBytes = bytes;
  }
  buffer = s.stage;
  return SHARDRT_SUCCESS;
}

/// Copies view `src` into view `dst` (equal sizes) on the runtime's stream.
int copyOnDevice(const Collective &c, const View &src, const View &dst) {
  CopyPlan plan(src.sizes, src.strides, dst.strides, c.elemSize);
  cudaStream_t stream = ncclState().stream;
  cudaError_t error = cudaSuccess;
  plan.forEach([&](const Copy2D &r) {
    if (error != cudaSuccess)
      return;
    const char *from = src.data + r.srcOffset;
    char *to = dst.data + r.dstOffset;
    const size_t width = static_cast<size_t>(r.width);
    if (r.height == 1) {
      error =
          cudaMemcpyAsync(to, from, width, cudaMemcpyDeviceToDevice, stream);
      return;
    }
    if (r.srcPitch >= r.width && r.dstPitch >= r.width &&
        r.srcPitch <= INT_MAX && r.dstPitch <= INT_MAX) {
      error = cudaMemcpy2DAsync(to, r.dstPitch, from, r.srcPitch, width,
                                r.height, cudaMemcpyDeviceToDevice, stream);
      return;
    }
    for (int64_t row = 0; row < r.height && error == cudaSuccess; ++row)
      error = cudaMemcpyAsync(to + row * r.dstPitch, from + row * r.srcPitch,
                              width, cudaMemcpyDeviceToDevice, stream);
  });
  return checkCuda(c, error, "cudaMemcpy2DAsync (packing a block)");
}

/// Ends a group opened by ncclGroupStart, reporting the first failure.
int endGroup(const Collective &c, int status) {
  ncclResult_t r = ncclGroupEnd();
  if (status != SHARDRT_SUCCESS)
    return status;
  return checkNccl(c, r, "ncclGroupEnd");
}

int synchronize(const Collective &c) {
  return checkCuda(c, cudaStreamSynchronize(ncclState().stream),
                   "cudaStreamSynchronize");
}

/// Whether a view's dims that hold more than one element have non-negative
/// strides (CUDA copies need non-negative pitches).
bool hasForwardStrides(const View &view) {
  for (size_t d = 0; d < view.rank(); ++d) {
    if (view.sizes[d] > 1 && view.strides[d] < 0)
      return false;
  }
  return true;
}

} // namespace

int checkLocal(const Collective &c, std::string &problem) {
  if (c.op == OpKind::RedistributeReduce) {
    problem = "redistribute_reduce is not implemented on the NCCL backend yet";
    return SHARDRT_ERROR_UNAVAILABLE;
  }
  if (c.srcViews.size() > 1 || c.dstViews.size() > 1) {
    problem = "several blocks per rank are not implemented on the NCCL "
              "backend yet";
    return SHARDRT_ERROR_UNAVAILABLE;
  }
  int device = 0;
  if (int status = pickDevice(device, problem))
    return status;
  auto checkBuffer = [&](const char *what, const View &view) {
    if (!hasForwardStrides(view)) {
      problem = std::string("the ") + what + " tensor has negative strides " +
                layout::formatList(view.strides) +
                ", which CUDA copies do not support";
      return SHARDRT_ERROR_INVALID_ARGUMENT;
    }
    cudaPointerAttributes attributes{};
    cudaError_t e = cudaPointerGetAttributes(&attributes, view.data);
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
    if (attributes.type == cudaMemoryTypeDevice &&
        attributes.device != device) {
      problem = std::string("the ") + what + " data is on CUDA device " +
                std::to_string(attributes.device) +
                " but this rank uses device " + std::to_string(device) +
                " (node-local rank " + std::to_string(nodeLocalRank()) + ")";
      return SHARDRT_ERROR_INVALID_ARGUMENT;
    }
    return SHARDRT_SUCCESS;
  };
  if (c.myBlock >= 0 && c.counts[c.rank] > 0) {
    if (int status = checkBuffer(isRedistribution(c.op) ? "src_local" : "local",
                                 c.local))
      return status;
  }
  if (c.myDstBlock >= 0 && c.dst.volumes[c.myDstBlock] > 0) {
    if (int status = checkBuffer("dst_local", c.dstLocal))
      return status;
  }
  std::optional<int64_t> globalVolume = layout::volume(c.global.sizes);
  if (c.global.data && globalVolume && *globalVolume > 0)
    return checkBuffer("global", c.global);
  return SHARDRT_SUCCESS;
}

int allGather(const Collective &c) {
  if (int status = ensureComm(c))
    return status;
  const NcclState &s = ncclState();
  const int64_t es = static_cast<int64_t>(c.elemSize);
  std::optional<std::vector<int64_t>> direct = directOffsets(c);
  std::vector<int64_t> offsets = direct ? *direct : stagedOffsets(c);
  char *base = c.global.data;
  if (!direct) {
    if (int status = stageBuffer(c, c.totalCount() * es, base))
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

  // Even blocks laid out in rank order: one ncclAllGather, in place.
  bool even = true;
  for (int r = 0; r < c.worldSize && even; ++r)
    even = c.counts[r] == c.counts[0] && offsets[r] == r * c.counts[0];
  if (even) {
    const size_t bytes = c.counts[0] * es;
    if (int status =
            checkNccl(c,
                      ncclAllGather(base + offsets[me] * es, base, bytes,
                                    ncclUint8, s.comm, s.stream),
                      "ncclAllGather"))
      return status;
  } else {
    int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart");
    if (status)
      return status;
    for (int p = 0; p < c.worldSize && !status; ++p) {
      if (p == me)
        continue;
      if (c.counts[me] > 0)
        status = checkNccl(c,
                           ncclSend(base + offsets[me] * es, c.counts[me] * es,
                                    ncclUint8, p, s.comm, s.stream),
                           "ncclSend");
      if (!status && c.counts[p] > 0)
        status = checkNccl(c,
                           ncclRecv(base + offsets[p] * es, c.counts[p] * es,
                                    ncclUint8, p, s.comm, s.stream),
                           "ncclRecv");
    }
    if (int groupStatus = endGroup(c, status))
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
  return synchronize(c);
}

int scatter(const Collective &c) {
  if (int status = ensureComm(c))
    return status;
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
      if (int status = stageBuffer(c, next * es, stage))
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
      if (int status = stageBuffer(c, myCount * es, recvBuffer))
        return status;
      unpack = true;
    }
  }

  int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart");
  if (status)
    return status;
  if (isRoot) {
    for (int p = 0; p < c.worldSize && !status; ++p) {
      if (p != c.root && c.counts[p] > 0)
        status =
            checkNccl(c,
                      ncclSend(sendBase + offsets[p] * es, c.counts[p] * es,
                               ncclUint8, p, s.comm, s.stream),
                      "ncclSend");
    }
  } else if (myCount > 0) {
    status = checkNccl(
        c,
        ncclRecv(recvBuffer, myCount * es, ncclUint8, c.root, s.comm, s.stream),
        "ncclRecv");
  }
  if (int groupStatus = endGroup(c, status))
    return groupStatus;

  if (unpack)
    status =
        copyOnDevice(c, contiguousView(recvBuffer, c.local.sizes), c.local);
  if (!status && isRoot && myCount > 0)
    status = copyOnDevice(c, subView(c.global, c.boxes[c.myBlock], c.elemSize),
                          c.local);
  if (status)
    return status;
  return synchronize(c);
}

int redistribute(const Collective &c) {
  if (int status = ensureComm(c))
    return status;
  const NcclState &s = ncclState();
  const int64_t es = static_cast<int64_t>(c.elemSize);
  const RedistributionPlan &plan = c.plan;
  const layout::Box *srcBox = c.myBlock >= 0 ? &c.boxes[c.myBlock] : nullptr;
  const layout::Box *dstBox =
      c.myDstBlock >= 0 ? &c.dst.boxes[c.myDstBlock] : nullptr;
  for (const layout::Box &box : plan.copies) {
    if (int status = copyOnDevice(c, boxView(c.local, *srcBox, box, es),
                                  boxView(c.dstLocal, *dstBox, box, es)))
      return status;
  }
  if (!plan.exchange)
    return synchronize(c);

  // The staging buffer: what this rank sends, then what it receives, each in
  // peer order.
  std::vector<int64_t> sendCounts, sendOffsets, recvCounts, recvOffsets;
  const int64_t sent =
      packedOffsets(plan.sends, c.worldSize, sendCounts, sendOffsets);
  const int64_t received =
      packedOffsets(plan.receives, c.worldSize, recvCounts, recvOffsets);
  char *stage = nullptr;
  if (sent + received > 0) {
    if (int status = stageBuffer(c, (sent + received) * es, stage))
      return status;
  }
  char *recvStage = stage + sent * es;
  int64_t next = 0;
  for (const Transfer &t : plan.sends) {
    if (int status =
            copyOnDevice(c, boxView(c.local, *srcBox, t.box, es),
                         contiguousView(stage + next * es, t.box.sizes)))
      return status;
    next += *layout::volume(t.box.sizes);
  }

  int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart");
  if (status)
    return status;
  for (int p = 0; p < c.worldSize && !status; ++p) {
    if (sendCounts[p] > 0)
      status =
          checkNccl(c,
                    ncclSend(stage + sendOffsets[p] * es, sendCounts[p] * es,
                             ncclUint8, p, s.comm, s.stream),
                    "ncclSend");
    if (!status && recvCounts[p] > 0)
      status = checkNccl(c,
                         ncclRecv(recvStage + recvOffsets[p] * es,
                                  recvCounts[p] * es, ncclUint8, p, s.comm,
                                  s.stream),
                         "ncclRecv");
  }
  if (int groupStatus = endGroup(c, status))
    return groupStatus;

  next = 0;
  for (const Transfer &t : plan.receives) {
    if (int status =
            copyOnDevice(c, contiguousView(recvStage + next * es, t.box.sizes),
                         boxView(c.dstLocal, *dstBox, t.box, es)))
      return status;
    next += *layout::volume(t.box.sizes);
  }
  return synchronize(c);
}

void release() {
  NcclState &s = ncclState();
  if (!s.ready)
    return;
  cudaSetDevice(s.device);
  cudaStreamSynchronize(s.stream);
  if (s.stage)
    cudaFree(s.stage);
  cudaStreamDestroy(s.stream);
  ncclCommDestroy(s.comm);
  s = NcclState();
}

} // namespace nccl
} // namespace rt
} // namespace shardc
