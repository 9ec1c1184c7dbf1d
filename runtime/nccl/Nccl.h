//===- Nccl.h - What the NCCL backend's parts share -------------*- C++ -*-===//
//
// The process's NCCL resources (NcclResources.cpp): the world's
// communicator, the communicators of groups of ranks split from it, the
// runtime's stream and staging buffers; the checks that turn a CUDA or NCCL
// failure into the call's error; and the kernels' launches on the call's
// stream. The collectives use them: NcclBackend.cpp (all_gather, scatter,
// redistribute), NcclGroups.cpp (the named collectives within groups).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_NCCL_NCCL_H
#define SHARDRT_NCCL_NCCL_H

#include "Runtime.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>
#include <vector>

namespace shardc {
namespace rt {
namespace nccl {

/// "cudaErrorMemoryAllocation (out of memory)".
std::string cudaText(cudaError_t e);
/// SHARDRT_SUCCESS, or the call's error naming `call` and the CUDA error
/// (cleared, so that later calls start clean).
int checkCuda(const Collective &c, cudaError_t e, const char *call);
/// SHARDRT_SUCCESS, or the call's error naming `call` on `group` ("world",
/// "group of ranks [0, 2]") with NCCL's last error. A non-blocking
/// communicator's ncclInProgress is waited for on `comm` first.
int checkNccl(const Collective &c, ncclResult_t r, const char *call,
              ncclComm_t comm, const std::string &group = "world");

/// The world's communicator (after prepare()).
ncclComm_t worldNccl();
/// The stream of this call: the caller's (shardrt_set_cuda_stream) or the
/// runtime's.
cudaStream_t callStream();
/// The communicator of this rank's group when the world's ranks split into
/// groups by `colors` (-1: in none; this rank's communicator is then null),
/// ordered within each group by `keys`, and its name for messages. Split
/// from the world's once (sharing its resources: splitShare) and kept among
/// the most recently used; every rank calls it for every call that needs
/// it, so that every rank keeps and evicts the same communicators.
int groupComm(const Collective &c, const std::vector<int> &colors,
              const std::vector<int> &keys, ncclComm_t &comm,
              std::string &name);

/// A staging buffer (0: send, 1: receive, 2: received to be reduced) of at
/// least `bytes` on the device, kept between calls.
int stageBuffer(const Collective &c, int slot, size_t bytes, char *&buffer);

/// dst = src (views of equal sizes) on the call's stream.
int copyOnDevice(const Collective &c, const View &src, const View &dst);
/// dst = dst op src (c.reduce, views of equal sizes) on the call's stream.
int reduceOnDevice(const Collective &c, const View &src, const View &dst);
/// view = view / count (avg) on the call's stream.
int divideOnDevice(const Collective &c, const View &view, int64_t count);

/// Ends a group opened by ncclGroupStart, reporting `status` (the first
/// failure within the group) or ncclGroupEnd's.
int endGroup(const Collective &c, int status, ncclComm_t comm,
             const std::string &group = "world");
/// Waits for the call's stream, polling so that the world's and `group`'s
/// asynchronous errors are reported, the watchdog can abort, and an alert
/// from a rank this rank waits for ends the wait (failedAfterAgreement):
/// `members`, the world ranks of its group (empty: any rank).
int finish(const Collective &c, ncclComm_t group = nullptr,
           const std::string &groupName = "",
           const std::vector<int> &members = {});

/// The NCCL type of a runtime dtype.
ncclDataType_t ncclType(shardrt_dtype dtype);
/// NCCL's reduction for the runtime's `reduce` where NCCL computes what the
/// runtime does in `dtype` (avg as a sum, divided afterwards); false for max
/// and min of floating types (NCCL's do not propagate NaN).
bool nativeReduction(shardrt_dtype dtype, shardrt_reduce reduce,
                     ncclRedOp_t &op);

} // namespace nccl
} // namespace rt
} // namespace shardc

#endif // SHARDRT_NCCL_NCCL_H
