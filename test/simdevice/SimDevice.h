//===- SimDevice.h - The tests' simulated CUDA device and NCCL ------------===//
//
// A test-only stand-in, linked in place of libcudart and libnccl, for the
// CUDA runtime and NCCL calls the runtime's NCCL backend makes: device
// memory is host memory the simulator tracks, a stream is a queue whose
// work runs in order as the host polls it (an NCCL call's part waits there
// for its peers, and what follows waits behind it), kernels run their bodies
// (nccl/KernelBodies.h) thread by thread on the host, and NCCL's traffic moves
// in MPI messages.
//
// It is strict where CUDA and NCCL are strict, and fails where they would
// hang or corrupt: a buffer that is not device memory of the current
// device, ranks of a communicator that make different calls (kind, order,
// count, type, op, root, peer), a rank that never makes its part of a call
// or never creates the communicator. Such a call returns an error whose
// text (ncclGetLastError) names the ranks and the calls; the other ranks
// learn of it by a message and fail alike.
//
// Settings (environment): SHARDC_SIM_DEVICES, the GPUs each process sees
// (default 1); SHARDC_SIM_TIMEOUT_SECONDS, how long a call waits for a
// peer before it fails naming it (default 10); NCCL_COMM_BLOCKING=0 makes
// creation, splits and group ends return ncclInProgress, their work done
// only once ncclCommGetAsyncError is polled (as NCCL's non-blocking
// communicators). For tests of failures: SHARDC_SIM_MALLOC_FAILS_ON_RANK=R
// makes cudaMalloc fail on world rank R; SHARDC_SIM_ABORT_HANGS=1 makes
// ncclCommAbort never return (a stuck device). Communicators still alive
// when a process exits normally are reported as a failure (a leak).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_SIM_DEVICE_H
#define SHARDC_SIM_DEVICE_H

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>

namespace shardc {
namespace sim {

/// The device that holds [ptr, ptr + bytes): its index, or -1 when the
/// range is not inside one allocation of device (or managed) memory;
/// `managed` says which.
int deviceOf(const void *ptr, size_t bytes, bool *managed = nullptr);

/// Whether a kernel or NCCL call on `device` may touch [ptr, ptr + bytes):
/// device memory of that device, or managed memory (any device reaches it).
bool reachable(const void *ptr, size_t bytes, int device);

/// The calling thread's current device.
int currentDevice();

/// Records `e` as the sticky error of the calling thread (what
/// cudaGetLastError returns) and returns it.
cudaError_t recordError(cudaError_t e);

/// Queues `step` on `stream` (null: the legacy default stream) behind its
/// earlier work. It runs when all before it is done, then again at each
/// later poll until it returns true (done); it runs at once when nothing is
/// queued before it.
void enqueue(cudaStream_t stream, std::function<bool()> step);
/// Runs `stream`'s queued work as far as it goes without waiting; true when
/// none is left.
bool progress(cudaStream_t stream);
/// progress() on every stream; true when no stream has work left.
bool progressAll();

/// Makes the next `count` cudaMalloc calls of this process fail with
/// cudaErrorMemoryAllocation (for tests of a failure on one rank).
void failMallocs(int count);

/// Makes the next `count` kernel launches of this process fail with
/// cudaErrorLaunchFailure (copies by cudaMemcpyAsync are not launches), and
/// consumes one such failure (the launchers ask before each launch).
void failLaunches(int count);
bool launchFails();

/// The simulator's timeout in seconds.
double timeoutSeconds();

/// The communicators created in this process and not yet destroyed or
/// aborted. A process that exits normally with any left prints
/// "shardsim: rank R: FAILED: ..." (the tests fail on it): NCCL's resources
/// would leak.
int liveCommunicators();

} // namespace sim
} // namespace shardc

#endif // SHARDC_SIM_DEVICE_H
